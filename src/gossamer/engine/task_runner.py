"""Sets of independent tasks: the engine's second kind of work, beside map/reduce jobs.

Some steps are not a shuffle but a handful of independent tasks that each own their
output: fetch (a task per share of hosts, so politeness holds across workers) and
parse (a task per group of WARC files).  :func:`run_tasks` runs such a set on the
engine the ``engine`` setting names, so the jobs are written once:

* ``engine=local``: one process per task (spawn), all at once; inside
  :func:`~gossamer.engine.reuse_task_processes` a process may serve a task of each later set
  (:mod:`gossamer.engine.task_pool`); a single task runs in this process;
* ``engine=spark``: one Spark task each (:func:`gossamer.engine.spark.run_tasks`).

Contract for a task function: a picklable module-level callable, called as
``function(*call, reporter)``.  It returns a picklable result (a report) and may call
``reporter.report(value)`` at any time with a small picklable progress value; the
job's ``progress(task_index, value)`` callback receives those values in the driver
(locally while the task runs; on Spark there is no live progress).  A task that
raises fails the whole set with its message; every other task is stopped.  A task
whose *process dies* (killed, crashed interpreter) is started again, up to
``engine.task.retries`` times, when the job says its tasks are ``retryable`` (they
rewrite their output from scratch); otherwise, or once the retries are used up, the
set fails with the task's name and exit code.  No task process outlives the call (outside
:func:`~gossamer.engine.reuse_task_processes`; inside, none outlives that scope).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from gossamer.core import Settings, SettingsError
from gossamer.engine.task_api import NullReporter, TaskProgressFn

R = TypeVar("R")


def default_task_count(settings: Settings, wanted: int) -> int:
    """``wanted`` when positive, else as many as run at once: the cores, or Spark's task slots."""
    if wanted > 0:
        return wanted
    if settings.get_str("engine") == "spark":
        from gossamer.engine.spark import task_slots

        return task_slots(settings)
    return os.cpu_count() or 1


def run_tasks(settings: Settings, name: str, function: Callable[..., R], calls: Sequence[tuple], *,
              progress: TaskProgressFn | None = None, retryable: bool = True) -> list[R]:
    """Run ``function(*call, reporter)`` for every call; the results in the order of ``calls``.

    See the module docstring for the contract.  ``name`` names the set in messages
    and process titles (``fetch 20261124…``).  Raises :class:`TaskFailed`.
    """
    engine = settings.get_str("engine")
    if engine == "local":
        from gossamer.engine.task_pool import run_local_tasks

        return run_local_tasks(settings, name, function, calls, progress, retryable)
    if engine == "spark":
        from gossamer.engine.spark import run_tasks as run_spark_tasks

        return run_spark_tasks(settings, name, _with_null_reporter(function), calls)
    raise SettingsError(f"engine={engine!r}: the engines are 'local' (embedded) and 'spark'")


class _with_null_reporter:  # noqa: N801 - a picklable stand-in for a lambda
    """``function`` called with a :class:`NullReporter` appended (Spark tasks have no live progress)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def __call__(self, *call: Any) -> Any:
        return self.function(*call, NullReporter())
