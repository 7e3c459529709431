"""One job at a time on a thread of its own: the caller goes on while the job (a spill, a sync) runs.

:class:`BackgroundJob` is what a writer uses to move one blocking step off its caller's thread
(an event loop, a producer) while keeping the step bounded: a new job first waits for the one
before it, and that job's error is raised to the caller there — never lost.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class BackgroundJob:
    """A single worker thread (started on the first job) running at most one job at a time.

    :meth:`submit` waits for the job before (raising its error), then starts the new one;
    :meth:`wait` waits for the running job and raises its error; :meth:`discard` waits and drops
    it; :meth:`stop` ends the thread (after the running job).  Not thread-safe: one owner calls it.
    """

    def __init__(self, thread_name: str) -> None:
        self.thread_name = thread_name
        self._executor: ThreadPoolExecutor | None = None
        self._job: Future[Any] | None = None

    def busy(self) -> bool:
        """True while the last job submitted still runs."""
        return self._job is not None and not self._job.done()

    def submit(self, function: Callable[..., Any], *args: Any) -> None:
        """Run ``function(*args)`` on the thread, once the job before it is done (its error raised here)."""
        self.wait()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, self.thread_name)
        self._job = self._executor.submit(function, *args)

    def wait(self) -> None:
        """Until the running job is done; raises what went wrong in it."""
        job, self._job = self._job, None
        if job is not None:
            job.result()

    def discard(self) -> None:
        """Until the running job is done, whatever its outcome (a writer being aborted)."""
        job, self._job = self._job, None
        if job is not None:
            job.exception()

    def stop(self) -> None:
        """End the thread, after the running job (whose error, if any, is then no longer raised)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
