"""A search node: one :class:`~gossamer.search.shards.ShardSet` served over HTTP (aiohttp).

The wire protocol mirrors :class:`~gossamer.search.backend.SearchBackend`; every
body is JSON, requests are ``POST`` except ``/health``:

* ``POST /stats`` ``{"q"}`` → :meth:`Stats.to_json <gossamer.search.scoring.Stats.to_json>`;
* ``POST /search`` ``{"q", "want", "per_site", "stats"}`` →
  ``{"candidates": [Candidate JSON…], "total", "generation"}``;
* ``POST /details`` ``{"q", "candidates", "generation"}`` → ``[HitDetails JSON…]``;
  **409** when ``generation`` is not the index generation served now (the node
  reopened a newer index since the search, so document addresses changed);
* ``POST /explain`` ``{"q", "url", "stats"}`` → the explanation or ``null``;
* ``GET /health`` → ``{"shards": [numbers], "docs", "generation"}`` (answered on
  the event loop, never queued behind queries).

Errors are ``{"error": message, "kind": …}`` — never a traceback: **400** kind
``syntax`` (with ``message`` and ``position``) for a query the language rejects,
400 kind ``request`` for a malformed request, 409 kind ``generation``, 413 for a
body over :data:`MAX_BODY` bytes, 500 kind ``internal`` for anything else.

Index work runs in a thread pool (tantivy releases the GIL), so a slow query
does not stall other requests.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import signal
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from aiohttp import web

from gossamer.search.backend import Candidate
from gossamer.search.query_parse import QuerySyntaxError
from gossamer.search.scoring import Stats
from gossamer.search.shards import ShardSet

MAX_BODY = 1 << 20
"""Largest accepted request body (bytes)."""
MAX_WANT = 100_000
"""Largest ``want`` a search may ask for."""
SHUTDOWN_SECONDS = 5.0
"""How long a stopping node waits for requests in flight."""

SHARDS = web.AppKey("shards", ShardSet)
EXECUTOR = web.AppKey("executor", ThreadPoolExecutor)
log = logging.getLogger(__name__)
T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, kind: str, error: str, **extra: Any) -> web.Response:
    return web.json_response({"error": error, "kind": kind, **extra}, status=status)


@web.middleware
async def _errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every failure becomes a JSON error answer (see the module docstring)."""
    try:
        return await handler(request)
    except QuerySyntaxError as exc:
        return _error(400, "syntax", str(exc), message=exc.message, position=exc.position)
    except web.HTTPException as exc:
        if exc.status < 400:
            raise
        kind = "request" if exc.status < 500 else "internal"
        return _error(exc.status, kind, exc.text or exc.reason)
    except Exception as exc:
        log.exception("search node: %s %s failed", request.method, request.path)
        return _error(500, "internal", f"{type(exc).__name__}: {exc}")


def _bad(message: str) -> web.HTTPBadRequest:
    return web.HTTPBadRequest(text=message)


async def _body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object (400 when it is not one; 413 past :data:`MAX_BODY`)."""
    raw = await request.read()
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise _bad(f"request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise _bad("request body must be a JSON object")
    return body


def _field(body: dict[str, Any], name: str, kind: type[T]) -> T:
    value = body.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _bad(f"{name!r} must be a {kind.__name__}")
    return value


def _stats(body: dict[str, Any]) -> Stats:
    try:
        return Stats.from_json(_field(body, "stats", dict))
    except (KeyError, TypeError, ValueError) as exc:
        raise _bad(f"'stats' is malformed: {exc}") from None


async def _run(request: web.Request, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` in the node's thread pool."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(request.app[EXECUTOR], functools.partial(call, *args))


async def stats_handler(request: web.Request) -> web.Response:
    """``POST /stats``."""
    body = await _body(request)
    stats = await _run(request, request.app[SHARDS].stats, _field(body, "q", str))
    return web.json_response(stats.to_json())


async def search_handler(request: web.Request) -> web.Response:
    """``POST /search``."""
    body = await _body(request)
    text, want, per_site = _field(body, "q", str), _field(body, "want", int), _field(body, "per_site", int)
    semantic = body.get("semantic", 0)
    if not 0 < want <= MAX_WANT or per_site < 0 or not isinstance(semantic, int) or not 0 <= semantic <= MAX_WANT:
        raise _bad(f"'want' must be in 1..{MAX_WANT}, 'per_site' at least 0 and 'semantic' in 0..{MAX_WANT}")
    page = await _run(request, request.app[SHARDS].search, text, want, per_site, _stats(body), semantic)
    answer = {"candidates": [c.to_json() for c in page.candidates], "total": page.total,
              "generation": page.generation}
    if page.neighbours:
        answer["neighbours"] = [c.to_json() for c in page.neighbours]
    return web.json_response(answer)


def _generation_changed(asked: str, serving: str) -> web.Response:
    return _error(409, "generation", f"the index changed since the search (generation {asked}, now {serving}); "
                                     "search again", generation=serving)


async def details_handler(request: web.Request) -> web.Response:
    """``POST /details``; 409 when the index generation is no longer the one asked about."""
    body = await _body(request)
    text = _field(body, "q", str)
    try:
        candidates = [Candidate.from_json(c) for c in _field(body, "candidates", list)]
    except (TypeError, ValueError) as exc:
        raise _bad(f"'candidates' is malformed: {exc}") from None
    shards = request.app[SHARDS]
    asked = body.get("generation")
    if asked is not None and asked != shards.generation:
        return _generation_changed(str(asked), shards.generation)
    details = await _run(request, shards.details, candidates, text)
    if asked is not None and asked != shards.generation:  # reopened while we were reading
        return _generation_changed(str(asked), shards.generation)
    return web.json_response([d.to_json() for d in details])


async def explain_handler(request: web.Request) -> web.Response:
    """``POST /explain``."""
    body = await _body(request)
    text, url = _field(body, "q", str), _field(body, "url", str)
    return web.json_response(await _run(request, request.app[SHARDS].explain, url, text, _stats(body)))


async def health_handler(request: web.Request) -> web.Response:
    """``GET /health``: the shards served, their documents and the index generation."""
    shards = request.app[SHARDS]
    return web.json_response({"shards": [s.number for s in shards.shards],
                              "docs": sum(s.real.docs for s in shards.shards),
                              "generation": shards.generation})


def make_app(shards: ShardSet, threads: int | None = None) -> web.Application:
    """The node's web application over ``shards`` (its thread pool stops with the app)."""
    app = web.Application(client_max_size=MAX_BODY, middlewares=[_errors])
    app[SHARDS] = shards
    app[EXECUTOR] = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="searchnode")

    async def stop_pool(app: web.Application) -> None:
        app[EXECUTOR].shutdown(wait=False, cancel_futures=True)

    app.on_cleanup.append(stop_pool)
    app.router.add_post("/stats", stats_handler)
    app.router.add_post("/search", search_handler)
    app.router.add_post("/details", details_handler)
    app.router.add_post("/explain", explain_handler)
    app.router.add_get("/health", health_handler)
    return app


async def serve(shards: ShardSet, host: str = "127.0.0.1", port: int = 8700,
                ready: Callable[[str, int], None] | None = None, stop: asyncio.Event | None = None,
                threads: int | None = None) -> None:
    """Serve ``shards`` on ``host:port`` until ``stop`` is set or (in the main thread) SIGTERM/SIGINT arrives.

    ``ready(host, port)`` is called once the socket listens (with the real port
    when ``port`` is 0); ``threads`` sizes the search thread pool.  Raises
    ``OSError`` when the address cannot be bound.  Requests in flight get
    :data:`SHUTDOWN_SECONDS` to finish.
    """
    stop = stop or asyncio.Event()
    runner = web.AppRunner(make_app(shards, threads), access_log=None, handle_signals=False,
                           shutdown_timeout=SHUTDOWN_SECONDS)
    await runner.setup()
    loop = asyncio.get_running_loop()
    main = threading.current_thread() is threading.main_thread()
    signals = (signal.SIGTERM, signal.SIGINT) if main else ()
    try:
        await web.TCPSite(runner, host, port).start()
        bound = runner.addresses[0]
        if ready is not None:
            ready(host, int(bound[1]))
        for number in signals:
            loop.add_signal_handler(number, stop.set)
        await stop.wait()
    finally:
        for number in signals:
            loop.remove_signal_handler(number)
        await runner.cleanup()
