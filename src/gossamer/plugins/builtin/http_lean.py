"""The lean HTTP/1.x client of plugin ``protocol-http``: one GET on a pooled connection, read by hand.

:meth:`LeanClient.get` sends a request the caller composed (:func:`request_bytes`) on a
connection of the :class:`~.http_pool.Pool` and reads the answer from the connection's buffer
(:mod:`.http_wire`): the head (:mod:`.http_head`; 1xx interim answers skipped), then the body
framed by ``Transfer-Encoding: chunked``, ``Content-Length`` or the end of the connection
(none after 204, 304 and 1xx).  The body is kept as transferred (``raw``) and decoded by its
``Content-Encoding`` with the cap (:class:`~.http_decoding.ContentDecoder`); an identity body
*is* its decoded content (one object, no copy).

Limits and outcomes (the plugin maps them to statuses):

* ``timeout`` bounds connecting and every wait for bytes; ``head_deadline`` (loop time) the
  connection and the whole head: past it :class:`HeadTimeout`;
* ``deadline`` (``http.time.limit``) ends a body still arriving: kept, truncated ``time``;
* a raw body longer than ``content_limit`` (or, identity, the decoded cap) is cut there and the
  connection closed: truncated ``length``;
* a body that breaks off (the connection ends or is reset before its end, a bad chunk line)
  raises :class:`PayloadError`, or with ``partial_truncated`` and some bytes read is kept as
  truncated ``disconnect``; a read timeout in the body raises ``TimeoutError``;
* a head that is not HTTP/1.x raises :class:`~.http_head.BadResponse`; network errors raise
  ``OSError``, refused addresses ``AddressRefused`` (from the pool).

Keep-alive: a connection goes back to the pool only when the answer was complete and framed,
nothing more is buffered, the request was HTTP/1.1 and the server did not ask to close.  A
reused connection that ends before any byte of the answer arrives (the server closed it while
idle) is replaced by a fresh one and the request sent once more; once a byte has arrived the
request is never sent again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from gossamer.plugins.builtin.http_decoding import BodyLimits, CappedBody
from gossamer.plugins.builtin.http_head import MAX_HEAD, MAX_LINE, BadResponse, Head, head_end, parse_head
from gossamer.plugins.builtin.http_pool import Key, Pool
from gossamer.plugins.builtin.http_wire import Wire

HEX = b"0123456789abcdefABCDEF"
MAX_TRAILERS = 64
MAX_INTERIM = 8
"""1xx answers skipped before the final one, at most."""


class HeadTimeout(TimeoutError):
    """No complete response head by the head deadline (or no connection by then)."""


class PayloadError(ConnectionError):
    """The body broke off or its framing is wrong (the message says how)."""


class _TimeUp(Exception):
    """The exchange's deadline passed while the body was arriving."""


@dataclass(slots=True)
class LeanResponse:
    """One answer: its head, the body as transferred and decoded, why it was cut, where it came from."""

    head: Head
    raw: bytes
    content: bytes
    truncated: str
    error: str
    peer: str | None


def request_bytes(target: str, lines: list[tuple[str, str]], http11: bool) -> bytes:
    """``GET target`` with the header fields ``lines`` in order (ValueError for a CR or LF in one)."""
    head = "".join(f"{name}: {value}\r\n" for name, value in lines)
    if head.count("\n") != len(lines) or head.count("\r") != len(lines) or "\n" in target or "\r" in target:
        raise ValueError("a CR or LF in a request header or the target")
    return f"GET {target} HTTP/{'1.1' if http11 else '1.0'}\r\n{head}\r\n".encode()


class LeanClient:
    """GET over the pool's connections (see the module docstring)."""

    def __init__(self, pool: Pool, timeout: float) -> None:
        self.pool, self.timeout = pool, timeout

    async def get(self, key: Key, request: bytes, http11: bool, limits: BodyLimits,
                  head_deadline: float, deadline: float | None) -> LeanResponse:
        """Send ``request`` to ``key`` and read the answer (raises as the module docstring says)."""
        try:
            wire, reused = await self.pool.acquire(key, head_deadline)
            try:
                head = await self._send(wire, request, reused, head_deadline)
            except _Stale:
                wire = await self.pool.connect(key, head_deadline)
                head = await self._send(wire, request, False, head_deadline)
        except TimeoutError as exc:
            raise HeadTimeout() from exc
        try:
            body = CappedBody(head.first.get("content-encoding", "identity").strip().lower(), limits)
            complete = False
            try:
                complete = await self._body(wire, head, body, deadline)
            except _TimeUp:
                body.truncated = body.truncated or "time"
            except PayloadError:
                if not (limits.partial_truncated and body.size):
                    raise
                body.truncated = body.truncated or "disconnect"
            if complete and http11 and not wire.buffer and _keeps_alive(head):
                self.pool.release(key, wire)
            else:
                wire.close()
        except BaseException:
            wire.close()
            raise
        raw = body.raw()
        return LeanResponse(head, raw, body.content(raw), body.truncated, body.error, wire.peer)

    async def _send(self, wire: Wire, request: bytes, reused: bool, deadline: float) -> Head:
        """Write ``request`` and read the final head; _Stale when a reused connection ended unanswered."""
        try:
            assert wire.transport is not None
            wire.transport.write(request)
            scanned, interim = 0, 0
            while True:
                buffer = wire.buffer
                end = head_end(buffer, max(0, scanned - 3))
                if end >= 0:
                    head = parse_head(buffer[:end])
                    del buffer[:end]
                    scanned = 0
                    if 100 <= head.status < 200 and head.status != 101 and interim < MAX_INTERIM:
                        interim += 1
                        continue
                    return head
                scanned = len(buffer)
                if scanned > MAX_HEAD:
                    raise BadResponse(f"response headers longer than {MAX_HEAD} bytes")
                if wire.closed:
                    if reused and wire.received == 0:
                        raise _Stale()
                    if wire.error is not None:
                        raise wire.error
                    raise ConnectionResetError("the server closed the connection before a complete response head")
                await wire.wait(min(deadline, asyncio.get_running_loop().time() + self.timeout))
        except BaseException:
            wire.close()
            raise

    async def _body(self, wire: Wire, head: Head, body: CappedBody, deadline: float | None) -> bool:
        """Read the body into ``body``; True when it was read to its framed end."""
        if head.status < 200:  # 101: the connection is no longer HTTP
            return False
        if head.status in (204, 304):
            return True
        coding = head.first.get("transfer-encoding")
        if coding is not None:
            if coding.rstrip(" \t").lower().endswith("chunked"):
                return await self._chunked(wire, body, deadline)
            return await self._to_close(wire, body, deadline) and False
        length = head.first.get("content-length")
        if length is None:
            return await self._to_close(wire, body, deadline) and False
        if not (length.isascii() and length.isdigit()):
            raise PayloadError(f"bad Content-Length {length[:40]!r}")
        return await self._exact(wire, int(length), body, deadline)

    async def _more(self, wire: Wire, deadline: float | None) -> None:
        """Wait for bytes: ``TimeoutError`` after ``timeout`` s of silence, _TimeUp at ``deadline``."""
        now = asyncio.get_running_loop().time()
        until = now + self.timeout
        if deadline is not None and deadline <= until:
            if deadline <= now:
                raise _TimeUp()
            until = deadline
        try:
            await wire.wait(until)
        except TimeoutError:
            if until == deadline:
                raise _TimeUp() from None
            raise TimeoutError(f"no data for {self.timeout:g} s (http.timeout) while reading the body") from None

    async def _exact(self, wire: Wire, size: int, body: CappedBody, deadline: float | None) -> bool:
        """``size`` body bytes; False when a cap stopped the reading first."""
        while size > 0:
            buffer = wire.buffer
            if not buffer:
                if wire.closed:
                    raise PayloadError(f"the connection ended {size} bytes before the end of the body")
                await self._more(wire, deadline)
                continue
            if len(buffer) <= size:
                chunk, wire.buffer = buffer, bytearray()
            else:
                chunk = buffer[:size]
                del buffer[:size]
            size -= len(chunk)
            if body.feed(chunk):
                return False
        return True

    async def _line(self, wire: Wire, deadline: float | None) -> bytes:
        """One line of chunked framing (CR LF or LF removed)."""
        while True:
            buffer = wire.buffer
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[:end + 1]
                return line.removesuffix(b"\r")
            if len(buffer) > MAX_LINE:
                raise PayloadError(f"a chunk line longer than {MAX_LINE} bytes")
            if wire.closed:
                raise PayloadError("the connection ended inside a chunked body")
            await self._more(wire, deadline)

    async def _chunked(self, wire: Wire, body: CappedBody, deadline: float | None) -> bool:
        while True:
            line = await self._line(wire, deadline)
            field = line.split(b";", 1)[0].strip(b" \t")
            if not field or field.strip(HEX) or len(field) > 15:
                raise PayloadError(f"bad chunk size line {line[:40]!r}")
            size = int(field, 16)
            if size == 0:
                for _ in range(MAX_TRAILERS):
                    if not await self._line(wire, deadline):
                        return True
                raise PayloadError(f"more than {MAX_TRAILERS} trailer lines")
            if not await self._exact(wire, size, body, deadline):
                return False
            if await self._line(wire, deadline):
                raise PayloadError("chunk data longer than its size")

    async def _to_close(self, wire: Wire, body: CappedBody, deadline: float | None) -> bool:
        """The body up to the end of the connection; True when it ended cleanly."""
        while True:
            buffer = wire.buffer
            if buffer:
                wire.buffer = bytearray()
                if body.feed(buffer):
                    return False
                continue
            if wire.closed:
                if wire.error is not None:
                    raise PayloadError(f"the connection was reset: {wire.error}")
                return True
            await self._more(wire, deadline)


class _Stale(Exception):
    """A reused connection ended before any byte of the answer: send the request on a fresh one."""


def _keeps_alive(head: Head) -> bool:
    """Whether the server lets the connection serve another request."""
    connection = head.first.get("connection")
    if connection is not None and connection.lower() == "keep-alive":
        return True
    if head.version == "1.1":
        return connection is None or "close" not in head.tokens("connection")
    return connection is not None and "keep-alive" in head.tokens("connection")
