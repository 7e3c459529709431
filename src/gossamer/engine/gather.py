"""Rows of a many-chunk table in a given order, a slice at a time, without concatenating its columns.

Arrow's ``take`` on a table whose columns have several chunks first concatenates every chunk
of a variable-width column (strings, binaries), then copies the rows out: sorting a spill
buffer of 32 MB of page text that way held the buffer, its concatenation and the sorted copy
at once (three times the buffer; measured with Arrow 26: a 34 MB table's ``take`` peaked at
101 MB of Arrow's pool).  :func:`gather_slices` takes each slice's rows from the chunks that
hold them (a ``take`` of one chunk copies no more than the rows taken) and restores the
slice's order with a second ``take`` of the slice alone, so the extra memory is about two
slices, whatever the table's size.  ``large_string`` and ``large_binary`` columns (page texts,
documents: most of the bytes) are copied once, straight into place (:func:`gather_large_binary`),
when a slice takes enough rows from each chunk it touches; the other columns twice.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pyarrow as pa

ROWS_PER_CHUNK_FOR_ONE_COPY = 16
"""Wanted rows per chunk touched from which large columns are copied once (:func:`gather_large_binary`): its
set-up per chunk costs more than Arrow's ``take`` when a slice takes a row or two from each of thousands of
chunks (a sorted part of many small pages: 0.25 against 0.21 s for 12k rows from 4,000 chunks)."""


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


def repeated_gather(table: pa.Table) -> Callable[[np.ndarray], pa.Table]:
    """``rows -> table.take(rows)`` (one chunk per column), for a table of many chunks gathered slice after slice.

    The table's small columns (all but ``large_string``/``large_binary``) are combined into one chunk once, so each
    call takes them with one ``take`` instead of one per chunk it touches plus a concatenation and a reordering
    ``take`` (a reduce's slice of 4,096 rows touches a chunk of each of ~100 runs); the large columns (page
    texts) are still gathered from their chunks, copied once (:func:`gather_large_binary`), never combined.
    Memory: one copy of the small columns, which a reduce that sorts in memory has budgeted for.
    """
    schema = table.schema
    large = [i for i, field in enumerate(schema) if _is_large_binary(field.type)]
    small = [i for i in range(len(schema)) if i not in large]
    combined = table.select(small).combine_chunks() if small else None
    large_table = table.select(large)
    batches = large_table.to_batches()
    starts = np.cumsum([0] + [batch.num_rows for batch in batches], dtype=np.int64)

    def gather(rows: np.ndarray) -> pa.Table:
        rows = np.asarray(rows, dtype=np.int64)
        columns: dict[int, pa.Array] = {}
        if combined is not None:
            taken = combined.take(pa.array(rows))
            columns.update(zip(small, (column.combine_chunks() for column in taken.columns), strict=True))
        if large:
            if len(batches) <= 1:
                gathered = large_table.take(pa.array(rows)).combine_chunks()
            else:
                gathered = _gather(large_table.schema, batches, starts, rows)
            columns.update(zip(large, (column.combine_chunks() for column in gathered.columns), strict=True))
        return pa.Table.from_arrays([columns[i] for i in range(len(schema))], schema=schema)

    return gather


def _gather(schema: pa.Schema, batches: list[pa.RecordBatch], starts: np.ndarray, wanted: np.ndarray) -> pa.Table:
    """The rows ``wanted`` (row numbers of the whole table) in that order, one chunk per column.

    Only the chunks that hold wanted rows are touched: a sorted part of many small pages is a table of
    thousands of chunks, gathered a slice at a time.
    """
    chunk = np.searchsorted(starts, wanted, side="right") - 1
    present = np.unique(chunk)
    local = np.searchsorted(present, chunk)  # each row's chunk among the present ones
    held = [batches[int(c)] for c in present]
    groups = _chunk_groups(local)
    rows = wanted - starts[chunk]
    large = [i for i, field in enumerate(schema) if _is_large_binary(field.type)]
    if len(wanted) < ROWS_PER_CHUNK_FOR_ONE_COPY * len(present):
        large = []  # a few rows from each of many chunks: Arrow's per-chunk take costs less per chunk
    small = [i for i in range(len(schema)) if i not in large]
    columns: dict[int, pa.Array] = {}
    if small:
        taken = _take_rows(schema, [b.select(small) for b in held] if large else held, groups, rows)
        columns.update(zip(small, taken.columns, strict=True))
    for i in large:
        columns[i] = gather_large_binary([b.column(i) for b in held], local, rows, schema.field(i).type, groups)
    return pa.Table.from_arrays([columns[i] for i in range(len(schema))], schema=schema)


def _chunk_groups(chunk: np.ndarray) -> list[np.ndarray]:
    """Positions of the rows of each chunk, chunks ascending, each group in the rows' order."""
    if not len(chunk):
        return []
    by_chunk = np.argsort(chunk, kind="stable")
    return np.split(by_chunk, np.flatnonzero(chunk[by_chunk][1:] != chunk[by_chunk][:-1]) + 1)


def _take_rows(schema: pa.Schema, batches: list[pa.RecordBatch], groups: list[np.ndarray],
               rows: np.ndarray) -> pa.Table:
    """Arrow's ``take`` from each chunk (``groups[k]``: the rows of ``batches[k]``), then the slice's order."""
    pieces = [batch.take(pa.array(rows[group])) for batch, group in zip(batches, groups, strict=True)]
    gathered = pa.Table.from_batches(pieces, schema=batches[0].schema if batches else schema).combine_chunks()
    by_chunk = np.concatenate(groups) if groups else np.zeros(0, np.int64)
    if len(pieces) == 1 or bool(np.all(by_chunk[1:] > by_chunk[:-1])):
        return gathered  # the slice's rows already came in chunk order
    position = np.empty_like(by_chunk)
    position[by_chunk] = np.arange(len(by_chunk), dtype=by_chunk.dtype)
    return gathered.take(pa.array(position))


def _is_large_binary(data_type: pa.DataType) -> bool:
    return pa.types.is_large_string(data_type) or pa.types.is_large_binary(data_type)


def gather_large_binary(arrays: Sequence[pa.Array], chunk: np.ndarray, rows: np.ndarray,
                        data_type: pa.DataType, groups: list[np.ndarray] | None = None) -> pa.Array:
    """Row ``rows[i]`` of ``arrays[chunk[i]]`` for each ``i``, as one ``large_string``/``large_binary`` array.

    The bytes are copied once, straight into the result (Arrow's per-chunk ``take``, the concatenation and
    the reordering ``take`` copied page texts three times; the shuffle of an index job moves ~230 MB of
    them).  Nulls stay null.  Values are not validated again: they come from arrays of ``data_type``.
    ``groups``: the rows of each chunk as ``_chunk_groups(chunk)`` gives them, when the caller has them.
    """
    n = len(chunk)
    begin = np.zeros(n, np.int64)
    end = np.zeros(n, np.int64)
    valid = np.ones(n, np.bool_)
    views = [memoryview(array.buffers()[2] or b"") for array in arrays]  # callers pass only the chunks used
    for group in _chunk_groups(chunk) if groups is None else groups:
        array = arrays[int(chunk[group[0]])]
        offsets = np.frombuffer(array.buffers()[1], np.int64, count=len(array) + 1, offset=array.offset * 8)
        picked = rows[group]
        begin[group] = offsets[picked]
        end[group] = offsets[picked + 1]
        if array.null_count:
            valid[group] = array.is_valid().to_numpy(zero_copy_only=False)[picked]
    lengths = np.where(valid, end - begin, 0)
    present = np.flatnonzero(lengths)
    data = b"".join([views[c][b:e] for c, b, e in zip(chunk[present].tolist(), begin[present].tolist(),
                                                       end[present].tolist(), strict=True)])
    return _large_array(data_type, valid, lengths, data)


def large_binary_array(values: Sequence[bytes | None], data_type: pa.DataType | None = None) -> pa.Array:
    """``values`` (bytes, or None for a null) as one ``large_binary`` or ``large_string`` array, not validated again.

    The bytes are joined once into a buffer of the exact size: ``pa.array(values, pa.large_binary())`` grows its
    buffer by doubling, copying what it holds each time: 800 documents of the index job (7 MB) took 0.57 ms
    that way against 0.25 ms joined with mimalloc as Arrow's pool, 3.7 ms against 0.25 with jemalloc.
    ``data_type``: ``large_binary`` (the default) or ``large_string``, for which the caller vouches that every
    value is UTF-8.
    """
    n = len(values)
    data_type = data_type or pa.large_binary()
    if None not in values:  # page texts, most documents: one pass for the lengths, the join takes them as they are
        lengths = np.fromiter(map(len, values), np.int64, n)
        return _large_array(data_type, np.ones(n, np.bool_), lengths, b"".join(values))
    valid = np.fromiter((value is not None for value in values), np.bool_, n)
    lengths = np.fromiter((0 if value is None else len(value) for value in values), np.int64, n)
    return _large_array(data_type, valid, lengths, b"".join([value for value in values if value]))


def _large_array(data_type: pa.DataType, valid: np.ndarray, lengths: np.ndarray, data: bytes) -> pa.Array:
    """A large binary/string array of ``len(valid)`` values: ``lengths`` bytes each of ``data``, in order."""
    n = len(valid)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    nulls = n - int(np.count_nonzero(valid))
    validity = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.Array.from_buffers(data_type, n, [validity, pa.py_buffer(offsets), pa.py_buffer(data)],
                                 null_count=nulls)


__all__ = ["gather_large_binary", "gather_slices", "large_binary_array", "repeated_gather"]
