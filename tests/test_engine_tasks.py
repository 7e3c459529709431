"""Sets of independent tasks on the local engine: real spawned processes, progress, failures, retries."""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pytest

from gossamer.core.settings import Settings
from gossamer.engine import TaskFailed, default_task_count, reuse_task_processes, run_tasks
from gossamer.engine.memory import CRAWL_ALLOCATOR_ENV

from .engine_jobs import (
    arrow_pool_task,
    dies_once_task,
    environment_task,
    failing_task,
    record_pid_and_sleep,
    square_task,
    unpicklable_task,
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_results_come_back_in_call_order_from_separate_processes() -> None:
    seen: dict[int, list[int]] = {}
    results = run_tasks(Settings(), "square", square_task, [(v,) for v in (3, 1, 2)],
                        progress=lambda index, value: seen.setdefault(index, []).append(value))
    assert [square for square, _ in results] == [9, 1, 4]
    pids = {pid for _, pid in results}
    assert len(pids) == 3 and os.getpid() not in pids
    assert seen == {0: [3, 30], 1: [1, 10], 2: [2, 20]}


def test_a_single_task_runs_in_this_process() -> None:
    seen: list[tuple[int, int]] = []
    [(square, pid)] = run_tasks(Settings(), "one", square_task, [(5,)], progress=lambda i, v: seen.append((i, v)))
    assert square == 25 and pid == os.getpid() and seen == [(0, 5), (0, 50)]


def test_a_task_that_raises_fails_the_set_with_its_message() -> None:
    with pytest.raises(TaskFailed, match=r"fail: task 1 failed: ValueError: bad input 1"):
        run_tasks(Settings(), "fail", failing_task, [(0,), (1,), (2,)])


def test_a_task_whose_process_dies_is_started_again(tmp_path: Path) -> None:
    results = run_tasks(Settings(), "retry", dies_once_task, [(v, str(tmp_path)) for v in range(3)])
    assert results == [0, 1, 2]
    assert (tmp_path / "attempt-1").exists()  # the first attempt did die


def test_without_retries_a_dead_process_fails_the_set_cleanly(tmp_path: Path) -> None:
    settings = Settings().with_values([("engine.task.retries", 0)], "test")
    with pytest.raises(TaskFailed, match=r"task 1 \(gossamer-noretry-1\) died \(exit code -9\)"):
        run_tasks(settings, "noretry", dies_once_task, [(v, str(tmp_path)) for v in range(3)])
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    with pytest.raises(TaskFailed, match="died"):  # a set may refuse retries whatever the setting (fetch)
        run_tasks(Settings(), "fetch", dies_once_task, [(v, str(fresh)) for v in range(2)], retryable=False)


def test_no_task_process_outlives_a_failed_set(tmp_path: Path) -> None:
    with pytest.raises(TaskFailed, match="stop the others"):
        run_tasks(Settings(), "stop", record_pid_and_sleep, [(v, str(tmp_path)) for v in range(3)])
    pids = [int((tmp_path / f"pid-{v}").read_text()) for v in range(3)]
    assert not any(_alive(pid) for pid in pids)


def test_default_task_count_is_the_setting_or_the_cores() -> None:
    assert default_task_count(Settings(), 3) == 3
    assert default_task_count(Settings(), 0) == (os.cpu_count() or 1)


def test_inside_reuse_task_processes_later_sets_run_on_the_same_processes_which_end_with_the_scope() -> None:
    with reuse_task_processes():
        first = {pid for _, pid in run_tasks(Settings(), "one", square_task, [(1,), (2,)])}
        second = run_tasks(Settings(), "two", square_task, [(3,), (4,)])
        assert [square for square, _ in second] == [9, 16]
        assert {pid for _, pid in second} == first and len(first) == 2
        assert all(_alive(pid) for pid in first)
    assert not any(_alive(pid) for pid in first)


def test_a_failed_set_inside_reuse_task_processes_ends_the_kept_processes_and_the_next_set_starts_fresh() -> None:
    with reuse_task_processes():
        kept = {pid for _, pid in run_tasks(Settings(), "one", square_task, [(1,), (2,)])}
        with pytest.raises(TaskFailed, match="bad input 1"):
            run_tasks(Settings(), "fail", failing_task, [(0,), (1,), (2,)])
        assert not any(_alive(pid) for pid in kept)
        fresh = run_tasks(Settings(), "again", square_task, [(5,), (6,)])
        assert [square for square, _ in fresh] == [25, 36]
        assert not kept & {pid for _, pid in fresh}


@pytest.mark.parametrize("kept", [False, True])
def test_a_task_whose_result_cannot_be_pickled_fails_the_set_instead_of_hanging(kept: bool) -> None:
    def run() -> None:
        with pytest.raises(TaskFailed, match="task 1 failed: the result of unpicklable_task cannot be pickled"):
            run_tasks(Settings(), "locks", unpicklable_task, [(0,), (1,), (2,)])
        assert [v for v, _ in run_tasks(Settings(), "after", square_task, [(2,), (3,)])] == [4, 9]

    if kept:
        with reuse_task_processes():
            run()
    else:
        run()


def test_processes_of_a_crawl_get_the_allocator_settings_unless_the_environment_has_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    names = tuple(CRAWL_ALLOCATOR_ENV)
    for name in names:
        monkeypatch.delenv(name, raising=False)
    with reuse_task_processes():
        [seen] = run_tasks(Settings(), "env", environment_task, [(names,)])
        [pool] = run_tasks(Settings(), "pool", arrow_pool_task, [()])
    assert seen == CRAWL_ALLOCATOR_ENV and seen["ARROW_DEFAULT_MEMORY_POOL"] == "system"
    assert pool == "system"  # pyarrow in the task process read the setting
    assert not any(name in os.environ for name in names)  # the driver's environment is left as it was
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "mimalloc")
    with reuse_task_processes():
        [seen] = run_tasks(Settings(), "env", environment_task, [(names,)])
        [pool] = run_tasks(Settings(), "pool", arrow_pool_task, [()])
    assert seen == {**CRAWL_ALLOCATOR_ENV, "MALLOC_ARENA_MAX": "4", "ARROW_DEFAULT_MEMORY_POOL": "mimalloc"}
    assert pool == "mimalloc"
    assert os.environ["MALLOC_ARENA_MAX"] == "4" and "MIMALLOC_PURGE_DELAY" not in os.environ


def test_a_crawl_driver_uses_the_system_pool_within_and_its_own_pool_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
    before = pa.default_memory_pool().backend_name
    with reuse_task_processes():
        assert pa.default_memory_pool().backend_name == "system"
        table = pa.table({"n": list(range(100_000))})  # a buffer of the system pool
    assert pa.default_memory_pool().backend_name == before
    assert table.column("n")[99_999].as_py() == 99_999  # still readable after the pool changed back
    monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", before)
    with reuse_task_processes():
        assert pa.default_memory_pool().backend_name == before  # the environment chose: left alone

