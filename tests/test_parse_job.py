"""The standalone ``parse`` job over a segment written like the fetcher writes it (WARC + crawl_fetch)."""

from __future__ import annotations

import gzip
import zlib
from datetime import UTC, datetime
from pathlib import Path

import brotli
import pyarrow as pa
import pytest

from gossamer.core import CrawlDatum, CrawlStatus, now_millis
from gossamer.core.http import HttpExchange
from gossamer.core.settings import Settings
from gossamer.crawl.fetch.warc import WarcFileWriter
from gossamer.crawl.parse import PageParser, ParseOutputs, finish_parse_tables, parse_segment
from gossamer.crawl.parse.warc_input import decode_body
from gossamer.store.crawldb_schema import batch_to_datums, datums_to_batch
from gossamer.store.segments import SegmentWriter, partition_key_function
from gossamer.store.table import TableVersion

from .conftest import install_fake_distribution, write_lines

SITE = "http://docs.web.test"
SEGMENT = "20261122000000"
INCLUDES = "protocol-http|urlfilter-regex|parse-(html|text|boom)|scoring-opic|urlnormalizer-(pass|regex|basic)"

BOOM_PLUGIN = '''
from gossamer.plugins import Parser, PluginInfo


class Boom(Parser):
    content_types = ("application/x-boom",)

    def parse(self, content):
        raise ValueError("boom format not understood")


PLUGIN = PluginInfo(id="parse-boom", point="Parser", factory=lambda settings: Boom(), description="fails")
'''

INDEX = """<html><head><title>Docs index</title></head><body>
<a href="a.html">Page A</a> <a href="/b.html">Page B</a> <a href="http://other.web.test/x.html">elsewhere</a>
</body></html>"""


def exchange(url: str, body: bytes, content_type: str = "text/html", status: int = 200,
             headers: list[tuple[str, str]] | None = None) -> HttpExchange:
    response = [("Content-Type", content_type), ("Content-Length", str(len(body))), *(headers or [])]
    return HttpExchange(url, "GET", "/" + url.split("/", 3)[-1], "1.1", [("User-Agent", "test")], status,
                        "OK" if status == 200 else "Not Found", response, body, datetime.now(UTC))


def make_segment(root: Path, files: list[list[tuple[HttpExchange, int]]]) -> Path:
    """A fetched segment: crawl_fetch datums and one WARC file per list of (exchange, fetch status)."""
    writer = SegmentWriter(root / "crawl" / "segments", SEGMENT)
    now = now_millis()
    rows = [(ex.url, CrawlDatum(status, now, 0, 2_592_000, 1.0, metadata={"Content-Type": ex.response_headers[0][1]}))
            for group in files for ex, status in group]
    table = pa.Table.from_batches([datums_to_batch(rows)])
    writer.write_table("crawl_fetch", table, 1, partition_key_function("byHost"), 1024, "zstd", "crawl_fetch")
    segment = writer.commit()
    for index, group in enumerate(files):
        with WarcFileWriter(segment / "content", prefix=f"{SEGMENT}-{index:05d}") as warc:
            for ex, _ in group:
                warc.write_exchange(ex)
    return segment


def standard_pages() -> list[tuple[HttpExchange, int]]:
    ok = CrawlStatus.FETCH_SUCCESS
    return [
        (exchange(f"{SITE}/index.html", gzip.compress(INDEX.encode()), headers=[("Content-Encoding", "gzip")]), ok),
        (exchange(f"{SITE}/a.html", b"<title>A</title><meta http-equiv=refresh content='0; url=b.html'>"), ok),
        (exchange(f"{SITE}/notes.txt", b"Read https://other.web.test/n.html today.", "text/plain"), ok),
        (exchange(f"{SITE}/broken.boom", b"\x00garbage", "application/x-boom"), ok),
        (exchange(f"{SITE}/manual.pdf", b"%PDF-1.4 ...", "application/pdf"), ok),
        (exchange(f"{SITE}/missing.html", b"<p>not here</p>", status=404), CrawlStatus.FETCH_GONE),
    ]


@pytest.fixture
def boom(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings with a third-party parser plugin that fails on every document."""
    site = install_fake_distribution(tmp_path / "site", "boom-parser", "boom_parser", BOOM_PLUGIN,
                                     {"parse-boom": "boom_parser:PLUGIN"})
    monkeypatch.syspath_prepend(str(site))
    return Settings().with_values([("plugin.includes", INCLUDES), ("parser.processes", 1)], "test")


def table_rows(directory: Path) -> list[dict]:
    with TableVersion(directory) as version:
        return [row for batch in version.iter_batches() for row in batch.to_pylist()]


def test_parse_job_writes_the_three_tables(tmp_path: Path, boom: Settings) -> None:
    segment = make_segment(tmp_path, [standard_pages()])
    seen: list[tuple[str, int, int]] = []
    report = parse_segment(segment, boom, lambda phase, done, total: seen.append((phase, done, total)))
    assert report.pages == 5 and report.processes == 1
    assert report.by_status == {"success": 3, "failed": 1, "skipped": 1}
    assert report.not_parsed == {"not fetch_success": 1}
    assert report.skipped == {"no parser for application/pdf": 1}
    assert report.errors == [f"{SITE}/broken.boom: ValueError: boom format not understood"]
    assert seen and seen[-1] == ("pages", 5, 5)
    assert not (segment / ".parse-staging").exists()

    data = {row["url"]: row for row in table_rows(segment / "parse_data")}
    assert list(data) == sorted(data)
    index = data[f"{SITE}/index.html"]
    assert index["title"] == "Docs index" and index["status"] == 1
    assert index["outlinks"] == [{"url": f"{SITE}/a.html", "anchor": "Page A"},
                                 {"url": f"{SITE}/b.html", "anchor": "Page B"},
                                 {"url": "http://other.web.test/x.html", "anchor": "elsewhere"}]
    meta = dict(index["content_metadata"])
    assert meta["Content-Encoding"] == "gzip" and meta["nutch.segment.name"] == SEGMENT
    assert meta["nutch.crawl.score"] == "1.0" and len(meta["nutch.content.digest"]) == 32
    assert data[f"{SITE}/broken.boom"]["status"] == 2
    assert data[f"{SITE}/manual.pdf"]["status"] == 0
    assert dict(data[f"{SITE}/a.html"]["parse_metadata"])["refresh.url"] == f"{SITE}/b.html"
    texts = {row["url"]: row["text"] for row in table_rows(segment / "parse_text")}
    assert texts[f"{SITE}/index.html"] == "Docs index Page A Page B elsewhere"
    assert texts[f"{SITE}/notes.txt"] == "Read https://other.web.test/n.html today."

    with TableVersion(segment / "crawl_parse") as version:
        crawl = [pair for batch in version.iter_batches() for pair in batch_to_datums(batch)]
    statuses = {(url, datum.status_name) for url, datum in crawl}
    assert (f"{SITE}/index.html", "signature") in statuses
    assert (f"{SITE}/b.html", "linked") in statuses and ("https://other.web.test/n.html", "linked") in statuses
    assert (f"{SITE}/broken.boom", "parse_failed") in statuses
    assert not [url for url, _ in crawl if url.endswith("missing.html")]
    linked = [d.score for url, d in crawl if d.status == CrawlStatus.LINKED and url.endswith(("a.html", "x.html"))]
    assert linked == pytest.approx([1 / 3, 1 / 3])


def test_parse_then_updatedb(cli, tmp_path: Path, boom: Settings) -> None:
    segment = make_segment(tmp_path, [standard_pages()])
    crawldb = tmp_path / "crawl" / "crawldb"
    seeds = [ex.url for ex, _ in standard_pages()]
    assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", seeds)).code == 0
    parse_segment(segment, boom)
    assert cli("updatedb", crawldb, segment).code == 0

    def status(url: str) -> str:
        out = cli("readdb", crawldb, "-url", url).out
        return next(line for line in out.splitlines() if line.startswith("Status:"))

    assert status(f"{SITE}/index.html") == "Status: 2 (db_fetched)"
    assert status(f"{SITE}/broken.boom") == "Status: 9 (db_parse_failed)"
    assert status(f"{SITE}/b.html") == "Status: 1 (db_unfetched)"
    assert status("http://other.web.test/x.html") == "Status: 1 (db_unfetched)"


def test_cli_summary_and_refusal(cli, tmp_path: Path) -> None:
    segment = make_segment(tmp_path, [standard_pages()])
    first = cli("parse", segment, "-processes", "1", "-noFilter")
    assert first.code == 0, first.err
    assert "ParseSegment: segment 20261122000000: 5 pages" in first.out
    assert "failed" in first.out and "not parsed: not fetch_success 1" in first.out
    again = cli("parse", segment)
    assert again.code == 2 and "already parsed" in again.err
    assert cli("parse", tmp_path / "nowhere").code == 2


def test_several_processes_and_unreadable_files(tmp_path: Path) -> None:
    ok = CrawlStatus.FETCH_SUCCESS
    groups = [[(exchange(f"{SITE}/p{g}-{i}.html", f"<a href='/t{i}.html'>t</a>".encode()), ok) for i in range(20)]
              for g in range(2)]
    segment = make_segment(tmp_path, groups)
    (segment / "content" / "zz-broken.warc.gz").write_bytes(b"\x1f\x8b\x08garbage")
    settings = Settings().with_values([("parser.processes", 3)], "test")
    report = parse_segment(segment, settings)
    assert report.processes == 3 and report.pages == 40
    assert report.by_status == {"success": 40} and report.not_parsed == {"unreadable WARC file": 1}
    assert report.errors[0].startswith("zz-broken.warc.gz: ")
    with TableVersion(segment / "parse_data") as version:
        assert version.parts == 3 and version.num_rows() == 40
        assert version.description.job == "parse"


def test_refusals_and_leftovers(tmp_path: Path) -> None:
    segment = make_segment(tmp_path, [standard_pages()[:2]])
    (segment / "parse_data").mkdir()  # an install that crashed before crawl_parse arrived
    report = parse_segment(segment, Settings().with_values([("parser.processes", 1)], "test"))
    assert report.removed == ["parse_data"] and report.pages == 2
    with pytest.raises(ValueError, match="already parsed"):
        parse_segment(segment, Settings())
    bare = make_segment(tmp_path / "other", [])
    with pytest.raises(ValueError, match="no content"):
        parse_segment(bare, Settings())


def test_outputs_fill_missing_parts_and_never_overwrite(tmp_path: Path) -> None:
    settings = Settings()
    parser = PageParser(settings)
    segment = tmp_path / SEGMENT
    segment.mkdir()
    staging = segment / ".fetch-staging"
    outputs = ParseOutputs(staging, 1, settings)
    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, 5, 0, 2_592_000, 1.0)
    from gossamer.core.records import Content

    for i in range(3):
        url = f"{SITE}/z{2 - i}.html"
        outputs.add(parser.parse(url, datum, Content(url, url, b"<a href='/q.html'>q</a>", "text/html")))
    assert outputs.close() == {"parse_data": 3, "parse_text": 3, "crawl_parse": 6}
    finish_parse_tables(staging, segment, 3)
    with TableVersion(segment / "parse_data") as version:
        assert version.parts == 3 and version.num_rows() == 3
        urls = [row["url"] for row in version.iter_part(1)]
        assert urls == sorted(urls)
        meta = dict(next(version.iter_part(1)).to_pylist()[0]["content_metadata"])
        assert meta["nutch.segment.name"] == SEGMENT
    with pytest.raises(ValueError, match="already parsed"):
        finish_parse_tables(staging, segment, 3)


def test_decode_body_caps_and_partial_input() -> None:
    text = b"<p>" + b"hello " * 1000
    assert decode_body(gzip.compress(text), "gzip", 1 << 20) == (text, False, "")
    assert decode_body(gzip.compress(text), "gzip", 100) == (text[:100], True, "")
    body, cut, error = decode_body(gzip.compress(text)[:60], "x-gzip", 1 << 20)
    assert not cut and not error and text.startswith(body)
    assert decode_body(zlib.compress(text), "deflate", 1 << 20)[0] == text
    raw = zlib.compressobj(wbits=-zlib.MAX_WBITS)
    assert decode_body(raw.compress(text) + raw.flush(), "deflate", 1 << 20)[0] == text
    assert decode_body(brotli.compress(text), "br", 1 << 20)[0] == text
    assert decode_body(b"not gzip at all", "gzip", 100)[2].startswith("gzip:")
    assert decode_body(text, "identity", 10) == (text[:10], True, "")
