"""Time limits that end every request: headers dripped byte by byte, bodies that never end, silent servers.

The servers are raw asyncio TCP servers on loopback that write exactly what each test says,
as slowly as it says.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from gossamer.core import TRUNCATED_REASON, CrawlDatum, ProtocolStatusCode, Settings
from gossamer.plugins.builtin.protocol_http import HttpOutput, HttpProtocol
from tests.fetch_server import settings

Script = Callable[[asyncio.StreamWriter], Awaitable[None]]


@asynccontextmanager
async def raw_server(script: Script) -> AsyncIterator[str]:
    """A loopback server that answers every connection with ``script``; yields its base URL."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            await script(writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.close()


async def drip(writer: asyncio.StreamWriter, data: bytes, every: float) -> None:
    for i in range(len(data)):
        writer.write(data[i:i + 1])
        await writer.drain()
        await asyncio.sleep(every)


async def fetch(url: str, conf: Settings) -> tuple[HttpOutput, float]:
    protocol = HttpProtocol(conf)
    started = time.monotonic()
    try:
        return await protocol.fetch(url, CrawlDatum()), time.monotonic() - started
    finally:
        await protocol.close()


@pytest.mark.usefixtures("http_client")
def test_headers_dripped_byte_by_byte_are_cut_off() -> None:
    async def script(writer: asyncio.StreamWriter) -> None:
        await drip(writer, b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Slow: " + b"x" * 200, 0.05)

    async def main() -> None:
        async with raw_server(script) as base:
            out, seconds = await fetch(base + "/", settings(http_timeout=1000, http_timeout_headers=1000))
            assert out.status.code == ProtocolStatusCode.EXCEPTION and out.content is None
            assert "no complete response headers after 1." in out.status.args[0], out.status.args
            assert seconds < 3, seconds  # each byte came well within http.timeout: only the header budget ends it
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_a_body_that_never_ends_is_kept_truncated_at_the_time_limit() -> None:
    async def script(writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
        await drip(writer, b"y" * 100000, 0.02)

    async def main() -> None:
        async with raw_server(script) as base:
            out, seconds = await fetch(base + "/", settings(http_time_limit=1))
            assert out.status.code == ProtocolStatusCode.SUCCESS and out.content is not None
            assert 10 < len(out.content.content) < 100000
            assert out.content.metadata[TRUNCATED_REASON] == "time" and out.exchange is not None
            assert seconds < 3, seconds
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_the_total_time_limit_counts_from_the_request_not_from_the_body() -> None:
    async def script(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(0.8)  # slow headers, each within every per-read timeout
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
        await drip(writer, b"z" * 100000, 0.02)

    async def main() -> None:
        async with raw_server(script) as base:
            out, seconds = await fetch(base + "/", settings(http_time_limit=1, http_timeout_headers=5000))
            assert out.content is not None and out.content.metadata[TRUNCATED_REASON] == "time"
            assert seconds < 1.8, seconds  # 1 s in all, not 0.8 s + 1 s
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_a_silent_server_ends_at_the_read_timeout() -> None:
    async def script(writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)

    async def main() -> None:
        async with raw_server(script) as base:
            out, seconds = await fetch(base + "/", settings(http_timeout=500))
            assert out.status.code == ProtocolStatusCode.EXCEPTION and seconds < 2, (out.status, seconds)
    asyncio.run(main())


def test_every_request_has_a_time_limit_by_default() -> None:
    protocol = HttpProtocol(Settings().with_values([("http.agent.name", "x")], "test"))
    assert protocol.time_limit > 0 and protocol.headers_timeout > 0
