"""parse-opening / index-opening: the page's opening text, extracted, indexed and searched."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from selectolax.lexbor import LexborHTMLParser

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.records import Content, ParseData, ParseStatusCode, ParseText
from gossamer.core.settings import Settings
from gossamer.crawl.parse import PageParser
from gossamer.plugins import IndexInput, ParseResult
from gossamer.plugins.builtin.htmlfilter_opening import (
    OPENING_KEY,
    OpeningIndexingFilter,
    distinct_words,
    first_words,
    opening_text,
)
from tests.web_fixtures import crawl_site

URL = "http://site.test/page.html"
PROSE = "The kettle boils water quickly and switches itself off when the water is hot."


def opening(html: str, max_words: int = 80, min_words: int = 5, description: str = "") -> str:
    return opening_text(LexborHTMLParser(html), max_words, min_words, description)


def test_main_region_prose_without_navigation_headings_or_code() -> None:
    html = (f"<body><nav><p>Home page of the whole site with many links here</p></nav>"
            f"<div class='sidebar'><p>Other pages you might want to read today</p></div>"
            f"<main><h1>Electric kettles and how they work today</h1><pre>kettle.boil(water, fast=True) now</pre>"
            f"<p>{PROSE}</p><footer><p>Copyright notice of the site and all of its pages</p></footer></main></body>")
    assert opening(html) == PROSE


def test_body_is_the_region_without_main_and_labels_are_skipped() -> None:
    html = f"<body><div>Menu</div><div><span>Read</span> more</div><div>{PROSE}</div><p>Second part of it.</p></body>"
    assert opening(html) == PROSE  # "Second part of it." has four words: a label


def test_text_before_and_after_a_nested_block_are_runs_of_their_own() -> None:
    html = ("<main><div>Hash table based implementation of the <code>Map</code> interface."
            "<p>This implementation provides constant time operations.</p>and a tail of enough words here</div></main>")
    assert opening(html) == ("Hash table based implementation of the Map interface. This implementation provides "
                             "constant time operations. and a tail of enough words here")


def test_word_limit_and_meta_description_first_unless_repeated() -> None:
    words = " ".join(f"word{i}" for i in range(200))
    assert opening(f"<main><p>{words}</p></main>", max_words=10).split() == [f"word{i}" for i in range(10)]
    assert opening(f"<main><p>{PROSE}</p></main>", description=" A  kettle, described.") == \
        f"A kettle, described. {PROSE}"
    assert opening(f"<main><p>{PROSE}</p></main>", description="`The` kettle boils water") == PROSE


def test_nothing_for_a_page_without_prose_and_a_huge_page_stays_bounded() -> None:
    assert opening("<body><ul><li>a</li><li>b</li></ul></body>") == ""
    assert opening("") == ""
    deep = "<div>" * 5000 + "tiny" + "</div>" * 5000
    assert opening(deep) == ""
    many = "<main>" + "<div><span>x</span></div>" * 50_000 + f"<p>{PROSE}</p></main>"
    assert opening(many) == ""  # past the element budget: what was found by then


def _page(body: str, content_type: str = "text/html") -> dict[str, str]:
    settings = Settings()
    content = Content(URL, URL, body.encode(), content_type, [("Content-Type", content_type)], {})
    page = PageParser(settings).parse(URL, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1_000, 0, 2_592_000, 1.0), content)
    assert page.outcome == "success", page.failed
    return page.parse_data.parse_metadata


def test_parse_filter_is_on_by_default_and_respects_noindex() -> None:
    assert _page(f"<html><body><main><p>{PROSE}</p></main></body></html>")[OPENING_KEY] == PROSE
    described = f"<html><head><meta name=Description content='A kettle.'></head><body><p>{PROSE}</p></body></html>"
    assert _page(described)[OPENING_KEY] == f"A kettle. {PROSE}"  # the meta description parse-html read
    noindex = f"<html><head><meta name=robots content=noindex></head><body><p>{PROSE}</p></body></html>"
    assert OPENING_KEY not in _page(noindex)


def _index(meta: dict[str, str], text: str, content_type: str) -> dict[str, object]:
    data = ParseData(ParseStatusCode.SUCCESS, "t", [], {"Content-Type": content_type}, meta)
    page = IndexInput(URL, None, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1), ParseResult(data, ParseText(text)), [], "s")
    out = OpeningIndexingFilter(Settings().with_values([("opening.max.words", 3)], "test")).filter({}, page)
    assert out is not None
    return out


def test_index_filter_takes_the_key_or_the_start_of_a_document_that_is_not_html() -> None:
    assert _index({OPENING_KEY: "kept as it is"}, "ignored", "text/html") == {"opening": "kept as it is"}
    assert _index({}, "nav nav nav prose", "text/html") == {}  # HTML without prose: no opening
    assert _index({}, "A report on kettles and tea", "application/pdf") == {"opening": "A report on"}
    assert _index({OPENING_KEY: "Tea, tea and TEA: the tea book"}, "", "text/html") == {"opening": "Tea, and the book"}


def test_distinct_words_keep_the_first_occurrence() -> None:
    assert distinct_words("Class A: the item. Class B: the item!  «Item»") == "Class A: the item. B:"
    assert distinct_words("") == "" and distinct_words("... ...") == "..."
    assert distinct_words("os.path.join os.path OS.PATH.JOIN") == "os.path.join os.path"


SITE_NAV = "<nav><p>Guides: descaling limescale kettles, brewing, cleaning, buying advice</p></nav>"


def test_search_prefers_the_page_whose_opening_has_the_words(cli, tmp_path: Path) -> None:
    """Two pages hold 'descaling limescale': the one whose opening states it ranks first."""
    lead = (f"<html><head><title>Care</title></head><body>{SITE_NAV}<main><p>Descaling removes limescale "
            f"from kettles with vinegar or citric acid.</p><p>{PROSE}</p></main></body></html>").encode()
    other = (f"<html><head><title>Buying</title></head><body>{SITE_NAV}<main><p>Buying a kettle is about "
             f"capacity and power and price.</p><p>{PROSE}</p></main></body></html>").encode()
    html = {"Content-Type": "text/html; charset=utf-8"}
    home = b"<html><body><a href='/buying.html'>buy</a> <a href='/care.html'>care</a></body></html>"
    crawl_dir = tmp_path / "crawl"
    base = crawl_site(crawl_dir, {"/": (home, html), "/care.html": (lead, html), "/buying.html": (other, html)})
    care = f"{base}/care.html"
    answer = cli("search", "-d", crawl_dir, "descaling limescale", "--json", "--explain")
    assert answer.code == 0, answer.err
    hits = json.loads(answer.out)["hits"]
    assert [h["url"] for h in hits][0] == care and len(hits) == 2
    assert "opening" in json.dumps(hits[0])
    only = cli("search", "-d", crawl_dir, "opening:descaling", "--json")
    assert [h["url"] for h in json.loads(only.out)["hits"]] == [care]


@given(st.lists(st.sampled_from(["a", "bb", " ", "\n", "\t", "\u00a0", "\u2003", "\u3000", "\x1c", "é", "x" * 40]),
                max_size=600),
       st.integers(min_value=-3, max_value=90))
def test_first_words_are_the_split_texts_first_words(pieces: list[str], count: int) -> None:
    text = "".join(pieces)
    assert first_words(text, count) == text.split()[:count]


def test_first_words_of_a_long_text_split_only_its_start() -> None:
    text = "word " * 2_000_000
    assert first_words(text, 80) == ["word"] * 80
    assert first_words("  one   two  ", 80) == ["one", "two"]
