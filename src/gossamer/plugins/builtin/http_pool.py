"""The connection pool of the lean HTTP client: guarded connecting, TLS, and idle keep-alive connections.

:meth:`Pool.acquire` hands out an idle connection to ``(scheme, host, port)`` when one is
open and has been idle less than ``keepalive`` seconds (the newest first), else
:meth:`Pool.connect` makes one:

* the host name goes through the SSRF guard's resolver (:class:`~.http_guard.GuardedResolver`,
  with its DNS cache), which drops refused addresses and raises ``AddressRefused`` when none is
  left; an IP literal is connected to as it is (the plugin checked it before the request).
  Only the addresses the guard returned are tried, in its order, the first that answers wins,
  so what was checked is what is connected to;
* ``timeout`` seconds (or the caller's earlier deadline) bound each attempt;
* ``https`` gets asyncio's TLS with the host name for SNI; certificates are checked only with
  ``verify_tls`` (``http.tls.certificates.check``), as the aiohttp path does.

:meth:`Pool.release` puts a connection back (or closes it when ``keepalive`` <= 0); one timer
for the whole pool closes connections idle for ``keepalive`` seconds (checked every quarter of
it), so an idle connection lives at most 1.25 × ``keepalive``.  :meth:`Pool.close` closes the
idle ones; a connection in use is closed by its request.
"""

from __future__ import annotations

import asyncio
import socket
import ssl

from gossamer.plugins.builtin.address_refusal import ip_literal
from gossamer.plugins.builtin.http_guard import HttpGuard
from gossamer.plugins.builtin.http_wire import Wire

Key = tuple[str, str, int]


def tls_context(verify: bool) -> ssl.SSLContext:
    """A client TLS context: the system's trust store and host names checked, or nothing checked."""
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


class Pool:
    """Connections of one HttpProtocol (see the module docstring)."""

    def __init__(self, guard: HttpGuard, keepalive: float, timeout: float, verify_tls: bool) -> None:
        self.guard, self.keepalive, self.timeout = guard, keepalive, timeout
        self.verify_tls = verify_tls
        self._tls: ssl.SSLContext | None = None
        self._idle: dict[Key, list[Wire]] = {}
        self._sweeper: asyncio.TimerHandle | None = None
        self.connects = 0
        """Connections made (for tests and profiles)."""

    async def acquire(self, key: Key, deadline: float) -> tuple[Wire, bool]:
        """An open connection for ``key`` and whether it was reused (idle in the pool)."""
        stack = self._idle.get(key)
        if stack:
            now = asyncio.get_running_loop().time()
            while stack:
                wire = stack.pop()
                if not wire.closed and now - wire.idle_since < self.keepalive:
                    wire.start()
                    return wire, True
                wire.close()
        return await self.connect(key, deadline), False

    async def connect(self, key: Key, deadline: float) -> Wire:
        """A new connection to ``key`` through the guard (raises AddressRefused, OSError, TimeoutError)."""
        scheme, host, port = key
        loop = asyncio.get_running_loop()
        literal = ip_literal(host)
        if literal is not None:
            addresses = [(str(literal), socket.AF_INET6 if literal.version == 6 else socket.AF_INET)]
        else:
            answers = await self.guard.resolver.resolve(host, port, socket.AF_UNSPEC)
            addresses = [(a["host"], a["family"]) for a in answers]
        tls = self._context() if scheme == "https" else None
        error: BaseException | None = None
        for address, family in addresses:
            try:
                async with asyncio.timeout_at(min(deadline, loop.time() + self.timeout)):
                    _, wire = await loop.create_connection(Wire, address, port, family=family, ssl=tls,
                                                           server_hostname=host if tls else None)
            except (OSError, ssl.SSLError, TimeoutError) as exc:
                error = exc
                continue
            self.connects += 1
            return wire
        assert error is not None
        raise error

    def _context(self) -> ssl.SSLContext:
        if self._tls is None:
            self._tls = tls_context(self.verify_tls)
        return self._tls

    def release(self, key: Key, wire: Wire) -> None:
        """Keep ``wire`` for the next request to ``key`` (it must be between responses), or close it."""
        if self.keepalive <= 0 or wire.closed or wire.buffer:
            wire.close()
            return
        loop = asyncio.get_running_loop()
        wire.busy = False
        wire.idle_since = loop.time()
        self._idle.setdefault(key, []).append(wire)
        if self._sweeper is None:
            self._sweeper = loop.call_later(self.keepalive / 4, self._sweep)

    def _sweep(self) -> None:
        """Close the connections idle for ``keepalive`` seconds or closed by their servers."""
        self._sweeper = None
        now = asyncio.get_running_loop().time()
        for key in list(self._idle):
            stack = self._idle[key]
            keep = [w for w in stack if not w.closed and now - w.idle_since < self.keepalive]
            for wire in stack:
                if wire not in keep:
                    wire.close()
            if keep:
                self._idle[key] = keep
            else:
                del self._idle[key]
        if self._idle:
            self._sweeper = asyncio.get_running_loop().call_later(self.keepalive / 4, self._sweep)

    def idle_count(self) -> int:
        """Idle connections in the pool (for tests)."""
        return sum(len(stack) for stack in self._idle.values())

    def close(self) -> None:
        """Close every idle connection and stop the timer."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for stack in self._idle.values():
            for wire in stack:
                wire.close()
        self._idle.clear()
