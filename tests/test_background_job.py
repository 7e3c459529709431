"""BackgroundJob: one job at a time on its own thread; a job's error reaches the caller, never lost."""

from __future__ import annotations

import threading

import pytest

from gossamer.engine import BackgroundJob


def test_a_new_job_waits_for_the_one_before_and_runs_on_another_thread() -> None:
    job, order, gate = BackgroundJob("t"), [], threading.Event()

    def first() -> None:
        gate.wait(5)
        order.append(("first", threading.current_thread().name))

    job.submit(first)
    assert job.busy()
    gate.set()
    job.submit(order.append, ("second", None))  # returns only after ``first`` is done
    job.wait()
    assert [name for name, _ in order] == ["first", "second"] and not job.busy()
    assert order[0][1].startswith("t") and order[0][1] != threading.current_thread().name
    job.stop()
    job.stop()  # twice is harmless


def test_a_failed_job_is_raised_by_the_next_wait_or_submit_and_dropped_by_discard() -> None:
    job = BackgroundJob("t")

    def boom() -> None:
        raise OSError("disk gone")

    job.submit(boom)
    with pytest.raises(OSError, match="disk gone"):
        job.wait()
    job.wait()  # raised once
    job.submit(boom)
    with pytest.raises(OSError, match="disk gone"):
        job.submit(print)
    job.submit(boom)
    job.discard()
    job.wait()
    job.stop()
