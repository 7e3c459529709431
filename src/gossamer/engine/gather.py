"""Rows of a many-chunk table in a given order, a slice at a time, without concatenating its columns.

Arrow's ``take`` on a table whose columns have several chunks first concatenates every chunk
of a variable-width column (strings, binaries), then copies the rows out: sorting a spill
buffer of 32 MB of page text that way held the buffer, its concatenation and the sorted copy
at once (three times the buffer; measured with Arrow 26: a 34 MB table's ``take`` peaked at
101 MB of Arrow's pool).  :func:`gather_slices` takes each slice's rows from the chunks that
hold them (a ``take`` of one chunk copies no more than the rows taken) and restores the
slice's order with a second ``take`` of the slice alone, so the extra memory is about two
slices, whatever the table's size, for the same two copies of every row.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa


def gather_slices(table: pa.Table, indices: np.ndarray, slice_rows: int) -> Iterator[pa.Table]:
    """``table.take(indices)`` as consecutive tables of at most ``slice_rows`` rows each.

    ``indices`` are row numbers of ``table`` (any order, repeats allowed; ``int64`` or
    convertible).  Concatenating the yielded tables gives exactly ``table.take(indices)``;
    each is a single chunk per column.  Nothing is yielded for no indices.
    """
    indices = np.asarray(indices, dtype=np.int64)
    slice_rows = max(1, slice_rows)
    batches = table.to_batches()
    if len(batches) <= 1:
        for start in range(0, len(indices), slice_rows):
            yield table.take(pa.array(indices[start:start + slice_rows])).combine_chunks()
        return
    starts = np.cumsum([0] + [batch.num_rows for batch in batches], dtype=np.int64)
    for start in range(0, len(indices), slice_rows):
        yield _gather(table.schema, batches, starts, indices[start:start + slice_rows])


def _gather(schema: pa.Schema, batches: list[pa.RecordBatch], starts: np.ndarray, wanted: np.ndarray) -> pa.Table:
    """The rows ``wanted`` (row numbers of the whole table) in that order, one chunk per column."""
    chunk = np.searchsorted(starts, wanted, side="right") - 1
    by_chunk = np.argsort(chunk, kind="stable")
    ordered_chunks = chunk[by_chunk]
    edges = np.flatnonzero(ordered_chunks[1:] != ordered_chunks[:-1]) + 1
    pieces = []
    for group in np.split(by_chunk, edges):
        number = int(chunk[group[0]])
        pieces.append(batches[number].take(pa.array(wanted[group] - starts[number])))
    gathered = pa.Table.from_batches(pieces, schema=schema).combine_chunks()
    if len(pieces) == 1 or bool(np.all(by_chunk[1:] > by_chunk[:-1])):
        return gathered  # the slice's rows already came in chunk order
    position = np.empty_like(by_chunk)
    position[by_chunk] = np.arange(len(by_chunk), dtype=by_chunk.dtype)
    return gathered.take(pa.array(position))


__all__ = ["gather_slices"]
