"""parse-pdf: text, title, metadata and link annotations; encrypted and broken files; a PDF fetched as octets."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.core import Content, CrawlDatum, CrawlStatus, Settings
from gossamer.crawl.parse import PageParser
from gossamer.plugins.builtin import parse_pdf
from gossamer.plugins.builtin.parse_pdf import PdfParser
from gossamer.store.table import TableVersion
from tests.conftest import write_lines
from tests.fetch_server import ThreadedSite

from .pdf_samples import SAMPLE, encrypt, make_pdf

URL = "http://docs.web.test/files/manual.pdf"


def pdf(data: bytes, url: str = URL, content_type: str = "application/pdf") -> Content:
    return Content(url, url, data, content_type)


def test_text_title_metadata_and_links() -> None:
    result = PdfParser(Settings()).parse(pdf(SAMPLE))
    data = result.data
    assert data.title == "The Gossamer Manual"
    assert result.text.text == ("Gossamer manual\nCrawling the loopback web\nSee the project page\n\n"
                                "Second page about parsing")
    assert [(o.to_url, o.anchor) for o in data.outlinks] == [
        ("http://docs.web.test/project.html", "See the project page"),
        ("http://docs.web.test/relative/page.html", "")]
    assert data.parse_metadata == {"pdf.pages": "2", "author": "Ada Lovelace", "subject": "crawling",
                                   "keywords": "crawler, search", "created": "2024-01-31T12:00:00+01:00"}


def test_title_falls_back_to_the_first_line() -> None:
    result = PdfParser(Settings()).parse(pdf(make_pdf([["", "First words here", "more"]])))
    assert result.data.title == "First words here" and result.data.parse_metadata == {"pdf.pages": "1"}


@pytest.mark.parametrize(("data", "reason"), [
    (encrypt(SAMPLE, "secret"), "encrypted: the document needs a password"),
    (SAMPLE[:len(SAMPLE) // 2], "broken PDF"),
    (SAMPLE[:40], "broken PDF"),
    (b"%PDF-1.7\n" + b"\x00garbage" * 50, "broken PDF"),
])
def test_encrypted_and_broken_files_fail_with_a_reason(data: bytes, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        PdfParser(Settings()).parse(pdf(data))
    parser = PageParser(Settings())
    try:
        page = parser.parse(URL, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1000), pdf(data))
    finally:
        parser.close()
    assert page.outcome == "failed" and reason in page.failed and "Traceback" not in page.failed
    assert page.crawl_parse[-1][1].status == CrawlStatus.PARSE_FAILED


def test_a_word_hyphenated_at_a_line_end_keeps_its_hyphen() -> None:
    result = PdfParser(Settings()).parse(pdf(make_pdf([["a certificate that is self-", "signed by its owner"]])))
    assert result.text.text == "a certificate that is self-signed by its owner"


def _damaged(seed: int) -> bytes:
    """SAMPLE cut, with bytes overwritten, or with a stretch removed or repeated (seeded)."""
    rng = random.Random(seed)
    data = bytearray(SAMPLE)
    kind = seed % 4
    if kind == 0:
        return bytes(data[:rng.randrange(len(data))])
    if kind == 1:
        for _ in range(rng.randint(1, 40)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    start = rng.randrange(len(data))
    end = min(len(data), start + rng.randint(1, 400))
    return bytes(data[:start] + data[end:]) if kind == 2 else bytes(data[:end] + data[start:])


def test_damaged_files_parse_or_fail_with_a_reason() -> None:
    parser = PdfParser(Settings())
    outcomes = {"parsed": 0, "failed": 0}
    for seed in range(400):
        try:
            result = parser.parse(pdf(_damaged(seed)))
        except ValueError as exc:
            assert str(exc).startswith(("broken PDF", "encrypted")), (seed, exc)
            outcomes["failed"] += 1
        else:
            assert isinstance(result.text.text, str) and "\r" not in result.text.text
            outcomes["parsed"] += 1
    assert outcomes["parsed"] and outcomes["failed"]  # both kinds occur: PDFium repairs what it can


def test_an_owner_password_only_file_opens() -> None:
    result = PdfParser(Settings()).parse(pdf(encrypt(SAMPLE, "")))
    assert result.data.title == "The Gossamer Manual" and "Second page" in result.text.text


def test_detected_type_replaces_a_generic_declared_one() -> None:
    parser = PageParser(Settings())
    try:
        page = parser.parse(URL, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1000),
                            pdf(SAMPLE, "http://docs.web.test/download?id=7", "application/octet-stream"))
    finally:
        parser.close()
    assert page.outcome == "success" and page.parse_data.title == "The Gossamer Manual"
    meta = page.parse_data.content_metadata
    assert meta["Content-Type"] == "application/pdf" and meta["Content-Type-Declared"] == "application/octet-stream"


@pytest.mark.slow
def test_a_pdf_served_as_octets_is_fetched_and_parsed(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"", headers={"Content-Type": "text/plain"})
        site.route("/doc", body=SAMPLE, headers={"Content-Type": "application/octet-stream"})
        crawldb, segments = tmp_path / "crawl" / "crawldb", tmp_path / "crawl" / "segments"
        options = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0",
                   "-D", "http.filter.ipaddress.include=loopback")
        assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", [site.url("/doc")]), *options).code == 0
        assert cli("generate", crawldb, segments, *options).code == 0
        segment = next(p for p in segments.iterdir() if p.name.isdigit())
        assert cli("fetch", segment, *options).code == 0
    assert cli("parse", segment, *options).code == 0
    with TableVersion(segment / "parse_data") as version:
        rows = [row for batch in version.iter_batches() for row in batch.to_pylist()]
    assert len(rows) == 1 and rows[0]["title"] == "The Gossamer Manual"
    with TableVersion(segment / "parse_text") as version:
        texts = [row for batch in version.iter_batches() for row in batch.to_pylist()]
    assert "Crawling the loopback web" in str(texts[0])


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(st.text(alphabet=st.sampled_from(["\r", "\n", "\ufffe", "\x02", "\x00", "a", "\u00e9", " ", "-"]), max_size=40))
def test_clean_is_the_line_end_and_hyphen_rule(text: str) -> None:
    assert parse_pdf._clean(text) == parse_pdf._LINE_ENDS.sub("\n", text).translate(parse_pdf._NOT_TEXT)
