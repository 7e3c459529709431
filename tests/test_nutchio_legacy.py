"""import-nutch of Nutch 0.4 and 0.5 segments laid out as seed 000 describes them (ArrayFiles, SequenceFile v1)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.dataset as ds
import pytest

from gossamer.core import CrawlStatus
from gossamer.store import batch_to_datums
from gossamer.store.hadoop import ArrayFileWriter
from gossamer.store.hadoop.nutch_legacy import (
    FETCH_LIST_ENTRY_CLASS,
    FETCHER_CONTENT_CLASS,
    FETCHER_OUTPUT_CLASS,
    FETCHER_TEXT_CLASS,
    Compressed,
    FetcherOutput,
    FetchListEntry,
    LegacyOutlink,
    LegacyPage,
)
from gossamer.store.hadoop.nutch_legacy05 import (
    LEGACY_CONTENT_CLASS,
    LEGACY_PARSE_DATA_CLASS,
    LEGACY_PARSE_TEXT_CLASS,
    LegacyContent,
    LegacyParseData,
)

T = 1_700_000_000_000
MD5 = bytes(range(16))
PAGES = [("http://a.example/", 1), ("http://b.example/missing", 2), ("http://c.example/later", 0),
         ("http://d.example/bad.pdf", 4)]


def _write(directory: Path, value_class: str, values: list[object]) -> None:
    with ArrayFileWriter(directory, value_class, version=1) as writer:
        for value in values:
            writer.append(value)


def _outputs(version: int) -> list[FetcherOutput]:
    outputs = []
    for i, (url, status) in enumerate(PAGES):
        entry = FetchListEntry(True, LegacyPage(url, MD5, T, 1, 30, 2, 1.5, 1.0), ["anchor"])
        outlinks = [LegacyOutlink("http://a.example/next", "next")] if version == 3 and status == 1 else []
        outputs.append(FetcherOutput(entry, MD5 if status == 1 else bytes(16), status, T + i, f"Title {i}",
                                     outlinks, version))
    return outputs


def build_04(segment: Path) -> None:
    outputs = _outputs(3)
    _write(segment / "fetchlist", FETCH_LIST_ENTRY_CLASS, [o.entry for o in outputs])
    _write(segment / "fetcher", FETCHER_OUTPUT_CLASS, outputs)
    _write(segment / "fetcher_content", FETCHER_CONTENT_CLASS,
           [Compressed(f"<html>page {i} quince</html>".encode()) for i in range(len(PAGES))])
    _write(segment / "fetcher_text", FETCHER_TEXT_CLASS, [Compressed(f"page {i} quince".encode())
                                                          for i in range(len(PAGES))])


def build_05(segment: Path) -> None:
    outputs = _outputs(4)
    _write(segment / "fetchlist", FETCH_LIST_ENTRY_CLASS, [o.entry for o in outputs])
    _write(segment / "fetcher", FETCHER_OUTPUT_CLASS, outputs)
    _write(segment / "content", LEGACY_CONTENT_CLASS,
           [LegacyContent(url, url, f"<html>page {i} quince</html>".encode(), "text/html", {"Server": "old"})
            for i, (url, _) in enumerate(PAGES)])
    _write(segment / "parse_text", LEGACY_PARSE_TEXT_CLASS, [Compressed(f"page {i} quince".encode())
                                                             for i in range(len(PAGES))])
    _write(segment / "parse_data", LEGACY_PARSE_DATA_CLASS,
           [LegacyParseData(f"Title {i}", [LegacyOutlink("http://a.example/next", "next")], {"lang": "en"})
            for i in range(len(PAGES))])


def _rows(directory: Path) -> dict[str, object]:
    table = ds.dataset(directory, format="parquet").to_table()
    return dict(batch_to_datums(table)) if "status" in table.column_names and "fetch_time" in table.column_names \
        else {row["url"]: row for row in table.to_pylist()}


@pytest.mark.parametrize("version", ["0.4", "0.5"])
def test_legacy_segment_imports(cli, tmp_path: Path, version: str) -> None:
    name = "20050101120000"
    segment = tmp_path / "nutch" / "segments" / name
    (build_04 if version == "0.4" else build_05)(segment)
    crawl = tmp_path / "crawl"
    result = cli("import-nutch", tmp_path / "nutch", "-d", crawl)
    assert result.code == 0, result.err
    assert "crawl_fetch: 4 record(s) imported, 0 could not be" in result.out
    assert "content: 4 record(s) imported" in result.out and "parse_text: 4 record(s) imported" in result.out
    imported = crawl / "segments" / name
    generate = _rows(imported / "crawl_generate")
    page = generate["http://a.example/"]
    assert (page.status, page.fetch_time, page.retries, page.fetch_interval, page.score, page.signature) == (
        CrawlStatus.DB_UNFETCHED, T, 1, 30 * 86_400, 1.5, MD5)
    fetch = _rows(imported / "crawl_fetch")
    assert {url: datum.status for url, datum in fetch.items()} == {
        "http://a.example/": CrawlStatus.FETCH_SUCCESS, "http://b.example/missing": CrawlStatus.FETCH_GONE,
        "http://c.example/later": CrawlStatus.FETCH_RETRY, "http://d.example/bad.pdf": CrawlStatus.FETCH_SUCCESS}
    assert fetch["http://c.example/later"].retries == 2 and fetch["http://a.example/"].fetch_time == T
    assert fetch["http://a.example/"].signature == MD5 and fetch["http://b.example/missing"].signature is None
    parse = _rows(imported / "parse_data")
    assert parse["http://a.example/"]["title"] == "Title 0"
    assert parse["http://a.example/"]["outlinks"] == [{"url": "http://a.example/next", "anchor": "next"}]
    assert parse["http://d.example/bad.pdf"]["status"] == 2  # can't parse
    texts = _rows(imported / "parse_text")
    assert texts["http://b.example/missing"]["text"] == "page 1 quince"
    got = cli("readseg", "-get", imported, "http://a.example/")
    assert got.code == 0 and "page 0 quince" in got.out
