"""Start each queued fetch the moment its queue is ready: an event-driven launcher for the fetch loop.

A :class:`Launcher` hands items of :class:`~gossamer.crawl.fetch.queues.FetchQueues` to
a coroutine, one task per item, at most ``slots`` at a time (``fetcher.threads.fetch``).
It never polls and keeps no herd of idle workers: :meth:`Launcher.pump` is called when
something changes (an item was queued, a fetch finished, a queue's delay changed) and by
one event-loop timer set for the earliest moment a queue becomes ready, so a host's next
request starts as soon as its delay has passed, within one turn of the event loop.  A
pump starts every item that is ready and fits, in one synchronous step.

The caller keeps its own rules (time limits, when the run is over) in a ``check``
callback that every pump calls first; it may return a moment at which it wants to be
called again (a deadline).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from gossamer.crawl.fetch.queues import FetchItem, FetchQueues


class Launcher:
    """Launches fetches of ready queues (see the module docstring).

    ``run(item)`` is the coroutine that fetches one item; it must call :meth:`done` when its
    slot is free again (normally in a ``finally``), after telling the queues that the item
    finished.  ``check(now)`` is called at the start of every pump; it returns None or the
    latest moment (``clock`` time) by which the next pump must happen.  An exception that
    escapes ``run`` is kept in :attr:`failure` and ends the run (:attr:`finished` is set).
    """

    def __init__(self, queues: FetchQueues, slots: int, clock: Callable[[], float],
                 run: Callable[[FetchItem], Coroutine[Any, Any, None]],
                 check: Callable[[float], float | None]) -> None:
        self.queues, self.slots, self.clock, self.run, self.check = queues, max(1, slots), clock, run, check
        self.active = 0
        self.tasks: set[asyncio.Task[None]] = set()
        self.finished = asyncio.Event()
        self.failure: BaseException | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at: float | None = None
        self._pumping = False

    def pump(self) -> None:
        """Start every ready item that fits into a free slot, then set the timer for the next one."""
        if self._pumping or self.finished.is_set():
            return  # a pump is running further up the stack: it finishes the work
        self._pumping = True
        try:
            now = self.clock()
            wanted = self.check(now)
            while self.active < self.slots and not self.finished.is_set():
                item = self.queues.acquire(now)
                if item is None:
                    break
                self._start(item)
            ready = self.queues.next_ready() if self.active < self.slots else None
            if ready is None or (wanted is not None and wanted < ready):
                ready = wanted
            self._arm(ready, now)
        finally:
            self._pumping = False

    def watch(self, task: asyncio.Task[None]) -> None:
        """Another task of the run (the feeder): an exception escaping it ends the run as well."""
        self.tasks.add(task)
        task.add_done_callback(self._ended)

    def done(self) -> None:
        """One item's fetch is over (its queue was told): free its slot and pump."""
        self.active -= 1
        self.pump()

    def finish(self) -> None:
        """Nothing more to launch: stop the timer and wake :meth:`wait`."""
        self._cancel_timer()
        self.finished.set()

    async def wait(self) -> None:
        """Until :meth:`finish` is called; raises what escaped an item's coroutine."""
        await self.finished.wait()
        if self.failure is not None:
            raise self.failure

    async def cancel(self) -> None:
        """Cancel the running items (the run is being torn down) and wait for them to end.

        Launches nothing more: a cancelled item that frees its slot does not start another.
        """
        self.finish()
        tasks = list(self.tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # --- internals ---------------------------------------------------------------------------

    def _start(self, item: FetchItem) -> None:
        self.active += 1
        self.watch(asyncio.get_running_loop().create_task(self.run(item)))

    def _ended(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None and self.failure is None:
            self.failure = task.exception()
            self.finish()

    def _arm(self, when: float | None, now: float) -> None:
        """Make sure a pump happens at ``when`` (None: no timer needed)."""
        if when is None:
            self._cancel_timer()
            return
        if self._timer is not None and self._timer_at is not None and self._timer_at <= when:
            return  # an earlier (or the same) pump is already due; it sets the next timer
        self._cancel_timer()
        self._timer_at = when
        self._timer = asyncio.get_running_loop().call_later(max(0.0, when - now), self._fire)

    def _fire(self) -> None:
        self._timer = self._timer_at = None
        self.pump()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._timer_at = None
