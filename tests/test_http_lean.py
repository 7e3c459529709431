"""Hostile and odd servers against protocol-http (both clients), and the lean client's keep-alive rules.

Raw asyncio servers on loopback write exactly the bytes each test gives: garbage status lines,
endless headers, bad chunks, bodies shorter or longer than their length, resets mid-body.
Each must end as a status (EXCEPTION with a reason, or a truncated body where the contract
says so), never as an exception out of ``fetch`` and never as a hang.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import struct
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from gossamer.core import TRUNCATED_REASON, CrawlDatum, ProtocolStatusCode, Settings
from gossamer.plugins.builtin.http_head import BadResponse, head_end, parse_head
from gossamer.plugins.builtin.http_lean import request_bytes
from gossamer.plugins.builtin.protocol_http import HttpOutput, HttpProtocol
from tests.fetch_server import settings

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
OK = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"


class Server:
    """A loopback server running ``handler`` on every connection; counts connections and requests."""

    def __init__(self, handler: Handler) -> None:
        self.handler, self.connections, self.requests = handler, 0, []

    async def request(self, reader: asyncio.StreamReader) -> bytes:
        """One request head (b"" when the client closed the connection)."""
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return b""
        self.requests.append(head)
        return head

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()


@asynccontextmanager
async def serving(handler: Callable[[Server, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
                  ) -> AsyncIterator[tuple[Server, str]]:
    server = Server(lambda r, w: handler(server, r, w))
    listener = await asyncio.start_server(server._handle, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    try:
        yield server, f"http://127.0.0.1:{port}"
    finally:
        listener.close()


def answer(raw: bytes, close: bool = True) -> Callable[[Server, asyncio.StreamReader, asyncio.StreamWriter],
                                                       Awaitable[None]]:
    """A handler writing ``raw`` for every request (and closing after the first when ``close``)."""
    async def handler(server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await server.request(reader):
            writer.write(raw)
            await writer.drain()
            if close:
                return
    return handler


async def fetch_all(urls: list[str], conf: Settings | None = None) -> tuple[list[HttpOutput], HttpProtocol]:
    protocol = HttpProtocol(conf or settings(http_timeout=1000, http_timeout_headers=2000))
    try:
        return [await protocol.fetch(url, CrawlDatum()) for url in urls], protocol
    finally:
        await protocol.close()


async def fetch_one(raw: bytes, conf: Settings | None = None) -> HttpOutput:
    async with serving(answer(raw)) as (_, base):
        outputs, _ = await fetch_all([base + "/x"], conf)
    return outputs[0]


HOSTILE = {
    "garbage status line": b"SSH-2.0-OpenSSH_9.2\r\n\r\n",
    "no status code": b"HTTP/1.1 OK\r\n\r\n",
    "HTTP/2 preface": b"HTTP/2 200\r\n\r\n",
    "header line over 8 KiB": OK + b"X-Big: " + b"a" * 10_000 + b"\r\n\r\nbody",
    "headers over 64 KiB": OK + b"".join(b"X-%d: %s\r\n" % (i, b"v" * 60) for i in range(2000)) + b"\r\n",
    "header without a colon": OK + b"this is not a header\r\n\r\n",
    "bad chunk size": OK + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    "chunk longer than its size": OK + b"Transfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
    "body shorter than Content-Length": OK + b"Content-Length: 100\r\n\r\nonly this",
    "bad Content-Length": OK + b"Content-Length: ten\r\n\r\n0123456789",
    "two Content-Lengths": OK + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    "closed before the head ended": b"HTTP/1.1 200 OK\r\nContent-Le",
    "closed without a byte": b"",
    "a Location no URL parser takes": b"HTTP/1.1 301 Moved\r\nLocation: http://[::1\r\nContent-Length: 0\r\n\r\n",
}


@pytest.mark.usefixtures("http_client")
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_answer_is_an_exception_status_never_a_crash(name: str) -> None:
    out = asyncio.run(fetch_one(HOSTILE[name]))
    assert out.status.code == ProtocolStatusCode.EXCEPTION, (name, out.status)
    assert out.status.args and out.status.args[0], name


@pytest.mark.usefixtures("http_client")
def test_endless_headers_and_a_broken_body_with_partial_truncated() -> None:
    async def endless(server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(OK)
        for i in range(100_000):
            writer.write(b"X-%d: more\r\n" % i)
            await writer.drain()

    async def main() -> None:
        async with serving(endless) as (_, base):
            outputs, _ = await fetch_all([base + "/"])
            assert outputs[0].status.code == ProtocolStatusCode.EXCEPTION
        conf = settings(http_partial_truncated=True)
        out = await fetch_one(OK + b"Content-Length: 100\r\n\r\nonly this", conf)
        assert out.status.code == ProtocolStatusCode.SUCCESS and out.content is not None
        assert out.content.content == b"only this" and out.content.metadata[TRUNCATED_REASON] == "disconnect"
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_a_reset_mid_body_is_an_exception() -> None:
    async def reset(server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(OK + b"Content-Length: 100000\r\n\r\n" + b"r" * 1000)
        await writer.drain()
        await asyncio.sleep(0.05)
        sock = writer.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close = RST
        writer.transport.abort()

    async def main() -> None:
        async with serving(reset) as (_, base):
            outputs, _ = await fetch_all([base + "/"])
        assert outputs[0].status.code == ProtocolStatusCode.EXCEPTION, outputs[0].status
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_chunked_close_delimited_interim_and_bare_lf_answers_are_read_exactly() -> None:
    cases = {
        OK + b"Transfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n":
            b"hello, world",
        OK + b"Connection: close\r\n\r\nto the end": b"to the end",
        b"HTTP/1.1 100 Continue\r\n\r\n" + OK + b"Content-Length: 5\r\n\r\nfinal": b"final",
        b"HTTP/1.1 200 OK\nContent-Length: 4\nX-Folded: a\n b\n\nbare": b"bare",
    }

    async def main() -> None:
        for raw, body in cases.items():
            out = await fetch_one(raw)
            assert out.status.code == ProtocolStatusCode.SUCCESS, (raw, out.status)
            assert out.content is not None and out.content.content == body and not out.content.metadata, raw
            assert out.exchange is not None and out.exchange.raw_body == body
    asyncio.run(main())


def test_the_exchange_keeps_the_head_as_sent() -> None:
    raw = (b"HTTP/1.1 404 Gone Fishing\r\nX-Case: MiXed\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n"
           b"Content-Length: 2\r\n\r\nno")
    out = asyncio.run(fetch_one(raw))
    assert out.status.code == ProtocolStatusCode.NOTFOUND and out.exchange is not None
    assert out.exchange.reason == "Gone Fishing" and out.exchange.http_version == "1.1"
    assert out.exchange.response_headers == [("X-Case", "MiXed"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
                                             ("Content-Length", "2")]
    assert out.exchange.request_target == "/x" and out.exchange.request_headers[0][0] == "Host"
    assert out.headers["Set-Cookie"] == "a=1"


def test_keep_alive_reuses_one_connection_and_a_longer_body_is_not_reused() -> None:
    async def main() -> None:
        async with serving(answer(OK + b"Content-Length: 2\r\n\r\nok", close=False)) as (server, base):
            outputs, protocol = await fetch_all([base + f"/{i}" for i in range(3)])
            assert [o.content.content for o in outputs if o.content] == [b"ok"] * 3
            assert server.connections == 1 and protocol.pool.connects == 1
        async with serving(answer(OK + b"Content-Length: 2\r\n\r\nokEXTRA", close=False)) as (server, base):
            outputs, protocol = await fetch_all([base + f"/{i}" for i in range(2)])
            assert [o.content.content for o in outputs if o.content] == [b"ok"] * 2
            assert protocol.pool.connects == 2  # the extra bytes: that connection was not used again
    asyncio.run(main())


def test_idle_connections_are_closed_after_the_keepalive_timeout() -> None:
    closed = asyncio.Event()

    async def handler(server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await server.request(reader):
            writer.write(OK + b"Content-Length: 2\r\n\r\nok")
        closed.set()

    async def main() -> None:
        async with serving(handler) as (_, base):
            protocol = HttpProtocol(settings(http_keepalive_timeout=1))
            try:
                await protocol.fetch(base + "/", CrawlDatum())
                assert protocol.pool.idle_count() == 1
                await asyncio.wait_for(closed.wait(), 5)
                assert protocol.pool.idle_count() == 0
            finally:
                await protocol.close()
    asyncio.run(main())


def test_a_connection_closed_while_idle_is_retried_once_but_never_after_an_answer_began() -> None:
    async def quiet_second(server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(OK + b"Content-Length: 2\r\n\r\nok")
        await writer.drain()
        if server.connections == 1:
            await server.request(reader)  # the second request on this connection: closed unanswered
        else:
            while await server.request(reader):
                writer.write(OK + b"Content-Length: 2\r\n\r\nok")

    async def half_answer(server: Server, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await server.request(reader)
        writer.write(OK + b"Content-Length: 2\r\n\r\nok")
        await writer.drain()
        await server.request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\n")  # the answer began, then the connection ends

    async def main() -> None:
        async with serving(quiet_second) as (server, base):
            outputs, _ = await fetch_all([base + "/1", base + "/2"])
            assert [o.status.code for o in outputs] == [ProtocolStatusCode.SUCCESS] * 2
            assert server.connections == 2 and len(server.requests) == 3  # /2 sent twice: it was never answered
        async with serving(half_answer) as (server, base):
            outputs, _ = await fetch_all([base + "/1", base + "/2"])
            assert outputs[1].status.code == ProtocolStatusCode.EXCEPTION
            assert len(server.requests) == 2 and server.connections == 1  # /2 not sent again
    asyncio.run(main())


def test_http10_when_useHttp11_is_off() -> None:  # noqa: N802 - the setting's name
    async def main() -> None:
        async with serving(answer(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", close=False)) as (server, base):
            outputs, protocol = await fetch_all([base + "/a", base + "/b"], settings(http_useHttp11=False))
            assert server.requests[0].startswith(b"GET /a HTTP/1.0\r\nHost: 127.0.0.1:")
            assert outputs[0].exchange is not None and outputs[0].exchange.request_version == "1.0"
            assert protocol.pool.connects == 2  # an HTTP/1.0 request never keeps its connection
    asyncio.run(main())


def test_head_parser_rules() -> None:
    head = parse_head(b"HTTP/1.0 301 Moved  Permanently\r\nLocation: /b\r\nlocation: /c\r\n\r\n")
    assert (head.version, head.status, head.reason) == ("1.0", 301, "Moved  Permanently")
    assert head.first == {"location": "/b"} and head.tokens("LOCATION") == {"/b", "/c"}
    assert head_end(b"HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody") == 25 and head_end(b"HTTP/1.1 200 OK\r\nA: b\r\n") == -1
    assert head_end(b"HTTP/1.1 200 OK\nA: b\n\nbody") == 22
    for bad in (b"HTTP/1.1 2000 OK\r\n\r\n", b"HTTP/1.x 200 OK\r\n\r\n", b"HTTP/1.1 200 OK\r\n folded first\r\n\r\n",
                b"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", b"HTTP/1.1 \xb2\xb2\xb2 OK\r\n\r\n"):
        with pytest.raises(BadResponse):
            parse_head(bad)


def test_head_line_cap_holds_in_long_heads_only_where_a_line_can_exceed_it() -> None:
    """A head shorter than the line cap skips the per-line check; a longer one still refuses an over-long line."""
    from gossamer.plugins.builtin.http_head import MAX_LINE

    fits = b"HTTP/1.1 200 OK\r\nA: " + b"x" * (MAX_LINE - 3) + b"\r\nB: y\r\n\r\n"
    assert len(fits) > MAX_LINE and parse_head(fits).first == {"a": "x" * (MAX_LINE - 3), "b": "y"}
    for line in (b"A: " + b"x" * (MAX_LINE - 2), b" " + b"x" * MAX_LINE):
        with pytest.raises(BadResponse, match="longer than"):
            parse_head(b"HTTP/1.1 200 OK\r\nC: d\r\n" + line + b"\r\n\r\n")
    short = parse_head(b"HTTP/1.1 200 OK\nA: 1\r\n continued\r\nContent-Length: 3\ncontent-length: 3\r\n\r\n")
    assert short.headers == [("A", "1 continued"), ("Content-Length", "3"), ("content-length", "3")]
    with pytest.raises(BadResponse, match="two different"):
        parse_head(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\ncontent-length: 4\r\n\r\n")


@pytest.mark.usefixtures("http_client")
@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
def test_https_with_and_without_certificate_checks(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    async def main() -> None:
        server = Server(lambda r, w: answer(OK + b"Content-Length: 6\r\n\r\nsecret", close=False)(server, r, w))
        listener = await asyncio.start_server(server._handle, "127.0.0.1", 0, ssl=context)
        url = f"https://127.0.0.1:{listener.sockets[0].getsockname()[1]}/"
        try:
            outputs, _ = await fetch_all([url, url])
            assert [o.content.content for o in outputs if o.content] == [b"secret"] * 2
            assert outputs[0].exchange is not None and outputs[0].exchange.ip == "127.0.0.1"
            checked, _ = await fetch_all([url], settings(http_tls_certificates_check=True))
            assert checked[0].status.code == ProtocolStatusCode.EXCEPTION and "CERTIFICATE" in checked[0].status.args[0]
        finally:
            listener.close()
    asyncio.run(main())


def test_a_request_header_with_a_line_break_is_refused_not_sent() -> None:
    sent = request_bytes("/a", [("Host", "h"), ("Cookie", "x=1")], True)
    assert sent == b"GET /a HTTP/1.1\r\nHost: h\r\nCookie: x=1\r\n\r\n"
    for lines in ([("Cookie", "x=1\nEvil: 1")], [("Cookie", "x=1\rEvil: 1")], [("If-None-Match", "\r\n")]):
        with pytest.raises(ValueError, match="CR or LF"):
            request_bytes("/a", [("Host", "h"), *lines], True)

    async def main() -> None:
        async with serving(answer(OK + b"Content-Length: 2\r\n\r\nok")) as (server, base):
            protocol = HttpProtocol(settings(http_enable_cookie_header=True))
            try:
                out = await protocol.fetch(base + "/", CrawlDatum(metadata={"Cookie": "a=1\r\nX-Injected: 1"}))
            finally:
                await protocol.close()
            assert out.status.code == ProtocolStatusCode.EXCEPTION and server.requests == []
    asyncio.run(main())
