"""Importing Nutch segments: a task per segment table part, run by :func:`~gossamer.engine.run_tasks`.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gossamer.core import Settings, sample_limit
from gossamer.crawl.nutchio.legacy_import import import_legacy_segment
from gossamer.crawl.nutchio.nutch_layout import NutchSegment
from gossamer.crawl.nutchio.segment_rows import DATUM_TABLES, PartTally, TableSink, segment_time_ms
from gossamer.crawl.nutchio.warc_content import ContentWarcWriter
from gossamer.engine import TaskReporter, run_tasks
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


def import_segments(segments: list[NutchSegment], segments_dir: Path, settings: Settings,
                    progress: Callable[[int, Any], None] | None = None) -> tuple[PartTally, list[str], list[str]]:
    """Import ``segments`` into ``segments_dir``; the tally, the names imported and notes (skipped ones)."""
    tally = PartTally(limit=sample_limit(settings))
    imported: list[str] = []
    notes: list[str] = []
    segments_dir.mkdir(parents=True, exist_ok=True)
    for segment in segments:
        final = segments_dir / segment.name
        if final.exists():
            notes.append(f"segment {segment.name}: already in {segments_dir}, skipped")
            continue
        staging = _stage(segments_dir, segment)
        try:
            if segment.kind == "1.x":
                calls = [(segment.name, table, file, part, staging, settings)
                         for table, files in segment.tables.items() for part, file in enumerate(files)]
                results = run_tasks(settings, f"import-nutch {segment.name}", import_part, calls,
                                    progress=progress)
                tables = {table: len(files) for table, files in segment.tables.items()}
            else:
                results = run_tasks(settings, f"import-nutch {segment.name}", import_legacy_segment,
                                    [(segment, staging, settings)], progress=progress)
                tables = {table: 1 for table in ("crawl_generate", "crawl_fetch", "parse_data", "parse_text")}
                tables["content"] = 1
            rows: dict[str, int] = {}
            for result in results:
                tally.merge(result)
                for table, count in result.converted.items():
                    rows[table] = rows.get(table, 0) + count
            _finish(staging, tables, rows, final, settings)
            imported.append(segment.name)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return tally, imported, notes
