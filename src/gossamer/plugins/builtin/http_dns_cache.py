"""A per-process cache of DNS answers for plugin ``protocol-http``: each host name resolved once per TTL.

aiohttp's own cache holds 1,000 names; a fetch process of a crawl over more hosts than that
(and whose idle connections the servers close, so that it connects again) resolved a name on
nearly every request: with a 5,000-line ``/etc/hosts``, glibc's resolver, which reads the file
for every lookup, took 12 % of a fetch process's CPU in a 5,000-host polite crawl.
:class:`CachingResolver` wraps the resolver that answers and keeps each successful answer for
``http.dns.cache.seconds``, for up to :data:`MAX_ENTRIES` names (the oldest entry goes first).
Failures are not cached.  Concurrent lookups of one name share one query.

It sits *under* the SSRF guard (:class:`~gossamer.plugins.builtin.http_guard.GuardedResolver`
wraps it): the guard checks every answer it hands aiohttp, cached or fresh.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

from aiohttp.abc import AbstractResolver, ResolveResult

MAX_ENTRIES = 100_000
"""Names kept at most (about 1 KB each): a bound for a process fetching from ever more hosts."""

_Key = tuple[str, int, int]


class CachingResolver(AbstractResolver):
    """``inner``'s answers, each kept ``ttl`` seconds (see the module docstring); ``ttl`` <= 0: no caching."""

    def __init__(self, inner: AbstractResolver, ttl: float, max_entries: int = MAX_ENTRIES,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inner, self.ttl, self.max_entries, self.clock = inner, ttl, max(1, max_entries), clock
        self._answers: dict[_Key, tuple[float, list[ResolveResult]]] = {}
        self._pending: dict[_Key, asyncio.Future[list[ResolveResult]]] = {}
        self.lookups = 0
        """Queries sent to ``inner`` (for tests and profiles)."""

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        """The answer for ``host``: from the cache while it is fresh, else from ``inner`` (which may raise).

        The answers (dicts) are shared with the cache: callers must not change them.
        """
        if self.ttl <= 0:
            self.lookups += 1
            return await self.inner.resolve(host, port, family)
        key = (host.lower(), port, int(family))
        cached = self._answers.get(key)
        if cached is not None and cached[0] > self.clock():
            return list(cached[1])
        pending = self._pending.get(key)
        if pending is None:
            pending = self._pending[key] = asyncio.ensure_future(self._lookup(key, host, port, family))
            pending.add_done_callback(_retrieve)
        return list(await asyncio.shield(pending))  # a cancelled caller does not cancel the others' query

    async def _lookup(self, key: _Key, host: str, port: int, family: socket.AddressFamily) -> list[ResolveResult]:
        try:
            self.lookups += 1
            answers = await self.inner.resolve(host, port, family)
        finally:
            del self._pending[key]
        self._answers.pop(key, None)
        if len(self._answers) >= self.max_entries:
            del self._answers[next(iter(self._answers))]  # the oldest entry (dicts keep insertion order)
        self._answers[key] = (self.clock() + self.ttl, answers)
        return answers

    async def close(self) -> None:
        """Forget every answer and close ``inner``."""
        self._answers.clear()
        await self.inner.close()


def _retrieve(future: asyncio.Future[list[ResolveResult]]) -> None:
    """Mark a failed shared query's exception as seen (its callers may all have gone)."""
    if not future.cancelled():
        future.exception()
