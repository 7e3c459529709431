"""Content type detection (declared type, URL extension, magic) and the choice of parsers per type."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

from gossamer.core import (
    Content,
    CrawlDatum,
    CrawlStatus,
    ParseData,
    ParseStatusCode,
    ParseText,
    Settings,
    detect_content_type,
)
from gossamer.core.mime import DOCX, ODS, ODT, PPTX, XLSX, check_size_limits, check_type_map, magic_type
from gossamer.crawl.parse import PageParser
from gossamer.crawl.parse.parsers import ParserSelector
from gossamer.plugins import Parser, ParseResult, PluginInfo, PluginRepository
from gossamer.plugins.registry import discover

from .pdf_samples import SAMPLE


def ooxml(part: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("_rels/.rels", "<Relationships/>")
        archive.writestr(f"{part}/document.xml", "<doc/>")
    return out.getvalue()


def odf(mime: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(zipfile.ZipInfo("mimetype"), mime)  # stored, first: as ODF requires
        archive.writestr("content.xml", "<office:document-content/>", zipfile.ZIP_DEFLATED)
    return out.getvalue()


RSS = b'<?xml version="1.0"?>\n<!-- feed --><rss version="2.0"><channel><title>t</title></channel></rss>'
ATOM = b'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>'
RDF = b'<?xml version="1.0"?><rdf:RDF xmlns="http://purl.org/rss/1.0/" xmlns:rdf="x"><channel/></rdf:RDF>'
HTML = b"\xef\xbb\xbf  <!DOCTYPE html><html><title>x</title></html>"

# (declared type, URL, bytes, expected type)
CASES = [
    ("application/octet-stream", "http://h.test/f", SAMPLE, "application/pdf"),
    ("text/plain", "http://h.test/f.txt", SAMPLE, "application/pdf"),
    ("", "http://h.test/doc", SAMPLE, "application/pdf"),
    ("application/pdf", "http://h.test/f.pdf", b"<html><body>Not found</body></html>", "text/html"),
    ("application/pdf", "http://h.test/f.pdf", b"plain error message", "text/plain"),
    ("application/x-pdf", "http://h.test/f", SAMPLE, "application/pdf"),
    ("application/octet-stream", "http://h.test/a.docx", ooxml("word"), DOCX),
    ("application/zip", "http://h.test/a", ooxml("xl"), XLSX),
    ("application/octet-stream", "http://h.test/a", ooxml("ppt"), PPTX),
    (DOCX, "http://h.test/a.docx", ooxml("word")[:200], DOCX),  # a cut archive still refines a ZIP
    ("application/octet-stream", "http://h.test/a", odf(ODT), ODT),
    ("application/zip", "http://h.test/a.ods", odf(ODS), ODS),
    ("application/octet-stream", "http://h.test/a.rtf", b"{\\rtf1\\ansi hello}", "application/rtf"),
    ("text/plain", "http://h.test/s.xml.gz", gzip.compress(b"<urlset/>", mtime=0), "application/gzip"),
    ("text/xml", "http://h.test/feed", RSS, "application/rss+xml"),
    ("text/html", "http://h.test/feed", ATOM, "application/atom+xml"),
    ("application/xml", "http://h.test/rdf", RDF, "application/rss+xml"),
    ("application/rss+xml", "http://h.test/r", b"<?xml version='1.0'?><unknown/>", "application/rss+xml"),
    ("text/xml; charset=utf-8", "http://h.test/x", b"<?xml version='1.0'?><data/>", "application/xml"),
    ("", "http://h.test/x", HTML, "text/html"),
    ("application/octet-stream", "http://h.test/x", b"<?xml version='1.0'?><html xmlns='x'/>",
     "application/xhtml+xml"),
    ("text/html; charset=utf-8", "http://h.test/x", b"Hello <b>world</b>", "text/html"),
    ("text/csv", "http://h.test/x.csv", b"a,b\n1,2\n", "text/csv"),
    ("application/octet-stream", "http://h.test/readme.txt", b"just words", "text/plain"),
    ("application/octet-stream", "http://h.test/x", b"\x89PNG\r\n\x1a\n\x00\x00", "image/png"),
    ("text/html", "http://h.test/x", b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
    ("", "http://h.test/x", b"GIF89a\x01\x00", "image/gif"),
    ("", "http://h.test/x", b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"),
    ("", "http://h.test/x.bin", b"\x00\x01\x02\x03", "application/octet-stream"),
    ("", "http://h.test/page.html?q=a.pdf", b"\x00\x01", "text/html"),
    ("application/json", "http://h.test/x", b'{"a": 1}', "application/json"),
]


@pytest.mark.parametrize(("declared", "url", "data", "expected"), CASES)
def test_detection_table(declared: str, url: str, data: bytes, expected: str) -> None:
    assert detect_content_type(declared, url, data) == expected


def test_without_magic_the_declared_type_then_the_extension_decide() -> None:
    assert detect_content_type("application/octet-stream", "http://h.test/f", SAMPLE, magic=False) == \
        "application/octet-stream"
    assert detect_content_type("application/octet-stream", "http://h.test/f.pdf", b"", magic=False) == \
        "application/pdf"
    assert detect_content_type("text/plain", "http://h.test/f.pdf", SAMPLE, magic=False) == "text/plain"
    assert magic_type(b"") is None


def test_map_and_limit_settings_are_checked() -> None:
    check_type_map(["text/html=parse-html", "*=parse-text"])
    check_size_limits(["*=100", "application/pdf=-1"])
    with pytest.raises(ValueError, match="TYPE=VALUE"):
        check_type_map(["text/html"])
    with pytest.raises(ValueError, match="whole number"):
        check_size_limits(["*=lots"])
    with pytest.raises(ValueError, match="parser.size.limits"):
        Settings().with_values([("parser.size.limits", "*=lots")], "test")


class Named(Parser):
    """A test parser that succeeds, or fails as told."""

    def __init__(self, name: str, types: tuple[str, ...], fails: bool = False) -> None:
        self.name, self.content_types, self.fails = name, types, fails

    def parse(self, content: Content) -> ParseResult:
        if self.fails:
            raise ValueError(f"{self.name} cannot")
        return ParseResult(ParseData(ParseStatusCode.SUCCESS, self.name, [], {}, {}), ParseText(self.name))


def test_candidates_follow_the_map_then_the_declared_types() -> None:
    parsers = [("p-any", Named("any", ("*",))), ("p-text", Named("text", ("text/*",))),
               ("p-csv", Named("csv", ("text/csv",))), ("p-xml", Named("xml", ("text/xml",)))]
    selector = ParserSelector(parsers, ["text/csv=p-any missing p-text", "text/*=p-xml"])
    assert [i for i, _ in selector.candidates("text/csv")] == ["p-any", "p-text", "p-csv"]
    assert [i for i, _ in selector.candidates("text/plain")] == ["p-xml", "p-text", "p-any"]
    assert [i for i, _ in selector.candidates("application/xml")] == ["p-xml", "p-any"]  # text/xml is canonical xml
    assert [i for i, _ in ParserSelector(parsers[2:]).candidates("image/png")] == []
    limits = ParserSelector([], size_limits=["*=10", "text/*=20", "text/csv=-1"])
    assert (limits.size_limit("image/png"), limits.size_limit("text/html"), limits.size_limit("text/csv")) == \
        (10, 20, -1)


def _datum() -> CrawlDatum:
    return CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1000, 0, 2592000, 1.0)


def page(data: bytes, content_type: str, url: str = "http://h.test/doc") -> Content:
    return Content(url, url, data, content_type)


def test_the_first_parser_that_succeeds_wins_and_failures_are_listed() -> None:
    plugins = [(PluginInfo("parse-first", "Parser", lambda s: Named("first", ("application/x-t",), fails=True),
                           "fails"), "test"),
               (PluginInfo("parse-second", "Parser", lambda s: Named("second", ("application/x-t",)), "works"),
                "test")]
    s = Settings().with_values([("plugin.includes", "parse-(first|second|html)|scoring-opic"),
                                ("parser.inprocess", "parse-first,parse-second,parse-html")], "test")
    parser = PageParser(s, PluginRepository(s, discover()[0] + plugins))
    done = parser.parse("http://h.test/doc", _datum(), page(b"\x00data", "application/x-t"))
    assert done.outcome == "success" and done.parse_data.title == "second"
    s2 = Settings().with_values([("plugin.includes", "parse-first|scoring-opic"), ("parser.inprocess", "parse-first"),
                                 ("parse.plugin.map", "application/x-t=parse-first")], "test")
    failed = PageParser(s2, PluginRepository(s2, discover()[0] + plugins)).parse(
        "http://h.test/doc", _datum(), page(b"\x00data", "application/x-t"))
    assert failed.outcome == "failed" and failed.failed == "ValueError: first cannot"
    both = PageParser(s, PluginRepository(s, discover()[0] + plugins[:1] + [
        (PluginInfo("parse-second", "Parser", lambda s: Named("second", ("application/x-t",), True), "x"), "t")]))
    result = both.parse("http://h.test/doc", _datum(), page(b"\x00data", "application/x-t"))
    assert result.failed == "parse-first: ValueError: first cannot; parse-second: ValueError: second cannot"
