"""HtmlParseFilter plugins: parse-metatags, headings, creativecommons, microformats-reltag, and a third-party one."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.records import Content, ParseData, ParseStatusCode, ParseText
from gossamer.core.settings import Settings
from gossamer.crawl.parse import PageParser, ParsedPage
from gossamer.plugins import IndexInput, ParseResult, PluginRepository
from gossamer.plugins.builtin.creativecommons import CCIndexingFilter, cc_features
from gossamer.plugins.builtin.creativecommons_rdf import license_features, read_rdf
from gossamer.plugins.builtin.microformats_reltag import RelTagIndexingFilter, tag_of

from .conftest import install_fake_distribution

URL = "http://site.test/dir/page.html"
FILTERS = "parse-(html|metatags)|headings|creativecommons|microformats-reltag|scoring-opic|urlnormalizer-pass"


def settings(**values: object) -> Settings:
    base: dict[str, object] = {"plugin.includes": FILTERS}
    base.update({k.replace("_", "."): v for k, v in values.items()})
    return Settings().with_values(list(base.items()), "test")


def parse(body: str, parser: PageParser | None = None, **values: object) -> ParsedPage:
    parser = parser or PageParser(settings(**values))
    content = Content(URL, URL, body.encode("utf-8"), "text/html", [("Content-Type", "text/html")], {})
    return parser.parse(URL, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1_000, 0, 2_592_000, 1.0), content)


def meta(body: str, **values: object) -> dict[str, str]:
    page = parse(body, **values)
    assert page.outcome == "success", page.failed
    return page.parse_data.parse_metadata


def index_input(parse_meta: dict[str, str]) -> IndexInput:
    data = ParseData(ParseStatusCode.SUCCESS, "t", [], {}, parse_meta)
    return IndexInput(URL, None, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1), ParseResult(data, ParseText("")), [], "s")


# --- parse-metatags ---

def test_metatags_copies_the_named_tags_with_their_prefix() -> None:
    found = meta("<head><meta name='Description' content=' A  page '><meta name=keywords content='a, b'>"
                 "<meta name=author content=me><meta http-equiv=Content-Language content=en></head>")
    assert found["metatag.description"] == "A page" and found["metatag.keywords"] == "a, b"
    assert "metatag.author" not in found and found["author"] == "me"  # parse-html keeps every name


def test_metatags_star_takes_every_name_and_http_equiv_and_keeps_all_values() -> None:
    found = meta("<meta name=author content=me><meta http-equiv=Content-Language content=en>"
                 "<meta property='og:title' content=OG><meta name=author content=you><meta name=author content=me>",
                 metatags_names="*")
    assert found["metatag.author"] == "me\tyou"
    assert found["metatag.content-language"] == "en" and found["metatag.og:title"] == "OG"


def test_metatags_reads_the_tree_itself_when_the_parser_handed_no_meta_elements() -> None:
    from selectolax.lexbor import LexborHTMLParser

    from gossamer.plugins.builtin.htmlfilter_metatags import MetaTagsFilter
    from gossamer.plugins.builtin.parse_html import HtmlParser

    body = ("<head><meta name=author content=me><meta name=robots><meta http-equiv=Refresh content=''>"
            "</head><body><meta property='og:title' content=OG><meta name=author content=you></body>")
    s = settings(metatags_names="*")
    content = Content(URL, URL, body.encode("utf-8"), "text/html", [], {})
    handed, tree = HtmlParser(s).parse_tree(content)
    assert handed.meta_elements is not None and len(handed.meta_elements) == 5
    bare = ParseResult(ParseData(ParseStatusCode.SUCCESS, "", [], {}, {}), ParseText(""))
    metatags = MetaTagsFilter(s)
    from_parser = metatags.filter(content, handed, tree).data.parse_metadata
    from_tree = metatags.filter(content, bare, LexborHTMLParser(body)).data.parse_metadata
    assert {k: v for k, v in from_parser.items() if k.startswith("metatag.")} == from_tree == {
        "metatag.author": "me\tyou", "metatag.og:title": "OG"}  # an empty value is not kept


def test_without_parse_metatags_there_are_no_metatag_keys() -> None:
    found = meta("<meta name=description content=d>", plugin_includes="parse-html|scoring-opic")
    assert found["description"] == "d" and "metatag.description" not in found


# --- headings ---

HEADINGS = "<h1>First <b>one</b></h1><h2>Sub</h2><h1>  </h1><h1>Second</h1><h3>three</h3>"


def test_headings_keeps_the_first_non_empty_text_of_each() -> None:
    found = meta(HEADINGS)
    assert found["h1"] == "First one" and found["h2"] == "Sub" and "h3" not in found


def test_headings_multivalued_and_configured_names() -> None:
    found = meta(HEADINGS, headings="h1,h3,p", headings_multivalued=True)
    assert found["h1"] == "First one\tSecond" and found["h3"] == "three" and "h2" not in found


def test_headings_with_no_heading_names_leaves_the_chain() -> None:
    repo = PluginRepository(settings(headings="p"))
    parser = PageParser(repo.settings, repo)
    assert meta("<h1>x</h1>", headings="p").get("h1") is None
    assert not any(type(f).__name__ == "HeadingsFilter" for f in parser.html_filters)
    state = {s.info.id: s for s in repo.states()}["headings"]
    assert not state.active and "not configured" in state.reason


# --- creativecommons ---

RDF = """<!-- <rdf:RDF xmlns="http://web.resource.org/cc/" xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<Work rdf:about=""><dc:type rdf:resource="http://purl.org/dc/dcmitype/StillImage" />
<license rdf:resource="http://creativecommons.org/licenses/by-nc/2.0/" /></Work>
<License rdf:about="http://creativecommons.org/licenses/by-nc/2.0/"></License></rdf:RDF> -->"""


def test_cc_rel_license_link_relative_and_with_other_rel_words() -> None:
    found = meta("<p><a href='/x'>x</a> <a rel='nofollow License' href='../lic/by-sa/4.0/'>CC</a></p>")
    assert found["License-Url"] == "http://site.test/lic/by-sa/4.0/" and found["License-Location"] == "rel"
    assert "Work-Type" not in found
    found = meta("<head><link rel=license href='https://creativecommons.org/licenses/by/4.0/'></head>")
    assert found["License-Location"] == "rel"


def test_cc_rdf_wins_over_links_and_gives_the_work_type() -> None:
    found = meta(f"<a rel=license href='http://example.org/other'>o</a>{RDF}")
    assert found["License-Url"] == "http://creativecommons.org/licenses/by-nc/2.0/"
    assert found["License-Location"] == "rdf" and found["Work-Type"] == "image"


def test_cc_plain_link_to_a_cc_license_is_the_last_resort() -> None:
    found = meta("<a href='http://example.org/licenses/by/'>no</a>"
                 "<a href='https://creativecommons.org/licenses/by-nd/3.0/'>CC</a>")
    assert found["License-Url"] == "https://creativecommons.org/licenses/by-nd/3.0/"
    assert found["License-Location"] == "a"
    assert "License-Url" not in meta("<a href='http://example.org/licenses/by/'>no license</a>")


def test_cc_exclude_unlicensed_fails_the_page_with_a_reason() -> None:
    page = parse("<p>no license here</p>", creativecommons_exclude_unlicensed=True)
    assert page.outcome == "failed" and "no license found" in page.failed
    assert parse("<a rel=license href='/l'>l</a>", creativecommons_exclude_unlicensed=True).outcome == "success"


def test_cc_rdf_reader_is_bounded_and_tolerant() -> None:
    assert read_rdf("<rdf:RDF xmlns:rdf='x'><broken</rdf:RDF>").license_url == ""
    assert read_rdf("<rdf:RDF " * 100_000).license_url == ""  # openings without a close: linear, nothing
    entity = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><!DOCTYPE x [<!ENTITY a "b">]>'
              "</rdf:RDF>")
    assert read_rdf(entity).license_url == ""
    new_ns = ('<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:cc="http://creativecommons.org/ns#"'
              ' xmlns:dc="http://purl.org/dc/elements/1.1/"><cc:Work><dc:rights rdf:resource="http://l.test/"/>'
              "</cc:Work></rdf:RDF>")
    assert read_rdf(new_ns).license_url == "http://l.test/"


def test_cc_index_features() -> None:
    assert license_features("https://creativecommons.org/licenses/by-nc-sa/2.0/fr/legalcode") == [
        "by-nc-sa", "2.0", "fr"]
    assert license_features("https://creativecommons.org/publicdomain/zero/1.0/") == ["publicdomain", "zero", "1.0"]
    assert license_features("https://www.gnu.org/licenses/gpl-3.0.html") == []
    found = {"License-Url": "https://creativecommons.org/licenses/by-sa/4.0/", "License-Location": "rel",
             "Work-Type": "text"}
    assert cc_features(found) == ["license=https://creativecommons.org/licenses/by-sa/4.0/", "by-sa", "4.0",
                                  "meta=rel", "text"]
    doc = CCIndexingFilter(Settings()).filter({}, index_input(found))
    assert doc is not None and doc["cc"][1] == "by-sa"
    assert CCIndexingFilter(Settings()).filter({}, index_input({})) == {}


# --- microformats-reltag ---

def test_reltag_takes_the_last_path_segment_decoded_sorted_and_distinct() -> None:
    found = meta("<a rel=tag href='/tags/web%20crawling/'>w</a> <a rel='tag' href='http://t.test/tag/Python'>p</a>"
                 "<a rel=tag href='/tags/python?x=1'>dup</a><a rel=tag href='/tags/Python'>again</a>"
                 "<a href='/tags/notatag'>n</a><a rel=tag href=''>empty</a>")
    assert found["Rel-Tag"] == "Python\tpython\tweb crawling"
    assert tag_of("http://t.test/") == "" and tag_of("http://t.test/a+b") == "a b"
    doc = RelTagIndexingFilter(Settings()).filter({}, index_input(found))
    assert doc == {"tag": ["Python", "python", "web crawling"]}


# --- a third-party HtmlParseFilter, one entry point away ---

THIRD_PARTY = '''
from gossamer.plugins import HtmlParseFilter, PluginInfo


class WordCount(HtmlParseFilter):
    def __init__(self, settings):
        self.settings = settings

    def filter(self, content, result, tree):
        result.data.parse_metadata["paragraphs"] = str(len(tree.css("p")))
        return result


PLUGIN = PluginInfo(id="parsefilter-paragraphs", point="HtmlParseFilter", factory=WordCount,
                    description="counts paragraphs")
'''


def test_a_third_party_filter_registered_by_entry_point_runs_in_the_chain(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = install_fake_distribution(tmp_path / "site", "paragraphs-plugin", "paragraphs_plugin", THIRD_PARTY,
                                     {"parsefilter-paragraphs": "paragraphs_plugin:PLUGIN"})
    monkeypatch.syspath_prepend(str(site))
    found = meta("<p>a</p><p>b</p><h1>T</h1>", plugin_includes=FILTERS + "|parsefilter-paragraphs",
                 htmlparsefilter_order="parsefilter-paragraphs headings")
    assert found["paragraphs"] == "2" and found["h1"] == "T"
