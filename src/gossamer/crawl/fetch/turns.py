"""A budget of synchronous page work per turn of the fetch event loop.

Handling a fetched page — its WARC records, the inline parse, its rows — is synchronous work of
about a millisecond.  When many responses complete together, handling all of them in one turn
of the event loop keeps the loop from polling its sockets and timers for as long: the other
responses wait to be read and the hosts whose delay has passed wait to be asked again.  Both
waits lengthen every host's spacing, since a host's delay runs from the moment its response was
read (measured on the many-hosts web: a mean of 83 ms between nginx's end of a response and the
fetch task reading it at ~475 pages/s per process, with the pages handled as they came).

:class:`TurnBudget` spreads that work out: a task calls :meth:`TurnBudget.wait` before its page
step; it returns at once while the current turn has spent less than ``seconds`` on page steps,
else the task waits (first come, first served) and is let in at a later turn, after the loop has
polled its sockets and run its timers.  Only the tasks that wait yield to the loop; the others
never suspend in :meth:`TurnBudget.wait`.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable


class TurnBudget:
    """At most ``seconds`` of page steps per turn of the running event loop (see the module docstring).

    ``clock`` is the fetch loop's monotonic clock.  A turn's time counts from its first page step
    to the moment a later step asks; a single step longer than the budget is never cut, the next
    one waits.  Waiting tasks are let in one per turn, in the order they came (while any wait, a
    newcomer queues behind them); a cancelled waiter hands its place on.  ``seconds <= 0`` turns
    the budget off: no task ever waits.
    """

    def __init__(self, seconds: float, clock: Callable[[], float]) -> None:
        self.seconds = seconds
        self.clock = clock
        self.waited = 0  # steps that had to wait for a later turn
        self._turn_start: float | None = None
        self._reset_pending = False
        self._granted = 0  # waiters let in whose task has not run yet
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def wait(self) -> None:
        """Return when this turn still has room for a page step; may wait for a later turn."""
        if self.seconds <= 0:
            return
        if not self._waiters and not self._granted:
            now = self.clock()
            if self._turn_start is None:
                self._open_turn(now)
                return
            if now - self._turn_start < self.seconds:
                return
        self.waited += 1
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # let in, but it will not run: pass it on
                self._granted -= 1
                self._wake_next()
            raise
        self._granted -= 1
        if self._turn_start is None:
            self._open_turn(self.clock())
        self._wake_next()  # the next waiter runs in the turn after this one

    def _open_turn(self, now: float) -> None:
        self._turn_start = now
        if not self._reset_pending:
            self._reset_pending = True
            asyncio.get_running_loop().call_soon(self._next_turn)  # runs in the loop's next turn

    def _next_turn(self) -> None:
        self._reset_pending = False
        self._turn_start = None
        if not self._granted:
            self._wake_next()

    def _wake_next(self) -> None:
        while self._waiters:
            future = self._waiters.popleft()
            if not future.done():
                future.set_result(None)
                self._granted += 1
                return
