"""Parse limits: a parser that hangs, crashes or eats memory is stopped, the page gets parse_failed, the next parses."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from gossamer.core import Content, CrawlDatum, CrawlStatus, ParseStatusCode, Settings
from gossamer.crawl.parse import PageParser

from .conftest import install_fake_distribution
from .pdf_samples import SAMPLE

HOSTILE_PLUGIN = '''
import os
import time

from gossamer.core import ParseData, ParseStatusCode, ParseText
from gossamer.plugins import Parser, ParseResult, PluginInfo


class Hostile(Parser):
    content_types = ("application/x-sleep", "application/x-crash", "application/x-hog", "application/x-fine")

    def parse(self, content):
        if content.content_type == "application/x-sleep":
            while True:
                time.sleep(0.01)
        if content.content_type == "application/x-crash":
            os._exit(3)
        if content.content_type == "application/x-hog":
            hog = []
            while True:
                hog.append(bytearray(64 * 1024 * 1024))
        return ParseResult(ParseData(ParseStatusCode.SUCCESS, "fine", [], {}, {}), ParseText("fine"))


PLUGIN = PluginInfo(id="parse-hostile", point="Parser", factory=lambda settings: Hostile(), description="test")
'''


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings with a third-party parser (entry point) that hangs, crashes or hogs memory as its type says."""
    site = install_fake_distribution(tmp_path / "site", "hostile-parser", "hostile_parser", HOSTILE_PLUGIN,
                                     {"parse-hostile": "hostile_parser:PLUGIN"})
    monkeypatch.syspath_prepend(str(site))
    return Settings().with_values([("plugin.includes", "parse-(html|text|pdf|hostile)|scoring-opic"),
                                   ("parser.timeout", 1), ("parser.memory.max", 256)], "test")


def doc(path: str, data: bytes, content_type: str) -> Content:
    url = f"http://h.test{path}"
    return Content(url, url, data, content_type)


def parse(parser: PageParser, content: Content):  # noqa: ANN201
    return parser.parse(content.url, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1000, 0, 2592000, 1.0), content)


def test_a_hanging_parser_times_out_and_the_next_page_parses(hostile: Settings) -> None:
    parser = PageParser(hostile)
    try:
        assert parse(parser, doc("/ok", b"data", "application/x-fine")).parse_data.title == "fine"
        started = time.monotonic()
        hung = parse(parser, doc("/hang", b"data", "application/x-sleep"))
        assert time.monotonic() - started < 5
        assert hung.outcome == "failed" and hung.failed.startswith("timeout")
        assert "parser.timeout" in hung.failed and hung.parse_data.status == ParseStatusCode.FAILED
        assert [d.status for _, d in hung.crawl_parse] == [CrawlStatus.SIGNATURE, CrawlStatus.PARSE_FAILED]
        after = parse(parser, doc("/m.pdf", SAMPLE, "application/pdf"))
        assert after.outcome == "success" and after.parse_data.title == "The Gossamer Manual"
        html = parse(parser, doc("/p.html", b"<title>still here</title>", "text/html"))
        assert html.parse_data.title == "still here"
    finally:
        parser.close()


def test_a_crash_or_memory_exhaustion_is_the_page_failure_only(hostile: Settings) -> None:
    # a generous time limit: on a loaded machine, filling 256 MB may take longer than the 1 s of the fixture
    parser = PageParser(hostile.with_values([("parser.timeout", 60)], "test"))
    try:
        crashed = parse(parser, doc("/c", b"data", "application/x-crash"))
        assert crashed.failed == "parser process died (exit status 3)"
        hog = parse(parser, doc("/h", b"data", "application/x-hog"))
        assert hog.outcome == "failed" and "out of memory" in hog.failed and "parser.memory.max" in hog.failed
        assert parse(parser, doc("/ok", b"data", "application/x-fine")).outcome == "success"
    finally:
        parser.close()


def test_size_limits_by_type() -> None:
    s = Settings().with_values([("parser.size.limits", "*=-1,application/pdf=1000,text/*=50")], "test")
    parser = PageParser(s)
    try:
        big = parse(parser, doc("/m.pdf", SAMPLE, "application/pdf"))
        assert big.outcome == "failed"
        assert big.failed == f"too large: {len(SAMPLE)} bytes, parser.size.limits allows 1000 for application/pdf"
        assert parse(parser, doc("/t.txt", b"x" * 60, "text/plain")).failed.startswith("too large")
        assert parse(parser, doc("/t.txt", b"x" * 50, "text/plain")).outcome == "success"
        assert parse(parser, doc("/i.png", b"\x89PNG\r\n\x1a\n" + b"\x00" * 5000, "image/png")).skipped
    finally:
        parser.close()
