"""One connection of the lean HTTP client: an asyncio protocol with a receive buffer and timed waits.

:class:`Wire` collects what the server sends in :attr:`Wire.buffer`; the reader
(:mod:`.http_lean`) takes bytes from the front of it and, when it needs more, calls
:meth:`Wire.wait`, which returns when bytes arrive or the connection ends, and raises
``TimeoutError`` at the loop time it is given.  One timer per wait, no streams, no tasks.

An idle connection (in the pool, no request on it) that receives anything is closed at
once: a server has nothing to say between requests, and the bytes could not be matched to a
request.  :attr:`Wire.closed` turns true when the server ends the connection (EOF or reset)
or it is closed here; :attr:`Wire.received` counts the bytes of the current exchange, so a
request on a reused connection can tell "closed before any answer" (safe to send again on
a fresh connection) from "closed mid-answer" (never sent again).
"""

from __future__ import annotations

import asyncio


class Wire(asyncio.Protocol):
    """A client connection's receive side (see the module docstring)."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.error: BaseException | None = None
        """Why the connection ended, when it ended with an error (a reset)."""
        self.busy = True
        """A request owns the connection; False while it waits in the pool."""
        self.received = 0
        self.peer: str | None = None
        self.idle_since = 0.0
        self._waiter: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport and the peer's address (the address actually connected to)."""
        self.transport = transport  # type: ignore[assignment]
        peer = transport.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else None

    def data_received(self, data: bytes) -> None:
        """Append to the buffer and wake the reader; bytes on an idle connection close it."""
        if not self.busy:
            self.close()
            return
        self.buffer += data
        self.received += len(data)
        self._wake()

    def eof_received(self) -> bool:
        """The server ended its side: the connection is over (the transport closes itself)."""
        self.closed = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        """The connection ended, with ``exc`` when it was reset or failed."""
        self.closed = True
        if exc is not None:
            self.error = exc
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    async def wait(self, deadline: float) -> None:
        """Return when more bytes arrived or the connection ended; ``TimeoutError`` at loop time ``deadline``."""
        if self.closed:
            return
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = loop.call_at(deadline, _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None

    def start(self) -> None:
        """A request takes the connection: fresh byte count, reads wanted."""
        self.busy = True
        self.received = 0

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.closed = True
        if self.transport is not None:
            self.transport.close()
        self._wake()


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())
