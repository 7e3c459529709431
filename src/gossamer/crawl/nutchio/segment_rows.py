"""Writing one part of a Gossamer segment table from converted records, and the per-part tally.

:class:`TableSink` buffers ``(url, record)`` rows of one segment table (crawl_generate,
crawl_fetch, crawl_parse: :class:`~gossamer.core.CrawlDatum`; parse_data:
:class:`~gossamer.core.ParseData`; parse_text: ``str``) and writes them as one sorted
Parquet part (:class:`~gossamer.engine.SortedPartWriter`: any input order, bounded memory).
:class:`PartTally` is what an import or export task returns: records converted and bad per
table, and sample messages.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from gossamer.core import CrawlDatum, ParseData, Settings
from gossamer.engine import SortedPartWriter
from gossamer.store import CRAWLDB_SCHEMA, SCHEMAS, datums_to_batch, part_name

FLUSH = 2000
DATUM_TABLES = ("crawl_generate", "crawl_fetch", "crawl_parse")


def segment_time_ms(name: str) -> int:
    """The time a ``yyyyMMddHHmmss`` segment name stands for (0 for other names)."""
    try:
        return int(datetime.strptime(name, "%Y%m%d%H%M%S").replace(tzinfo=UTC).timestamp() * 1000)
    except ValueError:
        return 0


@dataclass
class PartTally:
    """Records converted and bad per table (``converted`` / ``bad`` counters keyed by table), samples."""

    converted: Counter[str] = field(default_factory=Counter)
    bad: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    limit: int = 20

    def problem(self, table: str, message: str, lost: int = 1) -> None:
        """Count ``lost`` bad records of ``table`` and keep ``message`` as a sample."""
        self.bad[table] += lost
        if len(self.samples) < self.limit:
            self.samples.append(message)

    def merge(self, other: PartTally) -> None:
        """Add another task's tally."""
        self.converted.update(other.converted)
        self.bad.update(other.bad)
        self.samples.extend(other.samples[:max(0, self.limit - len(self.samples))])


def parse_data_batch(rows: list[tuple[str, ParseData]]) -> pa.RecordBatch:
    """parse_data rows (outlink metadata has no column: it is not kept)."""
    schema = SCHEMAS["parse_data"]
    columns: dict[str, list[Any]] = {
        "url": [url for url, _ in rows],
        "status": [int(data.status) for _, data in rows],
        "status_message": [data.status_message or None for _, data in rows],
        "title": [data.title for _, data in rows],
        "outlinks": [[{"url": link.to_url, "anchor": link.anchor} for link in data.outlinks] for _, data in rows],
        "content_metadata": [list(data.content_metadata.items()) for _, data in rows],
        "parse_metadata": [list(data.parse_metadata.items()) for _, data in rows],
    }
    return pa.RecordBatch.from_arrays([pa.array(columns[f.name], f.type) for f in schema], schema=schema)


def parse_text_batch(rows: list[tuple[str, str]]) -> pa.RecordBatch:
    """parse_text rows."""
    schema = SCHEMAS["parse_text"]
    return pa.RecordBatch.from_arrays([pa.array([u for u, _ in rows], pa.string()),
                                       pa.array([t for _, t in rows], pa.large_string())], schema=schema)


class TableSink:
    """Part ``part`` of segment table ``table`` under ``directory`` (``<staging>/<table>/part-NNNNN.parquet``)."""

    def __init__(self, directory: Path, table: str, part: int, settings: Settings) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.table = table
        schema = CRAWLDB_SCHEMA if table in DATUM_TABLES else SCHEMAS[table]
        self.writer = SortedPartWriter(directory / part_name(part), schema,
                                       memory_bytes=settings.get_int("engine.memory.budget.mb") << 18,
                                       row_group_rows=settings.get_int("store.row.group.rows"),
                                       compression=settings.get_str("store.compression"))
        self.pending: list[tuple[str, Any]] = []

    def add(self, url: str, record: CrawlDatum | ParseData | str) -> None:
        """Buffer one row."""
        self.pending.append((url, record))
        if len(self.pending) >= FLUSH:
            self.flush()

    def flush(self) -> None:
        """Convert the buffered rows to one Arrow batch."""
        if not self.pending:
            return
        if self.table in DATUM_TABLES:
            batch = datums_to_batch(self.pending)
        elif self.table == "parse_data":
            batch = parse_data_batch(self.pending)
        else:
            batch = parse_text_batch(self.pending)
        self.writer.add(batch)
        self.pending = []

    def close(self) -> int:
        """Write the part; rows written."""
        self.flush()
        return self.writer.close()

    def abort(self) -> None:
        """Drop the part."""
        self.pending = []
        self.writer.abort()
