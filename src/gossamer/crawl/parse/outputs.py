"""Writing the parse tables of a segment: one part per writer process, installed together at the end.

:class:`ParseOutputs` writes part ``k`` of parse_data, parse_text and crawl_parse
under ``<staging>/<table>/`` with :class:`~gossamer.engine.sorted_part.SortedPartWriter`
(rows arrive in any order; each part is sorted by URL on close, in bounded memory; full buffers
are sorted and spilled by a thread of each writer, so a fetch loop parsing inline goes on meanwhile).
Pages are buffered as Python rows and converted to Arrow every :data:`FLUSH_PAGES`
pages.  :func:`finish_parse_tables` fills in parts nobody wrote, describes each
table (``_table.json``, ``_SUCCESS``) and renames the three tables into the segment,
crawl_parse last: a segment counts as parsed once crawl_parse is there.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from gossamer.core import Settings
from gossamer.crawl.parse.page import ParsedPage
from gossamer.crawl.parse.page_buffer import PageBuffer
from gossamer.engine import SortedPartWriter, SpillBudget
from gossamer.store import (
    SCHEMAS,
    PartWriter,
    Place,
    TableDescription,
    finish_version,
    make_dir,
    parquet_rows,
    part_name,
)

FLUSH_PAGES = 1000
"""Pages buffered as Python rows before one conversion to Arrow."""
TABLES = tuple(SCHEMAS)
"""``parse_data``, ``parse_text``, ``crawl_parse`` (the install order)."""
SEGMENT_NAME_KEY = "nutch.segment.name"


def row_group_rows(settings: Settings, table: str) -> int:
    """Row-group size per table: ``store.row.group.rows``, smaller for the wide text and data rows."""
    rows = settings.get_int("store.row.group.rows")
    divisor = {"parse_text": 16, "parse_data": 4}.get(table, 1)
    return max(256, rows // divisor)


class ParseOutputs:
    """Writes parse_data, parse_text, crawl_parse part ``part`` under ``staging_dir/<table>/``.

    ``segment_name`` (default: the name of ``staging_dir``'s parent) is recorded in every
    page's content metadata as ``nutch.segment.name`` when it is a segment's (numbered) name.
    ``tee`` wraps each table's writer (a fetch journal: :mod:`gossamer.crawl.fetch.resume`);
    ``plain_writers`` are the unwrapped ones.  With a ``budget`` the three writers buffer under
    it (shared with the caller's other writers, who closes it); without, each gets a quarter of
    ``engine.memory.budget.mb`` of its own.
    """

    def __init__(self, staging_dir: Path, part: int, settings: Settings, segment_name: str | None = None,
                 tee: Callable[[str, SortedPartWriter], SortedPartWriter] | None = None,
                 budget: SpillBudget | None = None) -> None:
        self.staging_dir = Path(staging_dir)
        self.part = part
        self.store_text = settings.get_bool("parser.store.text")
        memory = max(1 << 20, settings.get_int("engine.memory.budget.mb") * (1 << 20) // 4)
        compression = settings.get_str("store.compression")
        self.writers: dict[str, SortedPartWriter] = {}
        self.plain_writers: dict[str, SortedPartWriter] = {}
        for table, schema in SCHEMAS.items():
            directory = self.staging_dir / table
            directory.mkdir(parents=True, exist_ok=True)
            writer = SortedPartWriter(directory / part_name(part), schema, memory_bytes=memory,
                                      row_group_rows=row_group_rows(settings, table), compression=compression,
                                      spill_in_thread=True, budget=budget)
            self.plain_writers[table] = writer
            self.writers[table] = writer if tee is None else tee(table, writer)
        name = self.staging_dir.resolve().parent.name if segment_name is None else segment_name
        self.segment_name = name if name.isdigit() else ""
        self._buffer = PageBuffer(self.store_text)

    def add(self, page: ParsedPage) -> None:
        """Buffer one parsed page (converted with the next :data:`FLUSH_PAGES`)."""
        if self.segment_name:
            page.parse_data.content_metadata.setdefault(SEGMENT_NAME_KEY, self.segment_name)
        self._buffer.add(page)
        if self._buffer.pages >= FLUSH_PAGES:
            self.flush()

    def flush(self) -> None:
        """Convert the buffered pages to Arrow and hand them to the part writers."""
        if not self._buffer.pages:
            return
        batches = self._buffer.batches()
        self._buffer = PageBuffer(self.store_text)
        for table, batch in zip(TABLES, batches, strict=True):
            self.writers[table].add(batch)

    def close(self) -> dict[str, int]:
        """Write the sorted parts; returns rows written per table.

        The table with the most spilled runs is merged last, when the other tables' buffers are
        gone: the merge of many runs is the largest moment of a fetch process's memory.
        """
        self.flush()
        order = sorted(self.writers, key=lambda table: self.plain_writers[table].spilled_runs)
        rows = {table: self.writers[table].close() for table in order}
        return {table: rows[table] for table in self.writers}

    def abort(self) -> None:
        """Drop everything buffered or spilled."""
        self._buffer = PageBuffer(self.store_text)
        for writer in self.writers.values():
            writer.abort()


def complete_parse_tables(root: Place, parts: int, *, partitioner: str, job: str) -> None:
    """Describe the parse tables under ``root`` (a staging directory, or a remote segment).

    Missing parts are written empty, then each table gets ``_table.json`` and
    ``_SUCCESS``, in :data:`TABLES` order (crawl_parse last).
    """
    created = int(time.time() * 1000)
    for table, schema in SCHEMAS.items():
        directory = root / table
        make_dir(directory)
        rows = 0
        for index in range(parts):
            path = directory / part_name(index)
            if not path.exists():
                PartWriter(path, schema, 1024, "zstd").close()
            rows += parquet_rows(path)
        finish_version(directory, TableDescription(kind=table, parts=parts, partitioner=partitioner, rows=rows,
                                                   job=job, created=created))


def finish_parse_tables(staging_dir: Path, segment_dir: Path, parts: int, *, partitioner: str = "fetch-share",
                        job: str = "parse") -> None:
    """Complete the staged parse tables and move them into the local ``segment_dir``.

    :func:`complete_parse_tables` on the staging directory, then parse_data, parse_text
    and crawl_parse are renamed into the segment (crawl_parse last).  Raises
    :class:`ValueError` when any of them already exists in the segment.
    """
    staging_dir, segment_dir = Path(staging_dir), Path(segment_dir)
    existing = [table for table in TABLES if (segment_dir / table).exists()]
    if existing:
        raise ValueError(f"{segment_dir} is already parsed ({', '.join(existing)} exist)")
    staging_dir.mkdir(parents=True, exist_ok=True)
    complete_parse_tables(staging_dir, parts, partitioner=partitioner, job=job)
    for table in TABLES:
        os.rename(staging_dir / table, segment_dir / table)
