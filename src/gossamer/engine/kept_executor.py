"""An :class:`~concurrent.futures.Executor` over the kept task processes of a crawl.

Inside :func:`~gossamer.engine.task_workers.reuse_task_processes` (a crawl's rounds) the
fetch processes wait idle while the driver runs the round's engine jobs (updatedb, and the
like).  :func:`kept_executor` lends those processes to a job instead of starting a
``ProcessPoolExecutor`` of new ones: no process start-up per job (~0.3–0.8 s of CPU each), and
no second set of processes beside the idle ones (in a polite crawl of 5,000 hosts the peak
came when updatedb's two new processes ran beside the two idle fetch processes).

Contract (what the local engine relies on, as with ``ProcessPoolExecutor``):

* ``submit(fn, *args)`` returns a future; calls run in at most ``workers`` processes at once,
  in submission order as processes free up; ``fn``, its arguments and its result are pickled.
* A call that raises sets that exception on its future, with its type (an exception that
  cannot be pickled arrives as a :class:`RuntimeError` with its text, and so does a result that
  cannot be pickled).
* A process that dies while running a call fails that call's future and every later one with
  :class:`~concurrent.futures.process.BrokenProcessPool`.
* Leaving the ``with`` block normally waits for every call, then hands the processes back to the
  crawl's pool; leaving it with an exception (or after a failed call) ends the processes and
  the crawl's pool starts fresh ones for its next set (a process stopped mid-call could hold a
  half-written file).  ``shutdown`` without the ``with`` block behaves like a normal exit.
"""

from __future__ import annotations

import pickle
import queue
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Executor, Future
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any

from gossamer.engine.task_workers import (
    PROGRESS,
    Worker,
    WorkerPool,
    borrow_shared_pool,
    read_outcome,
    return_shared_pool,
)

POLL_SECONDS = 0.25


def call_plain(function: Callable[..., Any], args: tuple, reporter: Any) -> tuple[bool, Any]:
    """Run ``function(*args)`` in a worker: ``(True, result)`` or ``(False, exception)``.

    An exception that cannot be pickled is replaced by a :class:`RuntimeError` with its text; a
    result that cannot be pickled fails the call in the worker (:mod:`~gossamer.engine.task_workers`).
    """
    try:
        return True, function(*args)
    except Exception as exc:  # noqa: BLE001 - handed to the driver's future with its type
        return False, exc if _picklable(exc) else RuntimeError(f"{type(exc).__name__}: {exc}")


def _picklable(value: object) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # noqa: BLE001 - whatever stops pickling
        return False
    return True


class KeptExecutor(Executor):
    """Runs calls on ``workers`` processes of a crawl's kept pool (see the module docstring)."""

    def __init__(self, pool: WorkerPool, workers: int) -> None:
        self._pool = pool
        self._size = workers
        self._workers: list[Worker] = []
        self._free: list[Worker] = []
        self._running: dict[int, tuple[Worker, Future[Any]]] = {}
        self._pending: deque[tuple[int, Callable[..., Any], tuple, Future[Any]]] = deque()
        self._next_index = 0
        self._lock = threading.Lock()
        self._broken: str | None = None
        self._failed = False
        self._closed = False
        self._stopping = False
        self._thread = threading.Thread(target=self._collect, name="kept-executor", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Queue ``fn(*args)`` (keyword arguments are not supported, as the worker protocol has none)."""
        if kwargs:
            raise TypeError("KeptExecutor.submit takes positional arguments only")
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit after shutdown")
            if self._broken:
                future.set_exception(BrokenProcessPool(self._broken))
                return future
            self._pending.append((self._next_index, fn, args, future))
            self._next_index += 1
            self._dispatch()
        return future

    def _dispatch(self) -> None:
        """Start pending calls on free processes (a new one while fewer than ``workers``); holds the lock."""
        while self._pending:
            if self._free:
                worker = self._free.pop()
            elif len(self._workers) < self._size:
                worker = self._pool.take(f"gossamer-job-{len(self._workers)}")
                self._workers.append(worker)
            else:
                return
            index, fn, args, future = self._pending.popleft()
            if not future.set_running_or_notify_cancel():
                self._free.append(worker)
                continue
            self._running[index] = (worker, future)
            worker.run(call_plain, (fn, args), index, keep=True)

    def _collect(self) -> None:
        """Background thread: results to futures, dead processes to failures, until shut down."""
        while True:
            with self._lock:
                if self._stopping or (self._closed and not self._running):
                    return
            try:
                kind, index, payload = self._pool.messages.get(timeout=POLL_SECONDS)
            except queue.Empty:
                self._check_dead()
                continue
            except (OSError, EOFError, ValueError):  # the queue was closed under us
                return
            if kind == PROGRESS:
                continue
            with self._lock:
                if index not in self._running:  # a call already failed as its process died
                    continue
                worker, future = self._running.pop(index)
                self._free.append(worker)
                outcome, error = read_outcome(payload)
                ok, value = (False, RuntimeError(error)) if error else outcome
                if ok:
                    future.set_result(value)
                else:
                    self._failed = True
                    future.set_exception(value)
                self._dispatch()

    def _check_dead(self) -> None:
        with self._lock:
            dead = [(index, future) for index, (worker, future) in self._running.items()
                    if not worker.process.is_alive()]
            if not dead or not self._pool.messages.empty():
                return
            self._broken = f"a kept task process died (exit code {self._running[dead[0][0]][0].process.exitcode})"
            self._failed = True
            for index, future in dead:
                del self._running[index]
                future.set_exception(BrokenProcessPool(self._broken))
            for _, _, _, future in self._pending:
                future.set_exception(BrokenProcessPool(self._broken))
            self._pending.clear()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Wait for the calls (unless failed), then hand the processes back or end them."""
        self._finish(failed=cancel_futures)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> bool | None:
        self._finish(failed=exc_type is not None)
        return None

    def _finish(self, failed: bool) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            failed = failed or self._failed or self._broken is not None
            if failed:
                for _, _, _, future in self._pending:
                    future.cancel()
                self._pending.clear()
        if failed:
            with self._lock:
                self._stopping = True
            self._pool.close(self._workers)  # ends them at once: a call stopped midway leaves nothing in use
            self._thread.join()
            return_shared_pool(self._pool, failed=True)
            return
        self._thread.join()
        self._pool.give_back(self._workers)
        return_shared_pool(self._pool, failed=False)


def kept_executor(workers: int) -> KeptExecutor | None:
    """An executor on the crawl's kept processes, or None outside a crawl or while they are in use."""
    pool = borrow_shared_pool()
    return None if pool is None else KeptExecutor(pool, workers)
