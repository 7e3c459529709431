"""The aiohttp client of plugin ``protocol-http``: used through a proxy (``http.proxy.host``) or on request.

The lean client (:mod:`.http_lean`) is the default; this one does what it does not (an HTTP
proxy) and is kept as the reference both are tested against (``http.client=aiohttp``).  One
``aiohttp.ClientSession`` per plugin instance (created on first use inside the running loop),
the guard's resolver as the connector's, aiohttp's decompression off: the body is read as
transferred and decoded here (:class:`~.http_decoding.ContentDecoder`).  Limits and outcomes
are the lean client's: :class:`AioClient.fetch` returns an :class:`~.http_output.Answer` or
raises what the plugin maps to a status.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

import aiohttp

from gossamer.plugins.builtin.http_decoding import ENCODINGS, BodyLimits, CappedBody, ContentDecoder
from gossamer.plugins.builtin.http_guard import HttpGuard, ip_literal
from gossamer.plugins.builtin.http_lean import HeadTimeout
from gossamer.plugins.builtin.http_output import Answer
from gossamer.plugins.builtin.http_robots import REDIRECT_CODES, TOTAL_TIMEOUT_FACTOR

CHUNK = 65536


class AioClient:
    """GET on one aiohttp session (see the module docstring)."""

    def __init__(self, guard: HttpGuard, timeout: float, keepalive: float, verify_tls: bool, http11: bool,
                 proxy: str | None) -> None:
        self.guard, self.timeout, self.keepalive, self.verify_tls = guard, timeout, keepalive, verify_tls
        self.version = aiohttp.HttpVersion11 if http11 else aiohttp.HttpVersion10
        self.proxy = proxy
        self._session: aiohttp.ClientSession | None = None

    def session(self) -> aiohttp.ClientSession:
        """The session, made on first use (in the running loop)."""
        if self._session is None or self._session.closed:
            # the guard's resolver caches answers (http.dns.cache.seconds): aiohttp's own cache of
            # 1,000 names would make a process fetching from more hosts resolve on every new connection
            connector = aiohttp.TCPConnector(limit=0, ssl=None if self.verify_tls else False, use_dns_cache=False,
                                             resolver=self.guard.resolver, keepalive_timeout=self.keepalive)
            self._session = aiohttp.ClientSession(
                connector=connector, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar(),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.timeout, sock_read=self.timeout),
                skip_auto_headers=("User-Agent",), version=self.version)
        return self._session

    async def close(self) -> None:
        """Close the session and its connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def fetch(self, url: str, headers: dict[str, str], limits: BodyLimits, head_deadline: float,
                    deadline: float | None) -> tuple[Answer, str, list[tuple[str, str]]]:
        """The answer, the request target and the request headers as aiohttp sent them."""
        try:
            async with asyncio.timeout_at(head_deadline):
                response = await self.session().get(url, headers=headers, allow_redirects=False, proxy=self.proxy)
        except TimeoutError as exc:
            raise HeadTimeout() from exc
        async with response:
            peer = self._peer_address(response)
            body = CappedBody(response.headers.get("Content-Encoding", "identity").strip().lower(), limits)
            try:
                async with asyncio.timeout_at(deadline) as budget:
                    async for chunk in response.content.iter_chunked(CHUNK):
                        if body.feed(chunk):
                            break
            except TimeoutError:
                if not budget.expired():
                    raise
                body.truncated = body.truncated or "time"
            except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError):
                if not (limits.partial_truncated and body.size):
                    raise
                body.truncated = body.truncated or "disconnect"
            info = response.request_info
            header_list = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.raw_headers]
            version = f"{response.version.major}.{response.version.minor}" if response.version else "1.1"
            raw = body.raw()
            answer = Answer(response.status, response.reason or "", version, header_list, response.headers,
                            raw, body.content(raw), body.truncated, body.error, peer)
        target = info.url.raw_path_qs if hasattr(info.url, "raw_path_qs") else info.url.path_qs
        return answer, target, list(info.headers.items())

    async def robots_get(self, url: str, headers: dict[str, str], timeout: float,
                         cap: int) -> tuple[int, Mapping[str, str], bytes]:
        """One robots.txt hop (see :mod:`.http_robots`): status, headers, body decoded up to ``cap`` bytes."""
        limit = aiohttp.ClientTimeout(total=timeout * TOTAL_TIMEOUT_FACTOR, sock_connect=timeout, sock_read=timeout)
        async with self.session().get(url, allow_redirects=False, timeout=limit, headers=headers,
                                      proxy=self.proxy) as response:
            encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
            decoder = ContentDecoder(encoding if encoding in ENCODINGS else "identity", cap)
            out = bytearray()
            if response.status not in REDIRECT_CODES:
                async for chunk in response.content.iter_chunked(CHUNK):
                    out += decoder.feed(chunk)
                    if decoder.full:
                        break
            return response.status, response.headers, bytes(out)

    def _peer_address(self, response: aiohttp.ClientResponse) -> str | None:
        """The address the response came from, through public interfaces only.

        The connection's socket while aiohttp still holds it (a body still streaming); else
        the host itself when it is an IP literal; else the address the guarded resolver
        handed aiohttp first for the host (the one it connects to unless that fails).
        ``None`` through a proxy (the peer is the proxy).
        """
        if self.proxy:
            return None
        connection = response.connection
        transport = connection.transport if connection is not None else None
        peer = transport.get_extra_info("peername") if transport is not None else None
        if peer:
            return str(peer[0])
        host = response.url.host or ""
        literal = ip_literal(host)
        if literal is not None:
            return str(literal)
        return self.guard.resolver.first_address.get(host)
