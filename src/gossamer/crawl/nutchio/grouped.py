"""Many small tasks as a few engine tasks: :func:`run_grouped`.

A Nutch crawl has many small parts (a task each would start a process each), so the calls
are dealt round-robin into as many groups as the engine runs at once
(``engine.local.workers``, 0 = one per core; Spark: its task slots) and each group runs as
one task of :func:`~gossamer.engine.run_tasks`.  Results come back in the order of the calls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from gossamer.core import Settings
from gossamer.engine import TaskReporter, default_task_count, run_tasks


class _Batch:
    """A picklable task running ``function`` over a group of calls."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function

    def __call__(self, calls: list[tuple[Any, ...]], reporter: TaskReporter) -> list[Any]:
        return [self.function(*call, reporter) for call in calls]


def run_grouped(settings: Settings, name: str, function: Callable[..., Any],
                calls: Sequence[tuple[Any, ...]]) -> list[Any]:
    """``function(*call, reporter)`` for every call, in at most as many tasks as run at once; results in order."""
    if not calls:
        return []
    groups = max(1, min(len(calls), default_task_count(settings, settings.get_int("engine.local.workers"))))
    dealt = [list(calls[i::groups]) for i in range(groups)]
    results = run_tasks(settings, name, _Batch(function), [(group,) for group in dealt])
    ordered: list[Any] = [None] * len(calls)
    for i, group_results in enumerate(results):
        for j, result in enumerate(group_results):
            ordered[i + j * groups] = result
    return ordered
