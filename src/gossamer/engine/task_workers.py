"""The local engine's task processes, and keeping them for the next task set (:func:`reuse_task_processes`).

A worker is a spawned daemon process running :func:`_worker_main`: it takes
``(function, call, index, keep)`` items from its own inbox, runs ``function(*call, reporter)``,
puts its progress values and then ``(RESULT, index, outcome)`` on its pool's message queue, and
ends at ``None``.  The outcome is ``(result, error)`` pickled by the worker itself
(:func:`read_outcome` reads it): a result that cannot be pickled becomes an error there, where the
queue's feeder thread would have dropped the message and left the driver waiting for it forever.
It dies with the driver (:func:`die_with_parent`).

Outside :func:`reuse_task_processes` a task set gets a pool of its own and every worker ends
with its task (as "one process per task": no task process outlives the set).  Inside it (the
``crawl`` command's rounds), a worker that finished its task waits for the next set started by
this process: a crawl of R rounds starts its fetch processes once instead of R times (a spawned
process's start-up — interpreter, pyarrow, aiohttp, plugins — is ~0.3–0.8 s of CPU).  A kept
worker hands its free memory back between tasks (:func:`~gossamer.engine.memory.return_free_memory`).
A set that fails or is interrupted ends every worker of the pool and drops its queue (a worker
stopped in the middle of a message could leave the queue unusable); the next set starts fresh
workers.  Leaving the scope ends all of them.  A set started while another set of the same
pool runs (another thread) gets a pool of its own.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any

from gossamer.core import die_with_parent

PROGRESS, RESULT = "progress", "result"


class QueueReporter:
    """A task process's reporter: values go to the driver through the pool's queue."""

    def __init__(self, index: int, messages: Any) -> None:
        self.index, self.messages = index, messages

    def report(self, value: Any) -> None:
        """Queue ``(PROGRESS, index, value)`` for the driver."""
        self.messages.put((PROGRESS, self.index, value))


def _pickled_outcome(function: Callable[..., Any], call: tuple, reporter: QueueReporter) -> bytes:
    """``(result, "")`` or ``(None, error text)`` of ``function(*call, reporter)``, pickled; never raises."""
    try:
        outcome = (function(*call, reporter), "")
    except BaseException as exc:  # noqa: BLE001 - reported to the driver, which fails the set
        outcome = (None, f"{type(exc).__name__}: {exc}")
    try:
        return pickle.dumps(outcome, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # noqa: BLE001 - whatever stops pickling
        name = getattr(function, "__name__", repr(function))
        return pickle.dumps((None, f"the result of {name} cannot be pickled: {type(exc).__name__}: {exc}"))


def read_outcome(payload: bytes) -> tuple[Any, str]:
    """A worker's ``(result, error)`` from its pickled outcome; one that cannot be read is an error."""
    try:
        return pickle.loads(payload)
    except Exception as exc:  # noqa: BLE001 - e.g. an exception class whose constructor differs
        return None, f"the result cannot be unpickled: {type(exc).__name__}: {exc}"


def _worker_main(inbox: Any, messages: Any, parent_pid: int) -> None:
    """Body of a worker: run the inbox's tasks until ``None``, each result queued after its progress."""
    die_with_parent(parent_pid)
    while (item := inbox.get()) is not None:
        function, call, index, keep = item
        outcome = _pickled_outcome(function, call, QueueReporter(index, messages))
        messages.put((RESULT, index, outcome))
        del item, function, call, outcome
        if keep:  # what is alive now (modules, plugins, caches) lives on: later collections skip it
            from gossamer.engine.memory import return_free_memory

            return_free_memory()
            gc.freeze()


@dataclass
class Worker:
    """One worker process and its inbox."""

    process: BaseProcess
    inbox: Any

    def run(self, function: Callable[..., Any], call: tuple, index: int, keep: bool) -> None:
        """Hand the worker a task; unless ``keep``, the worker ends after it."""
        self.inbox.put((function, call, index, keep))
        if not keep:
            self.inbox.put(None)


class WorkerPool:
    """Workers of one message queue; ``keep``: finished workers wait for the next set."""

    def __init__(self, keep: bool) -> None:
        self.keep = keep
        self.context = multiprocessing.get_context("spawn")
        self.messages = self.context.Queue()
        self.idle: list[Worker] = []
        self.busy = threading.Lock()

    def take(self, name: str) -> Worker:
        """An idle worker, else a new one named ``name``."""
        while self.idle:
            worker = self.idle.pop()
            if worker.process.is_alive():
                return worker
        inbox = self.context.SimpleQueue()
        process = self.context.Process(target=_worker_main, name=name, daemon=True,
                                       args=(inbox, self.messages, os.getpid()))
        process.start()
        return Worker(process, inbox)

    def give_back(self, workers: list[Worker]) -> None:
        """Workers whose task is done: kept idle, or (without ``keep``) waited for as they end."""
        if self.keep:
            self.idle.extend(workers)
            return
        _end([w.process for w in workers], terminate=False)

    def close(self, workers: list[Worker]) -> None:
        """End ``workers`` and every idle worker at once (their tasks are abandoned); the queue too."""
        processes = [w.process for w in [*workers, *self.idle]]
        self.idle = []
        _end(processes, terminate=True)
        self.messages.close()

    def shutdown(self) -> None:
        """Let the idle workers end, then stop any that did not."""
        for worker in self.idle:
            worker.inbox.put(None)
        processes = [w.process for w in self.idle]
        self.idle = []
        _end(processes, terminate=False)
        self.messages.close()


def _end(processes: list[BaseProcess], terminate: bool) -> None:
    """Terminate (when ``terminate``) and join ``processes``; any still alive after 5 s is killed."""
    if terminate:
        for process in processes:
            if process.is_alive():
                process.terminate()
    for process in processes:
        process.join(timeout=5)
        if process.is_alive():
            process.kill()
            process.join(timeout=5)


_SHARED: list[WorkerPool] = []
"""The pool of the innermost :func:`reuse_task_processes` scope (empty outside any)."""


@contextmanager
def reuse_task_processes() -> Iterator[None]:
    """Within: task sets of the local engine started by this process share workers (see the module docstring).

    Within, this process and the processes it starts use a crawl's allocators
    (:func:`~gossamer.engine.memory.crawl_allocators`).
    """
    if _SHARED:
        yield
        return
    _SHARED.append(WorkerPool(keep=True))
    try:
        from gossamer.engine.memory import crawl_allocators  # pyarrow: not for every importer of this module

        with crawl_allocators():
            yield
    finally:
        _SHARED.pop().shutdown()


def borrow_shared_pool() -> WorkerPool | None:
    """The innermost :func:`reuse_task_processes` scope's pool, reserved, or None (outside any, or in use).

    Give it back with :func:`return_shared_pool`.
    """
    shared = _SHARED[0] if _SHARED else None
    if shared is None or not shared.busy.acquire(blocking=False):
        return None
    return shared


def return_shared_pool(pool: WorkerPool, failed: bool) -> None:
    """Release a pool :func:`borrow_shared_pool` gave; ``failed``: its workers were ended, start fresh ones."""
    if failed and _SHARED and _SHARED[0] is pool:
        _SHARED[0] = WorkerPool(keep=True)
    pool.busy.release()


@contextmanager
def pool_for_set() -> Iterator[WorkerPool]:
    """The pool a task set uses: the shared one when it is free, else one of its own.

    The caller calls :meth:`WorkerPool.close` on failure; a failed shared pool is replaced.
    """
    shared = _SHARED[0] if _SHARED else None
    if shared is None or not shared.busy.acquire(blocking=False):
        own = WorkerPool(keep=False)
        try:
            yield own
        finally:
            own.messages.close()
        return
    try:
        yield shared
    except BaseException:
        _SHARED[0] = WorkerPool(keep=True)
        raise
    finally:
        shared.busy.release()
