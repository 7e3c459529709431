"""Edit logs: edits recorded in any order, block-sorted under a memory budget, read back by key.

An :class:`EditLog` buffers edit rows and hands them to the engine's
:class:`~gossamer.engine.SortedPartWriter`, which sorts a full buffer and spills it as a
run, then merges the runs into one sorted file (the seed's block sort).  Edits with equal
keys keep the order they were recorded in; each also carries ``seq``, the writer's call
number, so a stage can tell which of two edits came last even when one was derived from
the other by an earlier stage.  :func:`merge` walks an old table and a sorted edit stream
side by side, front to back.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import IntEnum
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gossamer.engine import SortedPartWriter
from gossamer.webdb.records import LINK_FIELDS, PAGE_FIELDS

_FLUSH_ROWS = 2048


class Op(IntEnum):
    """What an edit asks for."""

    ADD_PAGE = 1
    ADD_PAGE_WITH_SCORE = 2
    ADD_PAGE_IF_ABSENT = 3
    DELETE_PAGE = 4
    PUT = 5
    """Derived edits: this row is the new value."""
    DELETE = 6
    """Derived edits: the row goes."""
    ADD_LINK = 7


def _nullable(fields: list[pa.Field]) -> list[pa.Field]:
    return [f.with_nullable(True) for f in fields]


_HEAD = [pa.field("key", pa.string(), nullable=False), pa.field("op", pa.int8(), nullable=False),
         pa.field("seq", pa.int64(), nullable=False)]
PAGE_EDIT_SCHEMA = pa.schema([*_HEAD, *_nullable(PAGE_FIELDS),
                              pa.field("link_to_url", pa.string()), pa.field("link_anchor", pa.string())])
LINK_EDIT_SCHEMA = pa.schema([*_HEAD, *_nullable(LINK_FIELDS)])

Row = dict[str, object]


class EditLog:
    """Edits for one stage; :meth:`add` in any order, then :meth:`groups` once, sorted by key.

    Buffered rows are bounded by ``memory_bytes``; beyond that they spill to sorted runs
    under ``work_dir`` (removed as the sorted file is written).
    """

    def __init__(self, work_dir: Path, name: str, schema: pa.Schema, memory_bytes: int) -> None:
        self.schema = schema
        self.count = 0
        self._path = work_dir / f"{name}.edits.parquet"
        self._sorter = SortedPartWriter(self._path, schema, key="key", memory_bytes=memory_bytes,
                                        compression="lz4")
        self._rows: list[Row] = []

    def add(self, key: str, op: Op, seq: int, **values: object) -> None:
        """Record one edit; ``values`` are the schema's other columns (missing ones are null)."""
        self._rows.append({"key": key, "op": int(op), "seq": seq, **values})
        self.count += 1
        if len(self._rows) >= _FLUSH_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._rows:
            self._sorter.add(pa.RecordBatch.from_pylist(self._rows, schema=self.schema))
            self._rows = []

    def groups(self) -> Iterator[tuple[str, list[Row]]]:
        """Sort what was recorded and yield ``(key, edits in recording order)``, keys ascending."""
        self._flush()
        self._sorter.close()
        try:
            with pq.ParquetFile(self._path) as sorted_edits:
                key: str | None = None
                group: list[Row] = []
                for batch in sorted_edits.iter_batches(batch_size=_FLUSH_ROWS):
                    for row in batch.to_pylist():
                        if row["key"] != key:
                            if group:
                                yield key, group  # type: ignore[misc]
                            key, group = row["key"], []  # type: ignore[assignment]
                        group.append(row)
                if group:
                    yield key, group  # type: ignore[misc]
        finally:
            self._path.unlink(missing_ok=True)

    def abort(self) -> None:
        """Drop everything recorded."""
        self._sorter.abort()
        self._path.unlink(missing_ok=True)


def merge(old: Iterator[tuple[str, Row]], edits: Iterator[tuple[str, list[Row]]]
          ) -> Iterator[tuple[str, Row | None, list[Row]]]:
    """Walk two key-sorted streams together: ``(key, old row or None, edits for it)``, keys ascending.

    ``old`` has unique keys.  Neither stream is ever read backwards.
    """
    done = object()
    o = next(old, done)
    e = next(edits, done)
    while o is not done or e is not done:
        if e is done or (o is not done and o[0] < e[0]):  # type: ignore[index]
            yield o[0], o[1], []  # type: ignore[index]
            o = next(old, done)
        elif o is done or e[0] < o[0]:  # type: ignore[index]
            yield e[0], None, e[1]  # type: ignore[index]
            e = next(edits, done)
        else:
            yield o[0], o[1], e[1]  # type: ignore[index]
            o, e = next(old, done), next(edits, done)
