"""SortedPartWriter with ``spill_in_thread``: the same part, runs written off the caller's thread, memory bounded."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gossamer.engine import sorted_part
from gossamer.engine.sorted_part import SortedPartWriter

SCHEMA = pa.schema([pa.field("url", pa.string(), nullable=False), pa.field("n", pa.int64()),
                    pa.field("text", pa.string())])


def _batches(seed: int, count: int = 40, rows: int = 500) -> list[pa.RecordBatch]:
    rng = random.Random(seed)
    out = []
    for b in range(count):
        urls = [f"http://h{rng.randrange(30)}.test/{rng.randrange(200)}" for _ in range(rows)]  # many equal keys
        texts = ["x" * rng.randrange(100, 3000) for _ in range(rows)]
        out.append(pa.RecordBatch.from_arrays([pa.array(urls), pa.array(range(b * rows, (b + 1) * rows)),
                                               pa.array(texts)], schema=SCHEMA))
    return out


def _write(path: Path, batches: list[pa.RecordBatch], **kwargs: object) -> int:
    writer = SortedPartWriter(path, SCHEMA, memory_bytes=1 << 20, row_group_rows=1000, **kwargs)  # type: ignore[arg-type]
    for batch in batches:
        writer.add(batch)
    return writer.close()


def test_the_part_is_the_same_as_a_synchronous_spill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same rows, same order (equal keys in arrival order); the runs are written by another thread."""
    writers: list[str] = []
    real = sorted_part.write_sorted_run

    def spying(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        writers.append(threading.current_thread().name)
        real(path, table, key, batch_rows)

    monkeypatch.setattr(sorted_part, "write_sorted_run", spying)
    batches = _batches(3)
    assert _write(tmp_path / "sync.parquet", batches) == _write(tmp_path / "thread.parquet", batches,
                                                                spill_in_thread=True) == 20_000
    sync, threaded = pq.read_table(tmp_path / "sync.parquet"), pq.read_table(tmp_path / "thread.parquet")
    assert threaded.equals(sync)
    pairs = list(zip(threaded.column("url").to_pylist(), threaded.column("n").to_pylist(), strict=True))
    assert all(a < b for a, b in zip(pairs, pairs[1:], strict=False))  # by url, then arrival
    main = threading.current_thread().name
    assert main in writers and any(name != main for name in writers)
    ran_in_thread = [name for name in writers if name != main]
    assert len(ran_in_thread) >= 10 and all(name.startswith("sorted-part-spill") for name in ran_in_thread)
    assert not (tmp_path / "thread.parquet.runs").exists()
    assert not any(t.name.startswith("sorted-part-spill") for t in threading.enumerate())


def test_one_run_at_a_time_and_the_buffer_spills_at_half_the_budget(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """While a run is written, the caller's next spill waits for it: never two runs (and buffers) in flight."""
    running, seen = [0], []
    lock = threading.Lock()
    real = sorted_part.write_sorted_run
    writer = SortedPartWriter(tmp_path / "part.parquet", SCHEMA, memory_bytes=1 << 20, spill_in_thread=True)

    def slow(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        with lock:
            running[0] += 1
            seen.append((running[0], table.nbytes, writer._buffered_bytes))  # noqa: SLF001
        threading.Event().wait(0.01)  # give the caller time to fill its next buffer meanwhile
        real(path, table, key, batch_rows)
        with lock:
            running[0] -= 1

    monkeypatch.setattr(sorted_part, "write_sorted_run", slow)
    assert writer.spill_bytes == 1 << 19
    batches = _batches(5, count=200, rows=100)
    for batch in batches:
        writer.add(batch)
    assert writer.close() == 20_000
    assert len(seen) >= 10 and max(r for r, _, _ in seen) == 1
    # a buffer reaches the spill size by at most one batch (with the writer's two bookkeeping columns)
    most = (1 << 19) + max(b.nbytes for b in batches) + 12 * 100
    assert all(run <= most and buffered <= most for _, run, buffered in seen)
    assert sum(run for _, run, _ in seen) >= sum(b.nbytes for b in batches)


def test_an_error_in_the_spill_thread_fails_close_and_leaves_nothing(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(sorted_part, "write_sorted_run", broken)
    path = tmp_path / "part.parquet"
    writer = SortedPartWriter(path, SCHEMA, memory_bytes=1 << 20, spill_in_thread=True)
    with pytest.raises(OSError, match="disk full"):
        for batch in _batches(7):
            writer.add(batch)
        writer.close()
    writer.abort()
    assert not path.exists() and not (tmp_path / "part.parquet.runs").exists()
    assert list(tmp_path.iterdir()) == []


def test_abort_waits_for_the_run_being_written_and_removes_the_runs(tmp_path: Path) -> None:
    path = tmp_path / "part.parquet"
    writer = SortedPartWriter(path, SCHEMA, memory_bytes=1 << 20, spill_in_thread=True)
    for batch in _batches(9, count=10):
        writer.add(batch)
    writer.abort()
    assert list(tmp_path.iterdir()) == []


def test_the_spill_thread_gives_each_buffer_back_after_writing_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """After each run is on disk its buffer is already unreferenced, and malloc's free pages are returned."""
    import gc
    import weakref

    trims: list[bool] = []
    buffers: list[weakref.ref] = []
    real_write = sorted_part.write_sorted_run

    def write(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        buffers.append(weakref.ref(table))
        real_write(path, table, key, batch_rows)

    def trim() -> None:
        gc.collect()
        trims.append(all(ref() is None for ref in buffers))  # every buffer written so far is gone

    monkeypatch.setattr(sorted_part, "write_sorted_run", write)
    monkeypatch.setattr(sorted_part, "trim_malloc", trim)
    rows = _write(tmp_path / "part.parquet", _batches(3), spill_in_thread=True)
    assert rows == 40 * 500
    assert len(trims) == len(buffers) >= 3 and all(trims)
