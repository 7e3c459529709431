"""The local engine's task runner: one spawned process per task, one message queue.

See :mod:`gossamer.engine.task_runner` for the contract.  Every task process is a
daemon started with the ``spawn`` method (no state inherited from the driver) and
named ``gossamer-<set name>-<index>``, and dies with the driver (:func:`die_with_parent`:
a killed driver leaves no task process fetching or writing on).  A task's progress values and its result travel
on one queue, so every value a task reported reaches the job's callback before the
task counts as done (two queues would race at the end).  The driver relays progress
values to the job's callback, restarts a task whose process died (when the
set is retryable and ``engine.task.retries`` allows) and, on any failure or
interruption, terminates every task process before it returns or raises.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from gossamer.core import Settings
from gossamer.engine.task_api import CallbackReporter, TaskFailed, TaskProgressFn

LOG = logging.getLogger(__name__)
R = TypeVar("R")
POLL_SECONDS = 0.25
PR_SET_PDEATHSIG = 1
EXIT_ORPHANED = 70
"""Exit status of a task process whose driver died."""


class QueueReporter:
    """A task process's reporter: values go to the driver through the set's queue."""

    def __init__(self, index: int, messages: Any) -> None:
        self.index, self.messages = index, messages

    def report(self, value: Any) -> None:
        """Queue ``(PROGRESS, index, value)`` for the driver."""
        self.messages.put((PROGRESS, self.index, value))


PROGRESS, RESULT = "progress", "result"


def die_with_parent(parent_pid: int) -> None:
    """End this process when ``parent_pid`` (the driver) dies, however it dies (``kill -9`` too).

    On Linux the kernel sends SIGKILL at the parent's death (``PR_SET_PDEATHSIG``); everywhere
    a daemon thread also checks once a second that the parent is still this process's parent.
    A parent already gone when this runs ends the process at once.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(EXIT_ORPHANED)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="gossamer-parent-watch", daemon=True).start()


def _task_main(function: Callable[..., Any], call: tuple, index: int, messages: Any, parent_pid: int) -> None:
    """Body of a task process: run the task, queue ``(RESULT, index, (result, error))``."""
    die_with_parent(parent_pid)
    try:
        messages.put((RESULT, index, (function(*call, QueueReporter(index, messages)), "")))
    except BaseException as exc:  # noqa: BLE001 - reported to the driver, which fails the set
        messages.put((RESULT, index, (None, f"{type(exc).__name__}: {exc}")))


def run_local_tasks(settings: Settings, name: str, function: Callable[..., R], calls: Sequence[tuple],
                    progress: TaskProgressFn | None, retryable: bool) -> list[R]:
    """Run the set on this machine (see the module docstring); a single task runs in this process."""
    if len(calls) == 1:
        try:
            return [function(*calls[0], CallbackReporter(0, progress))]
        except Exception as exc:
            raise TaskFailed(f"{name}: task 0 failed: {type(exc).__name__}: {exc}") from exc
    return _Supervisor(settings, name, function, calls, progress, retryable).run()


class _Supervisor:
    """Starts, watches, restarts and stops the processes of one task set."""

    def __init__(self, settings: Settings, name: str, function: Callable[..., Any], calls: Sequence[tuple],
                 progress: TaskProgressFn | None, retryable: bool) -> None:
        self.name, self.function, self.calls, self.progress = name, function, calls, progress
        self.retries_left = settings.get_int("engine.task.retries") if retryable else 0
        self.context = multiprocessing.get_context("spawn")
        self.messages = self.context.Queue()
        self.processes: dict[int, BaseProcess] = {}
        self.done: dict[int, Any] = {}

    def _start(self, index: int) -> None:
        process = self.context.Process(
            target=_task_main, name=f"gossamer-{self.name.split()[0]}-{index}", daemon=True,
            args=(self.function, self.calls[index], index, self.messages, os.getpid()))
        process.start()
        self.processes[index] = process

    def run(self) -> list[Any]:
        try:
            for index in range(len(self.calls)):
                self._start(index)
            while len(self.done) < len(self.calls):
                self._receive()
                self._check_dead()
        finally:
            self._stop()
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
        result, error = payload
        if error:
            raise TaskFailed(f"{self.name}: task {index} failed: {error}")
        self.done[index] = result

    def _check_dead(self) -> None:
        for index, process in list(self.processes.items()):
            if index in self.done or process.is_alive() or not self.messages.empty():
                continue
            process.join()
            message = f"{self.name}: task {index} ({process.name}) died (exit code {process.exitcode})"
            if self.retries_left <= 0:
                raise TaskFailed(message)
            self.retries_left -= 1
            LOG.warning("%s; starting it again (%d retries left)", message, self.retries_left)
            self._start(index)

    def _stop(self) -> None:
        for index, process in self.processes.items():
            if process.is_alive() and index not in self.done:
                process.terminate()
        for process in self.processes.values():
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
