"""External sort for the local engine: sorted spill runs and a vectorized k-way merge.

Runs are Arrow IPC files of batches sorted by ``(key, _src, _seq)``.  The merge
never compares rows in Python: it repeatedly takes, from every run's buffer, the
rows whose key is below the smallest "last buffered key" of the runs that still
have data on disk, sorts that slice with Arrow and hands it on.  Each output
chunk therefore holds complete key groups, and memory stays at about one batch
per run plus the chunk.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.engine.api import SEQ_COLUMN, SRC_COLUMN
from gossamer.engine.gather import gather_slices

GATHER_BATCHES = 4
"""Batches of a run gathered at once when a buffer is sorted into it (:func:`write_sorted_run`)."""


def sort_keys(key: str) -> list[tuple[str, str]]:
    """Arrow sort keys for the engine's order."""
    return [(key, "ascending"), (SRC_COLUMN, "ascending"), (SEQ_COLUMN, "ascending")]


def sort_table(table: pa.Table, key: str) -> pa.Table:
    """Sort rows by ``(key, _src, _seq)``."""
    if table.num_rows <= 1:
        return table
    return table.take(sort_order(table, key))


def sort_order(table: pa.Table, key: str) -> pa.Array:
    """Indices that sort ``table`` by ``(key, _src, _seq)``.

    Rows that already come in ``(_src, _seq)`` order (a map task's buffer; merged runs
    concatenated in run order) need only a sort by the key: Arrow's sort is stable, so rows with
    equal keys keep that order.  The string comparisons are then all there is to it.
    """
    if in_tie_order(table):
        return pc.sort_indices(table.column(key))
    return pc.sort_indices(table, sort_keys=sort_keys(key))


def in_tie_order(table: pa.Table) -> bool:
    """Whether the rows are in strictly increasing ``(_src, _seq)`` order."""
    if table.num_rows <= 1:
        return True
    src = table.column(SRC_COLUMN).to_numpy()
    seq = table.column(SEQ_COLUMN).to_numpy()
    same = src[1:] == src[:-1]
    return bool(np.all((src[1:] > src[:-1]) | (same & (seq[1:] > seq[:-1]))))


def write_run(path: Path, table: pa.Table, batch_rows: int) -> None:
    """Write an already sorted table as one run file."""
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
        for batch in table.to_batches(max_chunksize=batch_rows):
            writer.write_batch(batch)


def write_sorted_run(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
    """Sort ``table`` by ``(key, _src, _seq)`` and write it as one run, never holding a sorted copy.

    The rows are gathered in sorted order a few batches at a time (:func:`~gossamer.engine.gather.gather_slices`),
    so the memory beyond ``table`` itself is a few batches, where ``sort_table`` + :func:`write_run`
    held the sorted copy and Arrow's concatenation of every string column (twice the table).
    """
    slices = gather_slices(table, sort_order(table, key).to_numpy(), batch_rows * GATHER_BATCHES)
    write_run_stream(path, slices, table.schema, batch_rows)


def write_run_stream(path: Path, tables: Iterable[pa.Table], schema: pa.Schema, batch_rows: int) -> None:
    """Write sorted tables, in order, as one run file (streaming)."""
    with pa.OSFile(str(path), "wb") as sink, pa.ipc.new_file(sink, schema) as writer:
        for table in tables:
            for batch in table.to_batches(max_chunksize=batch_rows):
                writer.write_batch(batch)


def reduce_fan_in(
    paths: list[Path], schema: pa.Schema, key: str, fan_in: int, batch_rows: int
) -> list[Path]:
    """Merge runs until at most ``fan_in`` remain, merging as little data as that needs.

    Each pass merges the smallest runs, only as many as it takes (at most ``fan_in``): 33 runs
    with a fan-in of 32 (a part of a 10M-URL inject) become 32 by merging the 2 smallest, where
    merging them in groups of 32 rewrote nearly all the data (a fifth of that job's CPU).
    Merged runs are written beside their inputs, which are deleted as soon as they are merged,
    so disk use stays at about one copy of the data.  Memory per pass is about one batch per
    merged run.  The runs' order does not matter to the final merge (rows are ordered by
    ``(key, _src, _seq)``).
    """
    fan_in = max(2, fan_in)
    generation = 0
    while len(paths) > fan_in:
        paths = sorted(paths, key=lambda path: path.stat().st_size)
        count = min(fan_in, len(paths) - fan_in + 1)
        group, paths = paths[:count], paths[count:]
        target = group[0].with_name(f"{group[0].stem}.m{generation}.arrow")
        chunks = merge_sorted((read_run(p) for p in group), schema, key, batch_rows)
        write_run_stream(target, chunks, schema, batch_rows)
        for path in group:
            path.unlink()
        paths.append(target)
        generation += 1
    return paths


STREAM_RUN_SUFFIX = ".arrows"
"""Runs in the Arrow IPC *stream* format (the Spark engine's shuffle blocks, stored as they came)."""


def read_run(path: Path, mapped: bool = False) -> Iterator[pa.RecordBatch]:
    """Stream a run file's batches (read, not memory-mapped, so memory stays bounded).

    A ``.arrows`` file is an IPC stream, any other an IPC file.  ``mapped``: the file is memory-mapped
    instead, the batches pointing into its pages (no copy, no fresh memory; the pages are the page
    cache's, which the system may drop and read again).
    """
    opened = pa.memory_map if mapped else pa.OSFile
    if path.suffix == STREAM_RUN_SUFFIX:
        with opened(str(path), "rb") as source:
            yield from pa.ipc.open_stream(source)
        return
    with opened(str(path), "rb") as source:
        reader = pa.ipc.open_file(source)
        for index in range(reader.num_record_batches):
            yield reader.get_batch(index)


class _Cursor:
    """A run being merged: its iterator and the rows buffered from it."""

    def __init__(self, batches: Iterator[pa.RecordBatch], key: str, schema: pa.Schema) -> None:
        self._batches = batches
        self._key = key
        self._schema = schema
        self.buffer: pa.Table = schema.empty_table()
        self.exhausted = False

    def fill(self) -> None:
        """Append the next non-empty batch to the buffer (or mark the run exhausted)."""
        for batch in self._batches:
            if batch.num_rows:
                piece = pa.Table.from_batches([batch], schema=self._schema)
                self.buffer = pa.concat_tables([self.buffer, piece]) if self.buffer.num_rows else piece
                return
        self.exhausted = True

    def last_key(self) -> str:
        """Largest key in the buffer (the buffer is sorted)."""
        return self.buffer.column(self._key)[-1].as_py()

    def take_below(self, bound: str | None) -> pa.Table:
        """Remove and return buffered rows with key < bound (all rows when bound is None)."""
        if bound is None:
            taken, self.buffer = self.buffer, self.buffer.slice(0, 0)
            return taken
        keys = self.buffer.column(self._key)
        count = pc.sum(pc.less(keys, pa.scalar(bound, keys.type))).as_py() or 0
        taken = self.buffer.slice(0, count)
        self.buffer = self.buffer.slice(count)
        return taken


def _first_tie(table: pa.Table) -> tuple[int, int]:
    """``(_src, _seq)`` of the first row."""
    return table.column(SRC_COLUMN)[0].as_py(), table.column(SEQ_COLUMN)[0].as_py()


def merge_sorted(
    runs: Iterable[Iterator[pa.RecordBatch]], schema: pa.Schema, key: str, chunk_rows: int
) -> Iterator[pa.Table]:
    """Merge sorted runs into sorted tables of roughly ``chunk_rows`` or more rows.

    Every key's rows are in exactly one yielded table, in ``(key, _src, _seq)``
    order.
    """
    cursors = [_Cursor(iter(run), key, schema) for run in runs]
    pending: list[pa.Table] = []
    pending_rows = 0
    while True:
        for cursor in cursors:
            if not cursor.buffer.num_rows and not cursor.exhausted:
                cursor.fill()
        live = [c for c in cursors if c.buffer.num_rows]
        if not live:
            break
        limiting = [c for c in live if not c.exhausted]
        bound = min((c.last_key() for c in limiting), default=None)
        pieces = [p for p in (c.take_below(bound) for c in live) if p.num_rows]
        if not pieces:
            # Every limiting buffer holds only keys == bound: read further into those runs.
            for cursor in limiting:
                if cursor.last_key() == bound:
                    cursor.fill()
            continue
        pieces.sort(key=_first_tie)  # runs hold disjoint (_src, _seq) ranges: often one ordered table
        merged = sort_table(pa.concat_tables(pieces), key) if len(pieces) > 1 else pieces[0]
        pending.append(merged)
        pending_rows += merged.num_rows
        if pending_rows >= chunk_rows:
            yield pa.concat_tables(pending)
            pending, pending_rows = [], 0
    if pending:
        yield pa.concat_tables(pending)
