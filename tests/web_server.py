"""A real uvicorn server on a free loopback port, in a thread, for the web tests."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from gossamer.web import server_config


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve_app(app: FastAPI) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 as ``gossamer serve`` would, for the block; yields the base URL."""
    port = free_port()
    server = uvicorn.Server(server_config(app, app.state.gossamer.settings, "127.0.0.1", port))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(5)
