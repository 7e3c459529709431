"""PageParser and the parse-html / parse-text plugins on the trap host's hostile pages."""

from __future__ import annotations

import hashlib
import time

import pytest

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.datum import META_REPR_URL
from gossamer.core.metadata import REFRESH_URL
from gossamer.core.records import Content, ParseStatusCode
from gossamer.core.settings import Settings
from gossamer.crawl.parse import PageParser, ParsedPage
from gossamer.plugins import Parser, ParseResult, PluginInfo, PluginRepository, discover
from gossamer.plugins.builtin.parse_charset import choose_charset
from gossamer.plugins.builtin.parse_html import HtmlParser
from gossamer.plugins.builtin.signature_textprofile import TextProfileSignature

HOST = "http://trap.web.test:8080"

MALFORMED = """<html>
<HEAD><title>Malformed page</title>
<meta name=description content=unquoted attributes everywhere>
<body bgcolor=white>
<h1>Malformed <b>page<i> with bad nesting</b></i></h1>
<p>unclosed paragraph <p>another <div><span>spans never closed
<table><tr><td>cell without closing <td>cell 2
<a href=malformed/unquoted.html>unquoted href</a>
<A HREF='malformed/UPPER.html'>upper-case tag, single quotes</A>
<a href="  malformed/spaces.html  ">href with surrounding spaces</a>
<a href="malformed/a%20b.html">percent-encoded space</a>
<a href="malformed/with space.html">raw space in href</a>
<a href="malformed/../malformed/dots.html">dot segments</a>
<a href="/malformed/fragment.html#section-2">with fragment</a>
<a href="#top">fragment only</a>
<a href="//trap.web.test:8080/malformed/protocol-relative.html">protocol-relative</a>
<a href="HTTP://TRAP.WEB.TEST:8080/malformed/MixedCase.html">upper-case scheme and host</a>
<a href="malformed/amp.html?a=1&amp;b=2">&amp;amp; in query</a>
<a href="mailto:nobody@web.test">mailto</a>
<a href="javascript:void(0)">javascript</a>
<a href="tel:+10000000">tel</a>
<a href="data:text/html,hello">data URL</a>
<a href="">empty href</a>
<a>no href at all</a>
<a href="http://unresolvable.invalid/">host that does not resolve</a>
<a href="http://[::1" >broken URL</a>
<!-- <a href="malformed/in-comment.html">link inside a comment: must not be followed</a> -->
<script>var s = '<a href="malformed/in-script.html">not a real link</a>';</script>
<area href="malformed/area.html">
<iframe src="malformed/iframe.html"></iframe>
<a href="malformed/unterminated.html>unterminated attribute
<p>text after the mess &amp; an entity &copy; &#169; &#x00A9; &bogus;
</body></html><p>content after </html>
"""


def settings(**values: object) -> Settings:
    """Default settings with overrides; keys use _ for dots and __ for _."""
    names = [k.replace("__", "\0").replace("_", ".").replace("\0", "_") for k in values]
    return Settings().with_values(list(zip(names, values.values(), strict=True)), "test")


def page(path: str, body: bytes | str, content_type: str = "text/html", score: float = 1.0,
         **metadata: str) -> Content:
    data = body.encode("utf-8") if isinstance(body, str) else body
    meta = {"nutch.crawl.score": str(score), **metadata}
    return Content(HOST + path, HOST + path, data, content_type, [("Content-Type", content_type)], meta)


def parse(content: Content, parser: PageParser | None = None, **values: object) -> ParsedPage:
    parser = parser or PageParser(settings(**values))
    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1_000, 0, 2_592_000, 1.0)
    return parser.parse(content.url, datum, content)


def urls(result: ParsedPage) -> list[str]:
    return [link.to_url for link in result.parse_data.outlinks]


def rows(result: ParsedPage, status: int) -> list[tuple[str, CrawlDatum]]:
    return [(u, d) for u, d in result.crawl_parse if d.status == status]


def test_tag_soup_outlinks_as_found_and_normalized() -> None:
    result = parse(page("/malformed.html", MALFORMED), parse_filter_urls=False)
    assert result.outcome == "success"
    assert result.parse_data.title == "Malformed page"
    assert urls(result) == [
        f"{HOST}/malformed/unquoted.html",
        f"{HOST}/malformed/UPPER.html",
        f"{HOST}/malformed/spaces.html",
        f"{HOST}/malformed/a%20b.html",
        f"{HOST}/malformed/with%20space.html",
        f"{HOST}/malformed/dots.html",
        f"{HOST}/malformed/fragment.html",
        f"{HOST}/malformed/protocol-relative.html",
        f"{HOST}/malformed/MixedCase.html",
        f"{HOST}/malformed/amp.html?a=1&b=2",
        "http://unresolvable.invalid/",
        f"{HOST}/malformed/area.html",
        f"{HOST}/malformed/iframe.html",
    ]
    anchors = {link.to_url: link.anchor for link in result.parse_data.outlinks}
    assert anchors[f"{HOST}/malformed/amp.html?a=1&b=2"] == "&amp; in query"
    assert anchors[f"{HOST}/malformed/area.html"] == ""
    text = result.parse_text.text
    assert text.endswith("host that does not resolve broken URL")  # the unterminated attribute eats the rest
    assert "not a real link" not in text and "must not be followed" not in text
    entities = parse(page("/e.html", "<title> A\n  title </title><p>x &amp; y &copy; &#169; &#x00A9; &bogus;</p>"))
    assert entities.parse_text.text == "A title x & y \u00a9 \u00a9 \u00a9 &bogus;"
    assert entities.parse_data.title == "A title"
    assert result.parse_data.parse_metadata["metatag.description"] == "unquoted"


def test_default_filters_drop_queries_and_self_links() -> None:
    result = parse(page("/malformed.html", MALFORMED))
    found = urls(result)
    assert f"{HOST}/malformed/amp.html?a=1&b=2" not in found  # regex-urlfilter: -[?*!@=]
    assert f"{HOST}/malformed.html" not in found  # "#top" and "" are the page itself
    assert not [u for u in found if "in-comment" in u or "in-script" in u]
    linked = rows(result, CrawlStatus.LINKED)
    assert [u for u, _ in linked] == found
    assert all(d.fetch_interval == 2_592_000 for _, d in linked)
    assert sum(d.score for _, d in linked) == pytest.approx(1.0)  # OPIC: the page's score, shared


def test_base_href_is_honoured() -> None:
    body = '<html><head><base href="/base/target/"><title>Base</title></head>' \
           '<body><a href="x.html">relative</a><a href="/abs.html">absolute path</a></body></html>'
    result = parse(page("/base/page.html", body))
    assert urls(result) == [f"{HOST}/base/target/x.html", f"{HOST}/abs.html"]


def test_charset_only_in_meta_charset() -> None:
    body = ('<!DOCTYPE html><html><head><meta charset="windows-1252"><title>Caf\u00e9 \u2013 windows-1252</title>'
            '</head><body><p>\u201cquoted\u201d \u20ac 100</p></body></html>').encode("cp1252")
    result = parse(page("/charset/windows-1252.html", body))
    assert result.parse_data.title == "Caf\u00e9 \u2013 windows-1252"
    assert "\u201cquoted\u201d \u20ac 100" in result.parse_text.text
    assert result.parse_data.parse_metadata["CharEncodingForConversion"] == "cp1252"


def test_charset_only_in_http_equiv() -> None:
    body = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">'
            '<title>\u65e5\u672c\u8a9e\u306e\u30da\u30fc\u30b8</title></head>'
            '<body><p>\u6771\u4eac\u306e\u5929\u6c17</p></body></html>').encode("shift_jis")
    result = parse(page("/charset/shift_jis.html", body))
    assert result.parse_data.title == "\u65e5\u672c\u8a9e\u306e\u30da\u30fc\u30b8"
    assert "\u6771\u4eac\u306e\u5929\u6c17" in result.parse_text.text


def test_charset_only_in_the_header_wins_over_nothing() -> None:
    body = "<html><head><title>Gr\u00fc\u00dfe aus K\u00f6ln</title></head><body>\u00a1Ol\u00e9!</body></html>"
    result = parse(page("/charset/latin1-header.html", body.encode("latin-1"), "text/html; charset=ISO-8859-1"))
    assert result.parse_data.title == "Gr\u00fc\u00dfe aus K\u00f6ln"


def test_charset_rules_order() -> None:
    utf8 = "<p>na\u00efve</p>".encode()
    assert choose_charset(utf8, "text/html", "windows-1252").source == "utf-8"
    assert choose_charset("<p>na\u00efve</p>".encode("cp1252"), "", "windows-1252").charset == "cp1252"
    assert choose_charset(b"\xef\xbb\xbf<p>x</p>", "text/html; charset=latin1", "cp1252").source == "bom"
    meta = b'<meta charset="utf-8"><p>\xe9</p>'
    assert choose_charset(meta, "text/html; charset=iso-8859-1", "utf-8").source == "header"
    assert choose_charset(b'<meta charset="bogus"><p>\xe9</p>', "", "windows-1252").source == "default"


def test_meta_refresh_becomes_a_redirect() -> None:
    body = '<html><head><meta http-equiv="refresh" content="0; url=/redirect/final.html"></head><body>x</body></html>'
    result = parse(page("/redirect/meta-refresh.html", body))
    target = f"{HOST}/redirect/final.html"
    assert result.parse_data.parse_metadata[REFRESH_URL] == target
    assert result.redirect == target and result.redirect_temp
    linked = dict(rows(result, CrawlStatus.LINKED))
    assert linked[target].metadata[META_REPR_URL] == f"{HOST}/redirect/meta-refresh.html"
    slow = parse(page("/r.html", '<meta http-equiv="refresh" content="10;URL=\'/other.html\'">'))
    assert slow.redirect == f"{HOST}/other.html" and not slow.redirect_temp
    assert META_REPR_URL not in dict(rows(slow, CrawlStatus.LINKED))[slow.redirect].metadata
    assert parse(page("/r.html", '<meta http-equiv="refresh" content="5">')).redirect == ""


def test_robots_noindex_nofollow_none() -> None:
    links = '<a href="/a.html">a</a>'
    noindex = parse(page("/n.html", f'<head><meta name="robots" content="NOINDEX"><title>T</title></head>{links}'))
    assert noindex.outcome == "success" and noindex.parse_text.text == "" and noindex.parse_data.title == ""
    assert urls(noindex) == [f"{HOST}/a.html"]
    assert noindex.parse_data.parse_metadata["robots"] == "NOINDEX"
    nofollow = parse(page("/f.html", f'<meta name="robots" content="index, nofollow"><p>kept</p>{links}'))
    assert urls(nofollow) == [] and "kept" in nofollow.parse_text.text
    none = parse(page("/x.html", f'<meta name="robots" content="none"><p>gone</p>{links}'))
    assert urls(none) == [] and none.parse_text.text == ""
    cached = parse(page("/c.html", '<meta name="robots" content="noarchive"><p>x</p>'))
    assert cached.parse_data.parse_metadata["caching.forbidden"] == "content"


def test_rel_nofollow_empty_links_anchors_and_images() -> None:
    body = ('<a href="/n.html" rel="external NoFollow">n</a><a href="/empty.html"></a>'
            '<a href="/img.html"><img src="/i.png" alt="  picture  of x "></a>'
            f'<a href="/long.html">{"word " * 40}</a><link rel="next" href="/next.html">'
            '<link rel="preload stylesheet" href="/font.woff2"><link rel="Icon" href="/favicon.svg">')
    result = parse(page("/p.html", body), parse_filter_urls=False, db_max_anchor_length=20)
    assert urls(result) == [f"{HOST}/img.html", f"{HOST}/i.png", f"{HOST}/long.html", f"{HOST}/next.html"]
    anchors = [link.anchor for link in result.parse_data.outlinks]
    assert anchors == ["picture of x", "", "word word word word", ""]


def test_ignored_tags_node_names_and_canonical() -> None:
    body = ('<head><link rel="canonical" href="/canon.html#x"></head><img src="/i.html">'
            '<a href="/a.html">a</a><script src="/s.html"></script>')
    result = parse(page("/p.html", body), parser_html_outlinks_ignore__tags="img,script,link",
                   parser_html_outlinks_htmlnode__metadata__name="tag")
    assert urls(result) == [f"{HOST}/a.html"]
    assert result.parse_data.parse_metadata["canonical"] == f"{HOST}/canon.html"
    linked = dict(rows(result, CrawlStatus.LINKED))
    assert linked[f"{HOST}/a.html"].metadata == {"tag": "a"}


def test_max_outlinks_per_page_and_duplicates() -> None:
    body = "".join(f'<a href="/p{i}.html">p{i}</a><a href="/p{i}.html#again">dup</a>' for i in range(150))
    nutch_cap = parse(page("/many.html", body), db_max_outlinks_per_page=100)
    assert urls(nutch_cap) == [f"{HOST}/p{i}.html" for i in range(100)]
    assert len(urls(parse(page("/many.html", body)))) == 150  # Gossamer default: 1000 (Nutch: 100)
    assert len(urls(parse(page("/many.html", body), db_max_outlinks_per_page=-1))) == 150
    capped = parse(page("/many.html", body), db_max_outlinks_per_page=0)
    assert urls(capped) == [] and rows(capped, CrawlStatus.LINKED) == []


def test_ignore_internal_and_external_links() -> None:
    body = '<a href="/in.html">in</a><a href="http://other.web.test/out.html">out</a>'
    internal = parse(page("/p.html", body), db_ignore_internal_links=True)
    assert urls(internal) == ["http://other.web.test/out.html"]
    external = parse(page("/p.html", body), db_ignore_external_links=True)
    assert urls(external) == [f"{HOST}/in.html"]


def test_signatures_md5_and_textprofile() -> None:
    content = page("/s.html", "<title>Sig</title><p>alpha beta beta gamma</p>")
    md5 = dict(rows(parse(content), CrawlStatus.SIGNATURE))[content.url].signature
    assert md5 == hashlib.md5(content.content).digest()
    result = parse(content, db_signature_class="TextProfileSignature")
    profile = dict(rows(result, CrawlStatus.SIGNATURE))[content.url].signature
    expected = TextProfileSignature(Settings()).calculate(content, ParseResult(result.parse_data, result.parse_text))
    assert profile == expected and profile != md5
    assert result.parse_data.content_metadata["nutch.content.digest"] == profile.hex()


def test_parsemeta_to_crawldb_and_content_metadata() -> None:
    body = '<meta name="keywords" content="a, b"><meta name="description" content="About"><p>x</p>'
    result = parse(page("/m.html", body), db_parsemeta_to_crawldb="metatag.keywords")
    meta_rows = rows(result, CrawlStatus.PARSE_META)
    assert meta_rows == [(f"{HOST}/m.html", meta_rows[0][1])]
    assert meta_rows[0][1].metadata == {"metatag.keywords": "a, b"}
    data = result.parse_data
    assert data.parse_metadata["metatag.description"] == "About"
    assert data.content_metadata["Content-Type"] == "text/html" and data.content_metadata["nutch.crawl.score"]


class BoomParser(Parser):
    content_types = ("application/x-boom",)

    def parse(self, content: Content) -> ParseResult:
        raise ValueError("cannot read this")


BOOM = PluginInfo(id="parse-boom", point="Parser", factory=lambda settings: BoomParser(), description="fails")


def test_a_failing_parser_gives_parse_failed_and_never_raises() -> None:
    s = settings(plugin_includes="parse-(html|text|boom)|scoring-opic|urlfilter-regex|urlnormalizer-(pass|regex|basic)")
    parser = PageParser(s, PluginRepository(s, discover()[0] + [(BOOM, "test")]))
    result = parse(page("/b.bin", b"\x00\x01", "application/x-boom"), parser)
    assert result.outcome == "failed" and "cannot read this" in result.failed
    assert result.parse_data.status == ParseStatusCode.FAILED and result.parse_text.text == ""
    failed = rows(result, CrawlStatus.PARSE_FAILED)
    assert len(failed) == 1 and failed[0][1].fetch_time == 1_001  # wins over the fetch_success row
    assert parse(page("/ok.html", "<p>fine</p>"), parser).outcome == "success"


def test_unparsable_types_truncated_content_and_plain_text() -> None:
    pdf = parse(page("/d.png", b"\x89PNG\r\n\x1a\n", "image/png"))
    assert pdf.outcome == "skipped" and "no parser for image/png" in pdf.skipped
    assert [d.status for _, d in pdf.crawl_parse] == [CrawlStatus.SIGNATURE]
    assert pdf.parse_data.status == ParseStatusCode.NOTPARSED
    cut = parse(page("/t.html", "<p>half", **{"http.content.truncated": "true"}))
    assert cut.outcome == "skipped" and "truncated" in cut.skipped
    assert parse(page("/t.html", "<p>half", **{"http.content.truncated": "true"}),
                 parser_skip_truncated=False).outcome == "success"
    text = parse(page("/r.txt", "See https://docs.web.test/a.html. And (http://x.web.test/b).\n", "text/plain"))
    assert text.parse_text.text.startswith("See https://")
    assert urls(text) == ["https://docs.web.test/a.html", "http://x.web.test/b"]


def test_content_type_sniffing() -> None:
    sniffed = parse(page("/unknown", "<!DOCTYPE html><title>Sniffed</title><p>x</p>", ""))
    assert sniffed.parse_data.title == "Sniffed"
    octets = parse(page("/readme.txt", "plain words", "application/octet-stream"))
    assert octets.parse_text.text == "plain words"


def test_hostile_nesting_and_size_are_bounded() -> None:
    deep = ("<div>" * 200_000 + "<p>bottom</p>").encode()
    started = time.monotonic()
    result = HtmlParser(settings()).parse(page("/deep.html", deep))
    assert time.monotonic() - started < 5
    assert result.data.parse_metadata["parse.truncated"] == "depth"
    big = HtmlParser(settings(parser_html_max_bytes=1000)).parse(page("/big.html", "<p>" + "x" * 5000))
    assert big.data.parse_metadata["parse.truncated"] == "size" and len(big.text.text) < 1000


def test_unknown_signature_class_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="db.signature.class"):
        PageParser(settings(db_signature_class="NoSuchSignature"))
