"""Engine jobs inside a crawl run on the crawl's kept task processes (``engine/kept_executor.py``)."""

from __future__ import annotations

from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from gossamer.core.settings import Settings
from gossamer.engine import reuse_task_processes, run_tasks
from gossamer.engine.kept_executor import kept_executor

from .engine_jobs import exit_process, pid_and_square, raise_lookup_error, square_task, unpicklable_result
from .test_engine import make_lines, read_all, run, text_job


def _kept_pids() -> set[int]:
    """Start (or reuse) the scope's two kept processes with a task set; their process ids."""
    return {pid for _, pid in run_tasks(Settings(), "warm", square_task, [(1,), (2,)])}


def _lendable() -> bool:
    """Whether the scope's processes can be lent now (given back at once)."""
    executor = kept_executor(2)
    if executor is None:
        return False
    with executor:
        return True


def test_outside_a_crawl_there_is_no_kept_executor() -> None:
    assert kept_executor(2) is None


def test_calls_run_on_the_kept_processes_and_they_stay_kept() -> None:
    with reuse_task_processes():
        kept = _kept_pids()
        with kept_executor(2) as executor:
            futures = [executor.submit(pid_and_square, n) for n in range(7)]
            results = [future.result() for future in futures]
        assert [square for square, _ in results] == [n * n for n in range(7)]
        assert {pid for _, pid in results} <= kept  # no process started for the calls
        assert _kept_pids() == kept  # handed back: the next set uses them again


def test_a_second_borrower_gets_none_while_the_processes_are_lent() -> None:
    with reuse_task_processes():
        with kept_executor(2) as executor:
            assert kept_executor(2) is None
            assert executor.submit(pid_and_square, 3).result()[0] == 9
        assert _lendable()


def test_a_failed_call_keeps_its_exception_type_and_the_processes_are_replaced() -> None:
    with reuse_task_processes():
        kept = _kept_pids()
        with pytest.raises(LookupError, match="no such value 5"):
            with kept_executor(2) as executor:
                executor.submit(raise_lookup_error, 5).result()
        fresh = _kept_pids()
        assert not fresh & kept  # a failed job's processes are ended; the next set starts new ones


def test_a_result_that_cannot_be_pickled_fails_its_call_instead_of_hanging() -> None:
    with reuse_task_processes():
        with pytest.raises(RuntimeError, match="cannot be pickled"):
            with kept_executor(2) as executor:
                executor.submit(unpicklable_result, 1).result(timeout=60)


def test_a_process_that_dies_fails_its_call_and_the_job() -> None:
    with reuse_task_processes():
        with pytest.raises(BrokenProcessPool, match="exit code 3"):
            with kept_executor(2) as executor:
                executor.submit(exit_process, 3).result(timeout=60)
        assert [square for square, _ in run_tasks(Settings(), "after", square_task, [(3,), (4,)])] == [9, 16]


def test_an_engine_job_in_a_crawl_gives_the_same_parts(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    expected = make_lines(lines, 20_000, 30)
    job = text_job(lines)
    settings = {"engine_local_workers": 2, "engine_local_inline_mb": 0, "engine_memory_budget_mb": 1}
    alone, alone_result = run(job, tmp_path, **settings)
    with reuse_task_processes():
        _kept_pids()
        kept, result = run(job, tmp_path, **settings)
        assert _lendable()  # given back after the job
    assert read_all(kept) == dict(expected)
    assert [p.read_bytes() for p in kept.part_paths()] == [p.read_bytes() for p in alone.part_paths()]
    assert result.counters == alone_result.counters  # the garbage lines counted in the kept processes too
    assert result.counters["errors"] == 21
