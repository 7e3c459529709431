"""Nutch 0.4 and 0.5 segments (seed ``000``) as Gossamer segments: one task per segment.

A 0.x segment is a set of ArrayFiles whose record *n* all describe the same page, so the
task reads them side by side, joined by record number (a record missing from one file —
skipped as unreadable — only loses that file's part of the page).  The mapping:

==================  ======================  =================================================
0.x table           Gossamer table          how
==================  ======================  =================================================
fetchlist           crawl_generate          each ``FetchListEntry`` with ``fetch`` set: its
                                            ``Page`` as a ``db_unfetched`` datum — nextFetch
                                            → fetch_time, retries, fetchInterval days × 86400
                                            → seconds, score, MD5 → signature (none when all
                                            zero); anchors are not kept
fetcher             crawl_fetch             ``FetcherOutput`` status 0 retry → fetch_retry
                                            (retries + 1), 1 success → fetch_success,
                                            2 not found → fetch_gone, 4 can't parse →
                                            fetch_success (parse_data failed), other →
                                            fetch_retry; fetchDate → fetch_time, MD5 →
                                            signature, ``_0x_status_`` keeps the raw byte
fetcher (0.4)       parse_data              title and outlinks of ``FetcherOutput`` v3
fetcher_content,    content (WARC)          body; 0.5's url, base, content type and
content (0.5)                               properties (as headers); ``_fst_`` from the
                                            fetch status
fetcher_text,       parse_text              the text
parse_text (0.5)
parse_data (0.5)    parse_data              title, outlinks, properties → content metadata
==================  ======================  =================================================
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gossamer.core import CrawlDatum, CrawlStatus, Outlink, ParseData, ParseStatusCode, Settings, sample_limit
from gossamer.crawl.nutchio.nutch_layout import NutchSegment
from gossamer.crawl.nutchio.segment_rows import PartTally, TableSink, segment_time_ms
from gossamer.crawl.nutchio.warc_content import ContentWarcWriter
from gossamer.engine import TaskReporter
from gossamer.store import Place
from gossamer.store.hadoop import HadoopFormatError, NutchContent, SequenceFileReader

FETCH_STATUS = {0: CrawlStatus.FETCH_RETRY, 1: CrawlStatus.FETCH_SUCCESS, 2: CrawlStatus.FETCH_GONE,
                4: CrawlStatus.FETCH_SUCCESS}
"""FetcherOutput status bytes (0.4 and 0.5) → fetch statuses."""
CANT_PARSE = 4
SOURCE_TABLES = {"fetchlist": "crawl_generate", "fetcher": "crawl_fetch", "fetcher_content": "content",
                 "content": "content", "fetcher_text": "parse_text", "parse_text": "parse_text",
                 "parse_data": "parse_data"}


def _records(table: str, files: list[Place], tally: PartTally) -> Iterator[tuple[int, str, Any]]:
    """``(record number, table, value)`` of a 0.x ArrayFile (its ``data`` file), bad records tallied."""
    for file in files:
        try:
            reader = SequenceFileReader(file, lenient=True)
        except (HadoopFormatError, OSError) as exc:
            tally.problem(SOURCE_TABLES[table], f"cannot open the file: {exc}")
            continue
        with reader:
            try:
                for number, value in reader:
                    yield int(number), table, value
            except (HadoopFormatError, OSError) as exc:
                tally.problem(SOURCE_TABLES[table], f"{exc} (rest of the file skipped)")
            for problem in reader.problems:
                tally.problem(SOURCE_TABLES[table], str(problem), 0)
            tally.bad[SOURCE_TABLES[table]] += reader.skipped_records


def _joined(segment: NutchSegment, tally: PartTally) -> Iterator[dict[str, Any]]:
    """The segment's records grouped by record number (ArrayFiles are sorted by number)."""
    streams = [_records(table, files, tally) for table, files in segment.tables.items()]
    current: int | None = None
    group: dict[str, Any] = {}
    for number, table, value in heapq.merge(*streams, key=lambda item: item[0]):
        if number != current and group:
            yield group
            group = {}
        current = number
        group.setdefault(table, value)
    if group:
        yield group


def _page_datum(page: Any, status: int) -> CrawlDatum:
    signature = page.md5 if page.md5 and any(page.md5) else None
    return CrawlDatum(status=status, fetch_time=page.next_fetch, retries=max(0, min(page.retries, 127)),
                      fetch_interval=page.fetch_interval * 86400, score=page.score, signature=signature)


def _text(value: Any) -> str:
    data = getattr(value, "data", value)
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return data or ""


class _Sinks:
    def __init__(self, staging: Path, segment: str, settings: Settings) -> None:
        self.tables = {table: TableSink(staging / table, table, 0, settings)
                       for table in ("crawl_generate", "crawl_fetch", "parse_data", "parse_text")}
        self.content = ContentWarcWriter(staging / "content" / "nutch-00000.warc.gz", segment_time_ms(segment),
                                         segment)

    def close(self) -> None:
        for sink in self.tables.values():
            sink.close()
        self.content.close()


def _page(group: dict[str, Any], segment: str, sinks: _Sinks, tally: PartTally) -> None:
    """Write what one record number of a 0.x segment says about one page."""
    entry, output = group.get("fetchlist"), group.get("fetcher")
    page = output.entry.page if output is not None else entry.page if entry is not None else None
    url = page.url if page is not None else getattr(group.get("content"), "url", None)
    if url is None:
        tally.problem("content", f"segment {segment}: record without a fetchlist or fetcher entry (no URL)")
        return
    if entry is not None and entry.fetch:
        sinks.tables["crawl_generate"].add(url, _page_datum(entry.page, int(CrawlStatus.DB_UNFETCHED)))
        tally.converted["crawl_generate"] += 1
    fetch_status = None
    if output is not None:
        fetch_status = int(FETCH_STATUS.get(output.status, CrawlStatus.FETCH_RETRY))
        datum = _page_datum(output.entry.page, fetch_status)
        datum.fetch_time, datum.signature = output.fetch_date, output.md5 if any(output.md5) else None
        datum.retries += 1 if fetch_status == CrawlStatus.FETCH_RETRY else 0
        datum.metadata["_0x_status_"] = str(output.status)
        sinks.tables["crawl_fetch"].add(url, datum)
        tally.converted["crawl_fetch"] += 1
        if output.version <= 3 and fetch_status == CrawlStatus.FETCH_SUCCESS:  # 0.4: the parse is in here
            failed = output.status == CANT_PARSE
            sinks.tables["parse_data"].add(url, ParseData(
                ParseStatusCode.FAILED if failed else ParseStatusCode.SUCCESS, output.title,
                [Outlink(link.url, link.anchor) for link in output.outlinks]))
            tally.converted["parse_data"] += 1
    fst = {"_fst_": [str(fetch_status if fetch_status is not None else int(CrawlStatus.FETCH_SUCCESS))],
           "nutch.segment.name": [segment]}
    if "fetcher_content" in group:
        body = group["fetcher_content"].data or b""
        sinks.content.write(NutchContent(url, url, body, "", fst))
        tally.converted["content"] += 1
    elif "content" in group:
        old = group["content"]
        meta = {name: [value] for name, value in old.metadata.items()} | fst
        sinks.content.write(NutchContent(old.url, old.base, old.content or b"", old.content_type, meta))
        tally.converted["content"] += 1
    for table in ("fetcher_text", "parse_text"):
        if table in group:
            sinks.tables["parse_text"].add(url, _text(group[table]))
            tally.converted["parse_text"] += 1
    if "parse_data" in group:
        data = group["parse_data"]
        failed = output is not None and output.status == CANT_PARSE
        sinks.tables["parse_data"].add(url, ParseData(
            ParseStatusCode.FAILED if failed else ParseStatusCode.SUCCESS, data.title,
            [Outlink(link.url, link.anchor) for link in data.outlinks], dict(data.metadata)))
        tally.converted["parse_data"] += 1


def import_legacy_segment(segment: NutchSegment, staging: Path, settings: Settings,
                          reporter: TaskReporter) -> PartTally:
    """Convert one 0.4/0.5 segment into the Gossamer tables under ``staging`` (part 0 each); the tally."""
    tally = PartTally(limit=sample_limit(settings))
    sinks = _Sinks(staging, segment.name, settings)
    try:
        for group in _joined(segment, tally):
            _page(group, segment.name, sinks, tally)
    finally:
        sinks.close()
    reporter.report(sum(tally.converted.values()))
    return tally
