"""A loopback aiohttp test server for the fetcher tests: scripted routes and a request log."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

from gossamer.core.datum import CrawlDatum
from gossamer.core.settings import Settings

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass
class Hit:
    path: str
    host: str
    start: float
    end: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class Site:
    """Serves ``routes`` (path → (status, headers, body, delay) or a handler) on 127.0.0.1."""

    def __init__(self, bind: str = "127.0.0.1", port: int = 0) -> None:
        self.bind = bind
        self.routes: dict[str, tuple[int, dict[str, str], bytes, float] | Handler] = {}
        self.hits: list[Hit] = []
        self.active = 0
        self.max_active = 0
        self.port = port
        self._runner: web.AppRunner | None = None

    def route(self, path: str, status: int = 200, body: bytes = b"", headers: dict[str, str] | None = None,
              delay: float = 0.0) -> None:
        self.routes[path] = (status, {"Content-Type": "text/html", **(headers or {})}, body, delay)

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        hit = Hit(request.path_qs, request.host.split(":")[0], time.monotonic(), headers=dict(request.headers))
        self.hits.append(hit)
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            spec = self.routes.get(request.path_qs)
            if spec is None:
                return web.Response(status=404, body=b"not found")
            if callable(spec):
                return await spec(request)
            status, headers, body, delay = spec
            if delay:
                await asyncio.sleep(delay)
            return web.Response(status=status, body=body, headers=headers)
        finally:
            self.active -= 1
            hit.end = time.monotonic()

    async def __aenter__(self) -> Site:
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.bind, self.port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._runner is not None
        await self._runner.cleanup()

    def url(self, path: str, host: str | None = None) -> str:
        return f"http://{host or self.bind}:{self.port}{path}"

    def page_hits(self, host: str | None = None) -> list[Hit]:
        return [h for h in self.hits if h.path != "/robots.txt" and (host is None or h.host == host)]


HTTP_CLIENT = "lean"
"""The ``http.client`` of :func:`settings` (the ``http_client`` fixture runs a test with each client)."""


def settings(**values: object) -> Settings:
    """Test settings: an agent name, no politeness delay, loopback allowed unless given; keys use _ for dots."""
    base: dict[str, object] = {"http.agent.name": "gossamer-test", "fetcher.server.delay": 0.0,
                               "fetcher.threads.fetch": 4, "http.timeout": 2000,
                               "http.filter.ipaddress.include": "loopback", "http.client": HTTP_CLIENT}
    base.update({k.replace("__", "-").replace("_", "."): v for k, v in values.items()})
    return Settings().with_values(list(base.items()), "test")


def items(*urls: str) -> list[tuple[str, CrawlDatum]]:
    return [(u, CrawlDatum(fetch_time=0, fetch_interval=2592000, score=1.0)) for u in urls]


class ThreadedSite:
    """A :class:`Site` served from its own thread and event loop (for jobs that run their own loops/processes)."""

    def __init__(self, bind: str = "127.0.0.1", port: int = 0) -> None:
        self.site = Site(bind, port)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def __enter__(self) -> Site:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self.site.__aenter__(), self._loop).result(10)
        return self.site

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.site.__aexit__(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
