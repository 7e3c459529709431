"""The task contract shared by every engine's task runner: reporters, progress callbacks, failures.

See :mod:`gossamer.engine.task_runner` for how task sets run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

TaskProgressFn = Callable[[int, Any], None]
"""``progress(task_index, value)``: a progress value a task reported."""


class TaskReporter(Protocol):
    """What a task reports its progress through (the last argument of every task call)."""

    def report(self, value: Any) -> None:
        """Send one progress value to the driver (never blocks for long, never raises)."""
        ...


class NullReporter:
    """A reporter that drops every value (engines without live task progress)."""

    def report(self, value: Any) -> None:
        """Drop ``value``."""


class CallbackReporter:
    """A reporter for a task run in the driver's own process: values go straight to ``progress``."""

    def __init__(self, index: int, progress: TaskProgressFn | None) -> None:
        self.index, self.progress = index, progress

    def report(self, value: Any) -> None:
        """Pass ``value`` to the callback."""
        if self.progress is not None:
            self.progress(self.index, value)


class TaskFailed(RuntimeError):
    """A task raised, or its process died more often than ``engine.task.retries`` allows."""
