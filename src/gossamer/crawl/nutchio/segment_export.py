"""Exporting Gossamer segments as Nutch 1.x segments: a task per table part or WARC file.

Per segment (reference §6.3 for the layout and the compression Nutch's jobs use):

=================  ==========================================  =============================
table              Nutch file                                  compression
=================  ==========================================  =============================
crawl_generate     SequenceFile ``part-r-NNNNN`` (fetch order)  none (the generator's)
crawl_fetch        MapFile ``part-r-NNNNN/{data,index}``        RECORD, DefaultCodec
crawl_parse        SequenceFile ``part-r-NNNNN``                RECORD, DefaultCodec
parse_data         MapFile                                     RECORD, DefaultCodec
parse_text         MapFile                                     RECORD, DefaultCodec
content            MapFile, one part per WARC file             RECORD, DefaultCodec
=================  ==========================================  =============================

Part *k* of a Gossamer table becomes ``part-r-k``; MapFile parts are sorted in ``Text``
order (Nutch's ``SegmentReader`` looks a URL up in every part, so the partitioning of a
segment does not matter).  Content comes from the WARC responses (:mod:`.warc_content`); a
WARC file's responses are sorted in memory.  Each table directory gets ``_SUCCESS``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from gossamer.core import Outlink, ParseData, ParseStatusCode, Settings, sample_limit
from gossamer.crawl.nutchio.grouped import run_grouped
from gossamer.crawl.nutchio.segment_rows import DATUM_TABLES, PartTally
from gossamer.crawl.nutchio.table_export import SUCCESS, hadoop_part_name
from gossamer.crawl.nutchio.warc_content import read_contents
from gossamer.engine import TaskReporter
from gossamer.store import Place, TableVersion, batch_to_datums, table_present, warc_files
from gossamer.store.hadoop import (
    NONE,
    RECORD,
    TEXT,
    MapFileWriter,
    SequenceFileWriter,
    from_core_datum,
    from_core_parse_data,
)

DATUM_CLASS = "org.apache.nutch.crawl.CrawlDatum"
VALUE_CLASSES = {"crawl_generate": DATUM_CLASS, "crawl_fetch": DATUM_CLASS, "crawl_parse": DATUM_CLASS,
                 "parse_data": "org.apache.nutch.parse.ParseData", "parse_text": "org.apache.nutch.parse.ParseText",
                 "content": "org.apache.nutch.protocol.Content"}
SEQUENCE_FILES = ("crawl_generate", "crawl_parse")
TABLES = ("crawl_generate", "crawl_fetch", "crawl_parse", "parse_data", "parse_text")


def _parse_data(row: dict[str, Any]) -> ParseData:
    return ParseData(ParseStatusCode(row["status"]), row["title"] or "",
                     [Outlink(link["url"], link["anchor"]) for link in row["outlinks"] or []],
                     dict(row["content_metadata"] or []), dict(row["parse_metadata"] or []),
                     row["status_message"] or "")


def _records(table: str, part: Place) -> list[tuple[str, Any]]:
    with part.open_binary() as stream:
        data = pq.read_table(stream)
    if table not in SEQUENCE_FILES:
        data = data.take(pc.sort_indices(data, [("url", "ascending")]))
    if table in DATUM_TABLES:
        return [(url, from_core_datum(datum)) for url, datum in batch_to_datums(data)]
    rows = data.to_pylist()
    if table == "parse_data":
        return [(row["url"], from_core_parse_data(_parse_data(row))) for row in rows]
    return [(row["url"], row["text"] or "") for row in rows]


def _writer(table: str, target: Path) -> Any:
    compression = NONE if table == "crawl_generate" else RECORD
    if table in SEQUENCE_FILES:
        return SequenceFileWriter(target, TEXT.java_class, VALUE_CLASSES[table], compression=compression)
    return MapFileWriter(target, TEXT.java_class, VALUE_CLASSES[table], compression=compression)


def export_part(segment: str, table: str, source: Place, index: int, out: Path, settings: Settings,
                reporter: TaskReporter) -> PartTally:
    """Write one Gossamer part (or, for ``content``, one WARC file) as Nutch part ``index``; the tally."""
    tally = PartTally(limit=sample_limit(settings))
    if table == "content":
        records = sorted(((c.url, c) for c in read_contents(source.local_path(), segment)),
                         key=lambda pair: pair[0].encode("utf-8"))
    else:
        records = _records(table, source)
    writer = _writer(table, out / table / hadoop_part_name(index))
    try:
        for url, record in records:
            try:
                writer.append(url, record)
            except (ValueError, OverflowError) as exc:
                tally.problem(table, f"{segment}/{table}: {url}: cannot be written as a Nutch record: {exc}")
                continue
            tally.converted[table] += 1
    finally:
        writer.close()
    reporter.report(tally.converted[table])
    return tally


def export_segments(segments: list[Place], out: Path, settings: Settings) -> PartTally:
    """Write every segment of ``segments`` under ``out/<name>/``; the tally."""
    tally = PartTally(limit=sample_limit(settings))
    calls: list[tuple[Any, ...]] = []
    markers: list[Path] = []
    for segment in segments:
        target = out / segment.name
        for table in TABLES:
            if not table_present(segment / table):
                continue
            with TableVersion(segment / table) as version:
                parts = version.part_paths()
            (target / table).mkdir(parents=True, exist_ok=True)
            calls += [(segment.name, table, part, i, target, settings) for i, part in enumerate(parts)]
            markers.append(target / table / SUCCESS)
        files = warc_files(segment / "content")
        if files:
            (target / "content").mkdir(parents=True, exist_ok=True)
            calls += [(segment.name, "content", file, i, target, settings) for i, file in enumerate(files)]
            markers.append(target / "content" / SUCCESS)
    for result in run_grouped(settings, "export-nutch segments", export_part, calls):
        tally.merge(result)
    for marker in markers:
        marker.write_bytes(b"")
    return tally
