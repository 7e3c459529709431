"""engine.memory.pool: the Arrow pool of the local engine's jobs, unless the environment names one."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

from gossamer.engine import Input, TaskContext, TextSource
from gossamer.engine.memory import POOLS, arrow_pool, job_memory_pool

from . import engine_jobs
from .test_engine import make_lines, read_all, run, text_job


@pytest.fixture(autouse=True)
def _no_pool_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)


@pytest.mark.parametrize("name", POOLS)
def test_the_named_pool_is_the_default_within_and_the_previous_one_after(name: str) -> None:
    pool = arrow_pool(name)
    if pool is None:
        pytest.skip(f"this pyarrow has no {name} pool")
    before = pa.default_memory_pool().backend_name
    with job_memory_pool(name):
        assert pa.default_memory_pool().backend_name == pool.backend_name
        assert pa.array(["x"] * 1000).to_pylist()[-1] == "x"
    assert pa.default_memory_pool().backend_name == before


def test_an_empty_name_keeps_pyarrows_default() -> None:
    before = pa.default_memory_pool().backend_name
    with job_memory_pool(""):
        assert pa.default_memory_pool().backend_name == before
    assert arrow_pool("") is None and arrow_pool("no-such-pool") is None


def test_the_environment_wins_over_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")
    before = pa.default_memory_pool().backend_name
    with job_memory_pool("jemalloc" if arrow_pool("jemalloc") else "system"):
        assert pa.default_memory_pool().backend_name == before


def test_the_pool_comes_back_when_the_body_raises() -> None:
    before = pa.default_memory_pool().backend_name
    with pytest.raises(RuntimeError), job_memory_pool("system"):
        raise RuntimeError("boom")
    assert pa.default_memory_pool().backend_name == before


def pool_counting_map(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """``map_lines``, counting the Arrow pool each batch is mapped on."""
    ctx.count(f"pool_{pa.default_memory_pool().backend_name}")
    yield from engine_jobs.map_lines(batch, ctx)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_jobs_map_tasks_run_on_the_configured_pool(tmp_path: Path, workers: int) -> None:
    lines = tmp_path / "lines.txt"
    expected = make_lines(lines, 3_000, 10)
    job = replace(text_job(lines), inputs=[Input(TextSource((str(lines),), split_bytes=16 * 1024), pool_counting_map)])
    version, result = run(job, tmp_path, engine_memory_pool="system", engine_local_workers=workers,
                          engine_local_inline_mb=0)
    assert set(result.counters) >= {"pool_system"} and not any(
        name.startswith("pool_") and name != "pool_system" for name in result.counters)
    assert read_all(version) == dict(expected)
