"""The local engine's task runner: a worker process per task, one message queue.

See :mod:`gossamer.engine.task_runner` for the contract.  Every task runs in a daemon
worker process started with the ``spawn`` method (no state inherited from the driver),
named ``gossamer-<set name>-<index>`` when started, that dies with the driver
(:func:`die_with_parent`: a killed driver leaves no task process fetching or writing on);
inside :func:`~gossamer.engine.task_workers.reuse_task_processes` the workers of a finished
set wait for the next one instead of ending (:mod:`gossamer.engine.task_workers`).  A task's
progress values and its result travel on one queue, so every value a task reported reaches
the job's callback before the task counts as done (two queues would race at the end).  The
driver relays progress values to the job's callback, restarts a task whose process died (when
the set is retryable and ``engine.task.retries`` allows) and, on any failure or interruption,
terminates every worker process of the set's pool before it returns or raises.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from gossamer.core import Settings
from gossamer.engine.task_api import CallbackReporter, TaskFailed, TaskProgressFn
from gossamer.engine.task_workers import PROGRESS, Worker, WorkerPool, die_with_parent, pool_for_set, read_outcome

__all__ = ["die_with_parent", "run_local_tasks"]

LOG = logging.getLogger(__name__)
R = TypeVar("R")
POLL_SECONDS = 0.25


def run_local_tasks(settings: Settings, name: str, function: Callable[..., R], calls: Sequence[tuple],
                    progress: TaskProgressFn | None, retryable: bool) -> list[R]:
    """Run the set on this machine (see the module docstring); a single task runs in this process."""
    if len(calls) == 1:
        try:
            return [function(*calls[0], CallbackReporter(0, progress))]
        except Exception as exc:
            raise TaskFailed(f"{name}: task 0 failed: {type(exc).__name__}: {exc}") from exc
    with pool_for_set() as pool:
        return _Supervisor(settings, name, function, calls, progress, retryable, pool).run()


class _Supervisor:
    """Starts, watches, restarts and stops the tasks of one task set on a worker pool."""

    def __init__(self, settings: Settings, name: str, function: Callable[..., Any], calls: Sequence[tuple],
                 progress: TaskProgressFn | None, retryable: bool, pool: WorkerPool) -> None:
        self.name, self.function, self.calls, self.progress = name, function, calls, progress
        self.retries_left = settings.get_int("engine.task.retries") if retryable else 0
        self.pool = pool
        self.messages = pool.messages
        self.workers: dict[int, Worker] = {}
        self.done: dict[int, Any] = {}

    def _label(self, index: int) -> str:
        return f"gossamer-{self.name.split()[0]}-{index}"

    def _start(self, index: int) -> None:
        worker = self.pool.take(self._label(index))
        worker.run(self.function, self.calls[index], index, self.pool.keep)
        self.workers[index] = worker

    def run(self) -> list[Any]:
        try:
            for index in range(len(self.calls)):
                self._start(index)
            while len(self.done) < len(self.calls):
                self._receive()
                self._check_dead()
        except BaseException:
            self.pool.close(list(self.workers.values()))
            raise
        self.pool.give_back(list(self.workers.values()))
        return [self.done[index] for index in range(len(self.calls))]

    def _receive(self) -> None:
        """Handle the queued messages, waiting up to POLL_SECONDS for the first."""
        try:
            message = self.messages.get(timeout=POLL_SECONDS)
        except queue.Empty:
            return
        while True:
            self._handle(*message)
            try:
                message = self.messages.get_nowait()
            except queue.Empty:
                return

    def _handle(self, kind: str, index: int, payload: Any) -> None:
        if kind == PROGRESS:
            if self.progress is not None:
                self.progress(index, payload)
            return
        result, error = read_outcome(payload)
        if error:
            raise TaskFailed(f"{self.name}: task {index} failed: {error}")
        self.done[index] = result

    def _check_dead(self) -> None:
        for index, worker in list(self.workers.items()):
            process = worker.process
            if index in self.done or process.is_alive() or not self.messages.empty():
                continue
            process.join()
            message = f"{self.name}: task {index} ({self._label(index)}) died (exit code {process.exitcode})"
            if self.retries_left <= 0:
                raise TaskFailed(message)
            self.retries_left -= 1
            LOG.warning("%s; starting it again (%d retries left)", message, self.retries_left)
            self._start(index)
