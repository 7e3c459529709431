"""How ``gossamer serve`` runs the application: uvicorn with limits on URLs, connections and idle time.

Contract:

* :class:`UrlLengthLimit` (added to every app by :func:`~gossamer.web.create_app`) answers
  ``414 URI Too Long`` for a request whose path and query together exceed
  ``web.url.max.length`` bytes, before any route runs.
* :func:`server_config` is the uvicorn configuration of ``gossamer serve`` (and of the web
  tests): the h11 protocol, request heads up to :data:`MAX_REQUEST_HEAD` bytes reach the app
  (so an overlong URL gets its 414 rather than a reset), ``web.connections.max`` connections
  and tasks at once (more are answered 503), idle keep-alive connections closed after
  ``web.keepalive.timeout`` seconds.
"""

from __future__ import annotations

from typing import Any

import uvicorn

from gossamer.core import Settings

MAX_REQUEST_HEAD = 1 << 20
"""Largest request line plus headers the server reads (1 MiB); above it the connection gets a 400."""
URL_TOO_LONG = b"URL too long\n"


class UrlLengthLimit:
    """ASGI middleware: 414 for a path + query longer than ``max_length`` bytes (see the module docstring)."""

    def __init__(self, app: Any, max_length: int) -> None:
        self.app, self.max_length = app, max_length

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Pass the request on, or answer 414 without calling the app."""
        if scope["type"] == "http" and self.max_length > 0:
            length = len(scope.get("raw_path") or scope.get("path", "").encode()) + len(scope.get("query_string", b""))
            if length > self.max_length:
                headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"x-content-type-options", b"nosniff"),
                           (b"content-length", str(len(URL_TOO_LONG)).encode())]
                await send({"type": "http.response.start", "status": 414, "headers": headers})
                await send({"type": "http.response.body", "body": URL_TOO_LONG})
                return
        await self.app(scope, receive, send)


def server_config(app: Any, settings: Settings, host: str, port: int) -> uvicorn.Config:
    """The uvicorn configuration of ``gossamer serve`` (see the module docstring)."""
    return uvicorn.Config(
        app, host=host, port=port, log_level="warning", http="h11",
        h11_max_incomplete_event_size=MAX_REQUEST_HEAD,
        limit_concurrency=settings.get_int("web.connections.max"),
        timeout_keep_alive=settings.get_int("web.keepalive.timeout"))
