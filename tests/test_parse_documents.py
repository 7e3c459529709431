"""The document parsers: parse-ooxml, parse-odf, parse-rtf, parse-feed, parse-xml — rules and hostile files.

Every sample is built by :mod:`tests.docsamples`; each hostile file must be refused with a
``ValueError`` naming the reason, within a second and without unpacking or expanding it.
"""

from __future__ import annotations

import json
import resource
import time
from collections.abc import Callable

import pytest

from gossamer.core import Content, CrawlDatum, CrawlStatus, ParseStatusCode, load_settings, now_millis
from gossamer.crawl.parse import PageParser
from gossamer.plugins.api import Parser
from gossamer.plugins.builtin.parse_feed import FeedParser, iso_date
from gossamer.plugins.builtin.parse_odf import OdfParser
from gossamer.plugins.builtin.parse_ooxml import OoxmlParser
from gossamer.plugins.builtin.parse_rtf import RtfParser
from gossamer.plugins.builtin.parse_xml import XmlParser
from gossamer.plugins.support.docparse import absolute_link
from gossamer.plugins.support.safexml import XmlLimits, xml_tree
from tests import docsamples as d

BASE = "http://docs.web.test/files/doc"
LINKS = [("http://example.org/a", "Link A"), ("/local.html", "Local page"), ("#top", "fragment")]
SETTINGS = load_settings()
BOMB = 128 << 20
"""Unpacked size of the zip bombs: over the default parser.zip.max.bytes (100 MiB)."""


def parse(parser: type[Parser], data: bytes, url: str = BASE, content_type: str = "") -> tuple[str, str, list, dict]:
    result = parser(SETTINGS).parse(Content(url, url, data, content_type))  # type: ignore[call-arg]
    assert result.data.status == ParseStatusCode.SUCCESS
    return result.text.text, result.data.title, result.data.outlinks, result.data.parse_metadata


EXPECTED_LINKS = [("http://example.org/a", "Link A"), ("http://docs.web.test/local.html", "Local page")]


@pytest.mark.parametrize(("parser", "build", "fmt"), [
    (OoxmlParser, lambda: d.docx(["Analytical engine", "Second paragraph"], LINKS, "Notes"), "docx"),
    (OoxmlParser, lambda: d.pptx(["Analytical engine", "Second paragraph"], LINKS, "Notes"), "pptx"),
    (OdfParser, lambda: d.odf(d.ODT, ["Analytical engine", "Second paragraph"], LINKS, "Notes"), d.ODT),
    (OdfParser, lambda: d.odf(d.ODP, ["Analytical engine", "Second paragraph"], LINKS, "Notes"), d.ODP),
    (OdfParser, lambda: d.odf(d.ODS, ["Analytical engine", "Second paragraph"], LINKS, "Notes"), d.ODS),
    (RtfParser, lambda: d.rtf(["Analytical engine", "Second paragraph"], LINKS, "Notes"), ""),
])
def test_text_title_links_and_properties(parser: type[Parser], build: Callable[[], bytes], fmt: str) -> None:
    text, title, outlinks, meta = parse(parser, build())
    assert title == "Notes"
    lines = text.splitlines()
    assert lines[0] == "Analytical engine" and "Second paragraph" in lines  # a line per paragraph
    assert "Link A" in text  # anchors are text too
    assert [(o.to_url, o.anchor) for o in outlinks] == EXPECTED_LINKS  # absolute; no fragment-only link
    assert meta["dc:title"] == "Notes"
    if parser is OoxmlParser:
        assert meta["ooxml.format"] == fmt and meta["dc:creator"] == "Ada Lovelace"
        assert meta["meta:keyword"] == "engines, notes" and meta["dcterms:modified"] == "2024-05-01T10:00:00Z"
    elif parser is OdfParser:
        assert meta["odf.mimetype"] == fmt and meta["meta:keyword"] == "alpha, beta"
    else:
        assert meta["dc:creator"] == "Ada"


def test_xlsx_rows_cells_sheet_names_and_hyperlinks() -> None:
    data = d.xlsx([["Name", "Rank"], ["Lovelace", "first"]], [("http://example.org/ada", "Ada's page")],
                  sheet="People")
    text, title, outlinks, meta = parse(OoxmlParser, data)
    assert text.splitlines() == ["People", "Name\tRank", "Lovelace\tfirst"]
    assert [(o.to_url, o.anchor) for o in outlinks] == [("http://example.org/ada", "Ada's page")]
    assert title == "A workbook" and meta["ooxml.format"] == "xlsx"


def test_ooxml_format_is_read_from_the_package_not_the_content_type() -> None:
    text, *_ = parse(OoxmlParser, d.pptx(["Served as octet-stream"]), content_type="application/octet-stream")
    assert text == "Served as octet-stream"


def test_rtf_code_pages_unicode_escapes_and_skipped_destinations() -> None:
    data = (b"{\\rtf1\\ansi\\ansicpg1251{\\fonttbl{\\f0 Arial;}}{\\colortbl;\\red0;}{\\*\\generator Pad;}"
            b"\\'cf\\'f0\\'e8\\'e2\\'e5\\'f2 \\uc1\\u8364? \\u-3913? {\\pict 0123abcd}tab\\tab end\\par"
            b"\\bin3 {}{ after\\line next\\par")
    text, title, outlinks, _ = parse(RtfParser, data)
    assert text.splitlines() == ["\u041f\u0440\u0438\u0432\u0435\u0442 \u20ac \uf0b7 tab end", "after", "next"]
    assert title == "" and outlinks == []
    assert "Arial" not in text and "Pad" not in text and "0123" not in text


def test_feeds_items_become_outlinks_with_titles_and_dates() -> None:
    items = [("http://docs.web.test/news/1", "First & best", "Wed, 01 May 2024 10:00:00 +0200"),
             ("/news/2", "Second", "not a date")]
    text, title, outlinks, meta = parse(FeedParser, d.rss(items, "Site news"))
    assert title == "Site news" and "About First & best" in text
    assert [(o.to_url, o.anchor) for o in outlinks] == [("http://docs.web.test/news/1", "First & best"),
                                                          ("http://docs.web.test/news/2", "Second")]
    assert dict(outlinks[0].metadata) == {"feed.published": "2024-05-01T08:00:00Z"}
    assert dict(outlinks[1].metadata) == {"feed.published": "not a date"}  # kept as written
    assert meta["feed.format"] == "rss"
    assert json.loads(meta["feed.items"])[0] == {"url": "http://docs.web.test/news/1", "title": "First & best",
                                                  "published": "2024-05-01T08:00:00Z"}
    _, title, outlinks, meta = parse(FeedParser, d.atom([("http://e.org/x", "X", "2024-05-01T12:00:00+02:00")]))
    assert title == "An Atom feed" and meta["feed.format"] == "atom"
    both = "2024-05-01T10:00:00Z"
    assert dict(outlinks[0].metadata) == {"feed.published": both, "feed.updated": both}


def test_rss_1_0_and_broken_entities_and_guid_permalinks() -> None:
    rdf = (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" '
           b'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>RDF &nbsp;news</title></channel>'
           b'<item><title>R1 & co</title><link>http://e.org/r1</link><dc:date>2024-01-02T03:04:05Z</dc:date></item>'
           b"</rdf:RDF>")
    _, title, outlinks, meta = parse(FeedParser, rdf)
    assert title == "RDF news" and meta["feed.format"] == "rss1.0"
    assert [(o.to_url, o.anchor, o.metadata) for o in outlinks] == [
        ("http://e.org/r1", "R1 & co", (("feed.published", "2024-01-02T03:04:05Z"),))]
    guid = b"<rss><channel><title>G</title><item><title>g</title><guid>http://e.org/g</guid></item></channel></rss>"
    assert [o.to_url for o in parse(FeedParser, guid)[2]] == ["http://e.org/g"]


def test_generic_xml_text_title_root_and_feeds_served_as_xml() -> None:
    text, title, outlinks, meta = parse(XmlParser, b"<doc xmlns='urn:x'><title>T</title><p>Hello</p></doc>")
    assert (text, title, outlinks) == ("T\nHello", "T", [])
    assert meta == {"xml.root": "doc", "xml.namespace": "urn:x"}
    _, title, outlinks, meta = parse(XmlParser, d.rss([("http://e.org/1", "One", "")]), content_type="text/xml")
    assert title == "A feed" and [o.to_url for o in outlinks] == ["http://e.org/1"] and meta["feed.format"] == "rss"


def test_a_doctype_without_declarations_is_accepted_and_never_fetched() -> None:
    data = (b'<?xml version="1.0"?><!DOCTYPE rss SYSTEM "http://127.0.0.1:9/never.dtd">'
            b"<rss><channel><title>Old</title></channel></rss>")
    assert parse(FeedParser, data)[1] == "Old"


def test_absolute_link_rules() -> None:
    assert absolute_link("http://h/a/b", "c") == "http://h/a/c"
    assert absolute_link("http://h/a/b", " #x ") is None
    assert absolute_link("http://h/a/b", "javascript:go()") is None
    assert absolute_link("http://h/a/b", "mailto:x@h") == "mailto:x@h"  # the URL filters decide
    assert iso_date("Tue, 10 Jun 2003 04:00:00 GMT") == "2003-06-10T04:00:00Z"


# --- hostile and broken files -------------------------------------------------------------------

HOSTILE: list[tuple[str, type[Parser], Callable[[], bytes], str]] = [
    ("docx zip bomb", OoxmlParser, lambda: d.zip_bomb_docx(BOMB), "zip bomb"),
    ("docx zip bomb, lying header", OoxmlParser, lambda: d.zip_bomb_docx(BOMB, honest=False), "corrupt"),
    ("docx nested XML", OoxmlParser, lambda: d.ooxml_with("word/document.xml", d.nested_xml()), "deeply nested"),
    ("docx billion laughs", OoxmlParser, lambda: d.ooxml_with("word/document.xml", d.billion_laughs()), "entity"),
    ("odt nested XML", OdfParser, lambda: d.zip_of({"content.xml": d.nested_xml()}), "deeply nested"),
    ("odt encrypted", OdfParser, lambda: d.odf(d.ODT, ["secret"], encrypted=True), "encrypted"),
    ("ooxml encrypted (OLE2)", OoxmlParser, lambda: bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 512, "encrypted"),
    ("docx truncated", OoxmlParser, lambda: d.docx(["some text"] * 50)[:900], "not a zip file or truncated"),
    ("not a zip", OdfParser, lambda: b"plain text, no zip", "not a zip file"),
    ("too many members", OdfParser, lambda: d.zip_of({f"m{i}": b"" for i in range(10_001)}), "members"),
    ("rtf nested groups", RtfParser, lambda: d.nested_rtf(), "deeply nested"),
    ("not rtf", RtfParser, lambda: b"<html>", "not an RTF document"),
    ("xml nested", XmlParser, lambda: d.nested_xml(), "deeply nested"),
    ("xml billion laughs", XmlParser, d.billion_laughs, "entity"),
    ("xml external entity", XmlParser,
     lambda: b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', "entity"),
    ("feed billion laughs", FeedParser, d.billion_laughs, "entity"),
    ("feed broken", FeedParser, lambda: b"<rss><channel><title>x</chan", "malformed XML"),
    ("not a feed", FeedParser, lambda: b"<html/>", "not an RSS or Atom feed"),
]


@pytest.mark.parametrize(("parser", "build", "reason"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_hostile_and_broken_files_fail_fast_with_a_reason(parser: type[Parser], build: Callable[[], bytes],
                                                          reason: str) -> None:
    data = build()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with pytest.raises(ValueError, match=reason):
        parser(SETTINGS).parse(Content(BASE, BASE, data))  # type: ignore[call-arg]
    assert time.perf_counter() - started < 1.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB: no unpacking/expansion


def test_the_limits_are_settings() -> None:
    tight = load_settings(overrides=["parser.xml.max.elements=3", "parser.zip.max.bytes=100"])
    with pytest.raises(ValueError, match="too many elements"):
        XmlParser(tight).parse(Content(BASE, BASE, b"<a><b/><c/><d/></a>"))
    with pytest.raises(ValueError, match="zip bomb"):
        OoxmlParser(tight).parse(Content(BASE, BASE, d.docx(["x" * 200])))
    assert xml_tree(b"<a><b/></a>", XmlLimits(max_depth=2), "t").find("b") is not None


def test_the_parse_job_records_parse_failed_with_the_reason() -> None:
    page = PageParser(SETTINGS)
    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, now_millis())
    bomb = Content(BASE, BASE, d.zip_bomb_docx(BOMB), d.DOCX)
    parsed = page.parse(BASE, datum, bomb)
    assert parsed.outcome == "failed" and "zip bomb" in parsed.failed
    assert parsed.crawl_parse[-1][1].status == CrawlStatus.PARSE_FAILED
    assert parsed.parse_data.status == ParseStatusCode.FAILED and "zip bomb" in parsed.parse_data.status_message
    good = page.parse(BASE, datum, Content(BASE, BASE, d.odf(d.ODT, ["fine"]), d.ODT))
    assert good.outcome == "success" and good.parse_text.text == "fine"
