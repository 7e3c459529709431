"""SpillBudget: several SortedPartWriters under one memory bound, the largest buffer spilling first."""

from __future__ import annotations

import random
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gossamer.engine import SortedPartWriter, SpillBudget, sorted_part

SCHEMA = pa.schema([pa.field("url", pa.string(), nullable=False), pa.field("n", pa.int64()),
                    pa.field("text", pa.string())])


def _batch(rng: random.Random, start: int, rows: int, width: int) -> pa.RecordBatch:
    urls = [f"http://h{rng.randrange(40)}.test/{rng.randrange(300)}" for _ in range(rows)]  # equal keys
    texts = ["y" * rng.randrange(width // 2, width) for _ in range(rows)]
    return pa.RecordBatch.from_arrays([pa.array(urls), pa.array(range(start, start + rows)), pa.array(texts)],
                                      schema=SCHEMA)


def _feed(tmp_path: Path, budget: SpillBudget | None, seed: int = 4) -> tuple[dict[str, pa.Table], list[int]]:
    """Three writers fed in turns (wide, medium, narrow rows); the budget's total after every add."""
    rng = random.Random(seed)
    widths = {"wide": 4000, "medium": 600, "narrow": 40}
    writers = {name: SortedPartWriter(tmp_path / f"{name}.parquet", SCHEMA, memory_bytes=1 << 20,
                                      row_group_rows=500, spill_in_thread=budget is None, budget=budget)
               for name in widths}
    totals: list[int] = []
    for step in range(60):
        for name, width in widths.items():
            writers[name].add(_batch(rng, step * 100, 100, width))
            if budget is not None:
                totals.append(budget.buffered_bytes())
    rows = {name: writer.close() for name, writer in writers.items()}
    assert rows == dict.fromkeys(widths, 6000)
    if budget is not None:
        budget.close()
    return {name: pq.read_table(tmp_path / f"{name}.parquet") for name in widths}, totals


def test_the_parts_are_those_of_writers_with_their_own_bounds(tmp_path: Path) -> None:
    """Same rows in the same order (by key, equal keys in arrival order) as without a budget."""
    (tmp_path / "own").mkdir()
    (tmp_path / "shared").mkdir()
    own, _ = _feed(tmp_path / "own", None)
    shared, _ = _feed(tmp_path / "shared", SpillBudget(1 << 20))
    for name, table in own.items():
        assert shared[name].equals(table)
        keys = list(zip(table.column("url").to_pylist(), table.column("n").to_pylist(), strict=True))
        assert keys == sorted(keys)
    assert not list((tmp_path / "shared").glob("*.runs"))


def test_together_the_buffers_stay_under_half_the_budget_and_the_largest_spills(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spilled: list[tuple[str, int]] = []
    real = sorted_part.write_sorted_run

    def spy(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        spilled.append((path.parent.name.split(".")[0], table.nbytes))
        real(path, table, key, batch_rows)

    monkeypatch.setattr(sorted_part, "write_sorted_run", spy)
    budget = SpillBudget(1 << 20)
    _, totals = _feed(tmp_path, budget)
    widest_batch = 100 * 4000 + 100 * 60  # one added batch may cross the line
    assert max(totals) < budget.spill_bytes + widest_batch
    assert 0 < budget.spills <= len(spilled)  # close() spills a last buffer of a writer with runs
    names = [name for name, _ in spilled]
    assert names.count("wide") > names.count("medium") >= 1  # the wide table spills most, in large runs
    assert names.count("narrow") < names.count("medium")  # a slowly filling table is cut into few runs


def test_one_run_in_flight_across_all_the_writers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    running, most, threads = [0], [0], set()
    lock = threading.Lock()
    real = sorted_part.write_sorted_run

    def slow(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            threads.add(threading.current_thread().name)
        threading.Event().wait(0.005)
        real(path, table, key, batch_rows)
        with lock:
            running[0] -= 1

    monkeypatch.setattr(sorted_part, "write_sorted_run", slow)
    budget = SpillBudget(1 << 20, thread_name="budget-spill")
    _feed(tmp_path, budget)
    assert most[0] == 1
    assert any(name.startswith("budget-spill") for name in threads)
    assert not any(t.name.startswith("budget-spill") for t in threading.enumerate())


def test_an_error_in_any_writers_run_fails_the_next_call_and_abort_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(path: Path, table: pa.Table, key: str, batch_rows: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(sorted_part, "write_sorted_run", broken)
    budget = SpillBudget(1 << 20)
    rng = random.Random(2)
    first = SortedPartWriter(tmp_path / "a.parquet", SCHEMA, budget=budget)
    second = SortedPartWriter(tmp_path / "b.parquet", SCHEMA, budget=budget)
    with pytest.raises(OSError, match="disk full"):
        for step in range(40):
            first.add(_batch(rng, step, 100, 4000))
            second.add(_batch(rng, step, 100, 100))
        second.close()
    first.abort()
    second.abort()
    budget.close()
    assert list(tmp_path.iterdir()) == []


def test_a_writer_that_left_no_longer_counts(tmp_path: Path) -> None:
    budget = SpillBudget(1 << 20)
    rng = random.Random(5)
    kept = SortedPartWriter(tmp_path / "kept.parquet", SCHEMA, budget=budget)
    gone = SortedPartWriter(tmp_path / "gone.parquet", SCHEMA, budget=budget)
    gone.add(_batch(rng, 0, 50, 2000))
    assert budget.buffered_bytes() == gone.buffered_bytes > 0
    gone.abort()
    assert budget.buffered_bytes() == 0
    kept.add(_batch(rng, 0, 10, 100))
    assert kept.close() == 10
    budget.close()
    assert pq.read_table(tmp_path / "kept.parquet").num_rows == 10
