"""Importing Nutch segments: a task per segment table part, run by the engine (:mod:`.grouped`).

Nutch 1.x (:func:`import_part`): part *k* of ``crawl_generate``, ``crawl_fetch``,
``crawl_parse``, ``parse_data``, ``parse_text`` becomes part *k* of the Gossamer table of the
same name (records converted with ``gossamer.store.hadoop``'s ``to_core_*``; each part sorted
by URL); part *k* of ``content`` becomes ``content/nutch-NNNNN.warc.gz``
(:mod:`.warc_content`).  Nutch 0.4/0.5 segments are one task each (:mod:`.legacy_import`):
their ArrayFiles are joined by record number.

:func:`import_segments` stages each segment in ``segments/.tmp-<name>``, describes every
table (``_table.json``, ``_SUCCESS``) once all its parts are written and renames the segment
into place, so a failed import leaves no half segment.  A segment already present in the
destination is skipped (and said so).  Segments are written to a local crawl directory.
"""

from __future__ import annotations

import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

from gossamer.core import Settings, sample_limit
from gossamer.crawl.nutchio.grouped import run_grouped
from gossamer.crawl.nutchio.legacy_import import import_legacy_segment
from gossamer.crawl.nutchio.nutch_layout import NutchSegment
from gossamer.crawl.nutchio.segment_rows import DATUM_TABLES, PartTally, TableSink, segment_time_ms
from gossamer.crawl.nutchio.warc_content import ContentWarcWriter
from gossamer.engine import TaskReporter
from gossamer.store import Place, TableDescription, finish_version, part_name
from gossamer.store.hadoop import (
    HadoopFormatError,
    SequenceFileReader,
    to_core_datum,
    to_core_parse_data,
)

WARC_PREFIX = "nutch"
EXPECTED = {
    "crawl_generate": "org.apache.nutch.crawl.CrawlDatum", "crawl_fetch": "org.apache.nutch.crawl.CrawlDatum",
    "crawl_parse": "org.apache.nutch.crawl.CrawlDatum", "content": "org.apache.nutch.protocol.Content",
    "parse_data": "org.apache.nutch.parse.ParseData", "parse_text": "org.apache.nutch.parse.ParseText",
}


def _convert(table: str, record: Any) -> Any:
    if table in DATUM_TABLES:
        return to_core_datum(record)
    if table == "parse_data":
        return to_core_parse_data(record)
    return record  # parse_text: the text


def import_part(segment: str, table: str, file: Place, part: int, staging: Path, settings: Settings,
                reporter: TaskReporter) -> PartTally:
    """Convert one Nutch 1.x data file of ``table`` into part ``part`` under ``staging``; the tally."""
    tally = PartTally(limit=sample_limit(settings))
    name = file.display()
    if table == "content":
        sink: Any = ContentWarcWriter(staging / "content" / f"{WARC_PREFIX}-{part:05d}.warc.gz",
                                      segment_time_ms(segment), segment)
    else:
        sink = TableSink(staging / table, table, part, settings)
    try:
        try:
            reader = SequenceFileReader(file, name=name, lenient=True)
        except (HadoopFormatError, OSError) as exc:
            tally.problem(table, f"cannot open the file: {exc}")
            return tally
        with reader:
            if reader.value_class != EXPECTED[table]:
                tally.problem(table, f"{name}: values of class {EXPECTED[table]}, found {reader.value_class} "
                                     "(file skipped)")
                return tally
            try:
                for url, record in reader:
                    try:
                        converted = _convert(table, record)
                    except (HadoopFormatError, ValueError) as exc:
                        tally.problem(table, f"{name}: {url}: cannot convert the {table} record: {exc}")
                        continue
                    if table == "content":
                        sink.write(converted)
                    else:
                        sink.add(url, converted)
                    tally.converted[table] += 1
            except (HadoopFormatError, OSError) as exc:
                tally.problem(table, f"{exc} (rest of the file skipped)")
            for problem in reader.problems:
                tally.problem(table, str(problem), 0)
            tally.bad[table] += reader.skipped_records
    finally:
        sink.close()
    reporter.report(tally.converted[table])
    return tally


def _stage(segments_dir: Path, segment: NutchSegment) -> Path:
    staging = segments_dir / f".tmp-{segment.name}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    return staging


def _finish(staging: Path, tables: dict[str, int], rows: dict[str, int], final: Path, settings: Settings) -> None:
    """Describe every table of a staged segment and rename the segment into place.

    A table without parts (a 0.x segment without it) gets one empty part; a segment without
    ``crawl_generate`` gets an empty one (a Gossamer segment exists by its fetch list).
    """
    tables.setdefault("crawl_generate", 1)
    for table, parts in tables.items():
        if table == "content":
            continue
        for part in range(parts):
            if not (staging / table / part_name(part)).exists():
                TableSink(staging / table, table, part, settings).close()
        finish_version(staging / table, TableDescription(
            kind=table, parts=parts, partitioner="nutch-import", rows=rows.get(table, 0), job="import-nutch",
            created=int(time.time() * 1000)))
    staging.rename(final)


def _segment_task(kind: str, *call: Any) -> PartTally:
    """One task of :func:`import_segments`: a 1.x table part, or a whole 0.x segment."""
    return import_part(*call) if kind == "1.x" else import_legacy_segment(*call)


def import_segments(segments: list[NutchSegment], segments_dir: Path,
                    settings: Settings) -> tuple[PartTally, list[str], list[str]]:
    """Import ``segments`` into ``segments_dir``; the tally, the names imported and notes (skipped ones).

    Every part of every segment is one call of one task set (grouped, :func:`run_grouped`); the
    segments are then finished (described, renamed into place) one by one.
    """
    tally = PartTally(limit=sample_limit(settings))
    notes: list[str] = []
    segments_dir.mkdir(parents=True, exist_ok=True)
    calls: list[tuple[Any, ...]] = []
    owners: list[str] = []
    staged: dict[str, tuple[Path, dict[str, int]]] = {}
    try:
        for segment in segments:
            if (segments_dir / segment.name).exists() or segment.name in staged:
                notes.append(f"segment {segment.name}: already in {segments_dir}, skipped")
                continue
            staging = _stage(segments_dir, segment)
            if segment.kind == "1.x":
                for table, files in segment.tables.items():
                    for part, file in enumerate(files):
                        calls.append(("1.x", segment.name, table, file, part, staging, settings))
                        owners.append(segment.name)
                tables = {table: len(files) for table, files in segment.tables.items()}
            else:
                calls.append((segment.kind, segment, staging, settings))
                owners.append(segment.name)
                tables = dict.fromkeys(("crawl_generate", "crawl_fetch", "parse_data", "parse_text", "content"), 1)
            staged[segment.name] = (staging, tables)
        rows: dict[str, Counter[str]] = {name: Counter() for name in staged}
        for owner, result in zip(owners, run_grouped(settings, "import-nutch segments", _segment_task, calls),
                                 strict=True):
            tally.merge(result)
            rows[owner].update(result.converted)
        for name, (staging, tables) in staged.items():
            _finish(staging, tables, dict(rows[name]), segments_dir / name, settings)
    except BaseException:
        for staging, _ in staged.values():
            shutil.rmtree(staging, ignore_errors=True)
        raise
    return tally, list(staged), notes
