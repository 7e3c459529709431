"""The local engine's in-memory reduce: the same parts as the k-way merge, keys never split across batches."""

import random
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

from gossamer.engine import tasks
from gossamer.engine.api import SEQ_COLUMN, SRC_COLUMN
from gossamer.engine.sort import sort_table, write_run
from gossamer.engine.tasks import sorted_batches

from .test_engine import make_lines, run, text_job


def _run(keys: list[str], src: int, first_seq: int) -> pa.Table:
    n = len(keys)
    table = pa.table({"url": pa.array(keys, pa.string()), "value": pa.array(range(n), pa.int64()),
                      SRC_COLUMN: pa.array([src] * n, pa.int16()),
                      SEQ_COLUMN: pa.array(range(first_seq, first_seq + n), pa.int64())})
    return sort_table(table, "url")


@pytest.mark.parametrize("seed", range(6))
def test_runs_sorted_in_memory_come_in_key_order_in_batches_of_whole_keys(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    paths, everything = [], []
    for i in range(rng.randrange(1, 8)):  # runs of two inputs, several spills each, written in any order
        src, spill = i % 2, i // 2
        keys = [f"k{rng.randrange(60):03d}" for _ in range(rng.randrange(0, 200))]
        table = _run(keys, src, spill * 1000)
        path = tmp_path / f"run-{rng.random()}.arrow"
        write_run(path, table, 64)
        paths.append(path)
        everything.extend(zip(table.column("url").to_pylist(), table.column(SRC_COLUMN).to_pylist(),
                              table.column(SEQ_COLUMN).to_pylist(), strict=True))
    rows = rng.randrange(1, 50)
    seen: set[str] = set()
    merged = []
    for batch in sorted_batches(paths, _run([], 0, 0).schema, "url", rows):
        keys = batch.column("url").to_pylist()
        assert not seen & set(keys), "a key appeared in two batches"
        assert len(set(keys)) == 1 or batch.num_rows <= rows + max(keys.count(k) for k in keys)
        seen |= set(keys)
        merged.extend(zip(keys, batch.column(SRC_COLUMN).to_pylist(), batch.column(SEQ_COLUMN).to_pylist(),
                          strict=True))
    assert merged == sorted(everything)


def test_in_memory_reduce_writes_the_same_parts_as_the_merge(tmp_path: Path, monkeypatch) -> None:
    lines = tmp_path / "lines.txt"
    make_lines(lines, 30_000, 30)
    job = replace(text_job(lines), reduce_in_memory=True)
    settings = {"engine_memory_budget_mb": 1, "engine_local_workers": 1, "engine_batch_rows": 4096}
    in_memory, _ = run(job, tmp_path, **settings)
    monkeypatch.setattr(tasks, "fits_in_memory", lambda job, runs, budget: False)
    merged, _ = run(job, tmp_path, **settings)
    assert [p.read_bytes() for p in in_memory.part_paths()] == [p.read_bytes() for p in merged.part_paths()]


def test_runs_beyond_the_budget_are_merged_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "run.arrow"
    write_run(path, _run([f"k{i}" for i in range(5000)], 0, 0), 1000)
    budget = tasks.Budget(bytes_per_task=path.stat().st_size * tasks.IN_MEMORY_OVERHEAD, batch_rows=100,
                          row_group_rows=100, compression="zstd", error_limit=5)
    job = replace(text_job(tmp_path / "unused.txt"), reduce_in_memory=True)
    assert tasks.fits_in_memory(job, [path], budget)
    smaller = tasks.Budget(budget.bytes_per_task - 1, 100, 100, "zstd", 5)
    assert not tasks.fits_in_memory(job, [path], smaller)
    # a job that does not ask for it always merges (the crawl's own jobs: their task processes stay small)
    assert not tasks.fits_in_memory(text_job(tmp_path / "unused.txt"), [path], budget)


@pytest.mark.parametrize("in_memory", [True, False])
def test_reduce_batch_rows_caps_the_reduce_batches_and_changes_no_output(tmp_path: Path, in_memory: bool) -> None:
    lines = tmp_path / "lines.txt"
    make_lines(lines, 20_000, 30)
    sizes: list[int] = []
    base = replace(text_job(lines), reduce_in_memory=in_memory)

    def recording(batch: pa.RecordBatch, ctx: object) -> object:
        sizes.append(batch.num_rows)
        return base.reduce(batch, ctx)

    settings = {"engine_memory_budget_mb": 64 if in_memory else 1, "engine_local_workers": 1,
                "engine_batch_rows": 65536}
    whole, _ = run(base, tmp_path / "whole", **settings)
    capped, _ = run(replace(base, reduce=recording, reduce_batch_rows=500), tmp_path / "capped", **settings)
    assert [p.read_bytes() for p in whole.part_paths()] == [p.read_bytes() for p in capped.part_paths()]
    assert sizes and max(sizes) <= 500 + 200 and len(sizes) > base.parts  # a key's rows may run on (≤ 200 here)
