"""gather_slices: a table's rows in any order, a slice at a time, without a concatenated or sorted copy."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.engine import gather
from gossamer.engine.api import SEQ_COLUMN, SRC_COLUMN
from gossamer.engine.gather import gather_slices
from gossamer.engine.sort import read_run, sort_table, write_sorted_run

SCHEMA = pa.schema([("url", pa.string()), ("n", pa.int64()), ("blob", pa.binary())])


def _table(chunk_sizes: list[int]) -> pa.Table:
    batches, n = [], 0
    for size in chunk_sizes:
        rows = range(n, n + size)
        batches.append(pa.record_batch([pa.array([f"u{(i * 7919) % 1000:04d}" for i in rows]), pa.array(rows),
                                        pa.array([bytes([i % 256]) * (i % 5) for i in rows], pa.binary())],
                                       schema=SCHEMA))
        n += size
    return pa.Table.from_batches(batches, schema=SCHEMA)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=7), st.data(), st.integers(1, 8))
def test_the_slices_concatenate_to_take(chunk_sizes: list[int], data: st.DataObject, slice_rows: int) -> None:
    table = _table(chunk_sizes)
    count = table.num_rows
    wanted = data.draw(st.lists(st.integers(0, count - 1), max_size=40)) if count else []
    slices = list(gather_slices(table, np.array(wanted, dtype=np.int64), slice_rows))
    assert [s.num_rows for s in slices] == [min(slice_rows, len(wanted) - i) for i in range(0, len(wanted), slice_rows)]
    assert all(column.num_chunks == 1 for s in slices for column in s.columns)
    expected = table.take(pa.array(wanted, pa.int64()))
    assert (pa.concat_tables(slices) if slices else SCHEMA.empty_table()).equals(expected)


@contextmanager
def _counting_pool() -> Iterator[pa.MemoryPool]:
    """Arrow's default pool replaced by a proxy that counts what this block allocates."""
    before = pa.default_memory_pool()
    pool = pa.proxy_memory_pool(before)
    pa.set_memory_pool(pool)
    try:
        yield pool
    finally:
        pa.set_memory_pool(before)


def _text_table(batches: int, rows: int) -> pa.Table:
    rng = np.random.default_rng(3)
    out = []
    for b in range(batches):
        keys = [f"http://h{int(k)}.test/" for k in rng.integers(0, 10_000, rows)]
        out.append(pa.record_batch([pa.array(keys), pa.array(["t" * 4000] * rows),
                                    pa.array([0] * rows, pa.int32()), pa.array(range(b * rows, (b + 1) * rows))],
                                   names=["url", "text", SRC_COLUMN, SEQ_COLUMN]))
    return pa.Table.from_batches(out)


def test_a_sorted_run_is_written_without_a_sorted_copy(tmp_path: Path) -> None:
    """Sorting a 16 MB, 8-chunk buffer into a run holds a few batches beside it, not two copies of it."""
    table = _text_table(8, 500)
    size = table.nbytes
    with _counting_pool() as pool:
        write_sorted_run(tmp_path / "run.arrow", table, "url", 64)
        peak = pool.max_memory()
    assert peak < size / 3, (peak, size)  # sort_table + write_run: twice the table (32 MB)
    rows = pa.Table.from_batches(list(read_run(tmp_path / "run.arrow")))
    assert rows.equals(sort_table(table, "url").combine_chunks())


LARGE_SCHEMA = pa.schema([("url", pa.string()), ("text", pa.large_string()), ("blob", pa.large_binary()),
                          ("n", pa.int64())])


def _large_table(chunk_sizes: list[int], nulls: int, sliced: bool) -> pa.Table:
    batches, n = [], 0
    for size in chunk_sizes:
        rows = range(n, n + size + (2 if sliced else 0))
        text = [None if nulls and i % nulls == 0 else "é" * (i % 4) + f"text {i}" * (i % 3) for i in rows]
        blob = [None if nulls and i % (nulls + 1) == 0 else bytes([i % 256]) * (i % 6) for i in rows]
        batch = pa.record_batch([pa.array([f"u{i}" for i in rows]), pa.array(text, pa.large_string()),
                                 pa.array(blob, pa.large_binary()), pa.array(rows, pa.int64())], schema=LARGE_SCHEMA)
        batches.append(batch.slice(1, size) if sliced else batch)
        n += len(rows)
    return pa.Table.from_batches(batches, schema=LARGE_SCHEMA)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=2, max_size=7), st.data(), st.integers(1, 8), st.integers(0, 4),
       st.booleans(), st.sampled_from([0, 2, 10**9]))
def test_large_text_columns_are_gathered_as_take_gathers_them(chunk_sizes: list[int], data: st.DataObject,
                                                              slice_rows: int, nulls: int, sliced: bool,
                                                              rows_per_chunk: int) -> None:
    """Both ways: copied once (any rows per chunk, 0) or by Arrow's take (never, 10**9), and the threshold."""
    gather.ROWS_PER_CHUNK_FOR_ONE_COPY, before = rows_per_chunk, gather.ROWS_PER_CHUNK_FOR_ONE_COPY
    try:
        _check_large_gather(chunk_sizes, data, slice_rows, nulls, sliced)
    finally:
        gather.ROWS_PER_CHUNK_FOR_ONE_COPY = before


def _check_large_gather(chunk_sizes: list[int], data: st.DataObject, slice_rows: int, nulls: int,
                        sliced: bool) -> None:
    table = _large_table(chunk_sizes, nulls, sliced)
    count = table.num_rows
    wanted = data.draw(st.lists(st.integers(0, count - 1), max_size=40)) if count else []
    slices = list(gather_slices(table, np.array(wanted, dtype=np.int64), slice_rows))
    for piece in slices:
        piece.validate(full=True)
    expected = table.take(pa.array(wanted, pa.int64()))
    assert (pa.concat_tables(slices) if slices else LARGE_SCHEMA.empty_table()).equals(expected)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.none(), st.binary(max_size=20)), max_size=30))
def test_large_binary_array_equals_arrows_own_conversion(values: list[bytes | None]) -> None:
    built = gather.large_binary_array(values)
    assert built.type == pa.large_binary()
    assert built.equals(pa.array(values, pa.large_binary()))
    assert built.null_count == values.count(None)


def test_large_binary_array_as_strings_holds_the_utf8_text() -> None:
    values = ["ä€𝄞".encode(), None, b"", b"plain"]
    built = gather.large_binary_array(values, pa.large_string())
    assert built.to_pylist() == ["ä€𝄞", None, "", "plain"]
    assert gather.large_binary_array([], pa.large_string()).equals(pa.array([], pa.large_string()))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=7), st.data(), st.booleans())
def test_repeated_gather_takes_the_rows_asked_for_each_time(chunk_sizes: list[int], data: st.DataObject,
                                                            large: bool) -> None:
    table = _table(chunk_sizes)
    if large:  # page texts: gathered from their chunks, never combined
        table = table.set_column(2, "blob", table.column("blob").cast(pa.large_binary()))
    take = gather.repeated_gather(table)
    for _ in range(3):
        wanted = data.draw(st.lists(st.integers(0, table.num_rows - 1), max_size=40)) if table.num_rows else []
        got = take(np.array(wanted, dtype=np.int64))
        assert got.equals(table.take(pa.array(wanted, pa.int64())).combine_chunks())
        assert all(column.num_chunks == 1 for column in got.columns)
