"""Plugin ``protocol-http``: HTTP(S) on aiohttp with Nutch's headers, limits and status mapping.

One :class:`HttpProtocol` serves one fetch run with one ``aiohttp.ClientSession``
(created on first use inside the running loop; :meth:`HttpProtocol.close` ends
it).  ``fetch`` never raises for network or server trouble: every outcome is a
:class:`~gossamer.core.records.ProtocolStatus` mapped as reference §4 says
(:func:`status_for_http`).  The body is read as transferred (aiohttp's own
decompression is off) so WARC records keep the real bytes and headers; it is
decoded here, chunk by chunk, and decoding stops at the decoded-size cap, so a
gzip/deflate/br bomb costs at most the cap.  Time: ``http.timeout`` bounds connecting and
each read, ``http.timeout.headers`` the whole status line and headers (a server that drips
them is cut off: EXCEPTION), and ``http.time.limit`` the whole exchange from the request
on (a body still arriving then is kept as truncated, reason ``time``).  Redirects are never
followed here.
Every request passes the SSRF guard (:mod:`.http_guard`): a refused address gives
ACCESS_DENIED with the reason ``address refused: …``, and no connection is made.
Connections: an idle one stays open ``http.keepalive.timeout`` seconds for the host's next
request (one per host at a time in a polite crawl, so at most one idle connection per host),
and a host name is resolved once per ``http.dns.cache.seconds`` (:mod:`.http_dns_cache`).
The plugin is registered by :mod:`.protocol_http_plugin`, which imports this module (and
aiohttp) only when the plugin is built.
"""

from __future__ import annotations

import asyncio
import time
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from urllib.parse import urljoin, urlsplit

import aiohttp
import brotli

from gossamer.core import (
    DECODING_ERROR,
    DECOMPRESSED_LIMIT_PROPERTY,
    DEFAULT_DECOMPRESSED_LIMIT,
    META_COOKIE,
    META_ETAG,
    TRUNCATED,
    TRUNCATED_REASON,
    AddressPolicy,
    Content,
    CrawlDatum,
    HttpExchange,
    ProtocolStatus,
    ProtocolStatusCode,
    Settings,
    SettingsError,
    agent_string,
    http_date,
)
from gossamer.plugins.api import Protocol, ProtocolOutput, RobotsRequest, RobotsResponse
from gossamer.plugins.builtin.http_decoding import ENCODINGS, ContentDecoder
from gossamer.plugins.builtin.http_guard import REFUSED_PREFIX, HttpGuard, ip_literal, refused_reason
from gossamer.plugins.builtin.http_robots import fetch_robots_http

CHUNK = 65536


def status_for_http(code: int, url: str, location: str | None) -> ProtocolStatus:
    """Nutch's HTTP → ProtocolStatus mapping (reference §4); redirects carry the resolved target."""
    if code == 200:
        return ProtocolStatus(ProtocolStatusCode.SUCCESS)
    if code == 304:
        return ProtocolStatus(ProtocolStatusCode.NOTMODIFIED)
    if 300 <= code < 400:
        target = urljoin(url, location or "")
        temp = code in (302, 303, 307)
        return ProtocolStatus(ProtocolStatusCode.TEMP_MOVED if temp else ProtocolStatusCode.MOVED, (target,))
    named = {400: ProtocolStatusCode.GONE, 401: ProtocolStatusCode.ACCESS_DENIED,
             404: ProtocolStatusCode.NOTFOUND, 410: ProtocolStatusCode.GONE}
    if code in named:
        return ProtocolStatus(named[code], (f"Http code={code}, url={url}",))
    return ProtocolStatus(ProtocolStatusCode.EXCEPTION, (f"Http code={code}, url={url}",))


@dataclass
class HttpOutput(ProtocolOutput):
    """A :class:`ProtocolOutput` with the response headers (lower-cased names)."""

    headers: dict[str, str] = field(default_factory=dict)


def _optional_int(settings: Settings, name: str, default: int) -> int:
    try:
        return settings.get_int(name)
    except SettingsError:
        return default


class HttpProtocol(Protocol):
    """HTTP/HTTPS fetching on aiohttp (see the module docstring for the contract)."""

    schemes = ("http", "https")

    def __init__(self, settings: Settings, decompressed_limit: int | None = None) -> None:
        self.user_agent = agent_string(settings)
        self.timeout = settings.get_int("http.timeout") / 1000.0
        self.content_limit = settings.get_int("http.content.limit")
        self.time_limit = settings.get_int("http.time.limit")
        self.headers_timeout = settings.get_int("http.timeout.headers") / 1000.0
        self.partial_truncated = settings.get_bool("http.partial.truncated")
        if decompressed_limit is None:
            decompressed_limit = _optional_int(settings, DECOMPRESSED_LIMIT_PROPERTY, DEFAULT_DECOMPRESSED_LIMIT)
        caps = [c for c in (self.content_limit, decompressed_limit) if c >= 0]
        self.decoded_limit = min(caps) if caps else DEFAULT_DECOMPRESSED_LIMIT
        self.if_modified_since = settings.get_bool("http.enable.if.modified.since.header")
        self.send_cookie = settings.get_bool("http.enable.cookie.header")
        self.verify_tls = settings.get_bool("http.tls.certificates.check")
        self.version = aiohttp.HttpVersion11 if settings.get_bool("http.useHttp11") else aiohttp.HttpVersion10
        proxy_host = settings.get_str("http.proxy.host").strip()
        self.proxy = f"http://{proxy_host}:{settings.get_int('http.proxy.port')}" if proxy_host else None
        self.guard = HttpGuard(AddressPolicy.from_settings(settings), proxy_host or None,
                               settings.get_float("http.dns.cache.seconds"))
        self.keepalive = settings.get_float("http.keepalive.timeout")
        self.headers: dict[str, str] = {"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate, br"}
        for header, prop in (("Accept", "http.accept"), ("Accept-Language", "http.accept.language"),
                             ("Accept-Charset", "http.accept.charset")):
            value = settings.get_str(prop)
            if value != " " and value.strip():
                self.headers[header] = value.strip()
        self._session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
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

    def request_headers(self, datum: CrawlDatum) -> dict[str, str]:
        """Headers for one request: the fixed ones plus conditional-GET and cookie headers from ``datum``."""
        headers = dict(self.headers)
        if self.if_modified_since and datum.modified_time > 0:
            try:
                moment = datetime.fromtimestamp(datum.modified_time / 1000, tz=UTC)
                headers["If-Modified-Since"] = format_datetime(moment, usegmt=True)
            except (OverflowError, ValueError, OSError):  # a corrupt modified time: fetch unconditionally
                pass
        etag = datum.metadata.get(META_ETAG)
        if etag:
            headers["If-None-Match"] = etag
        cookie = datum.metadata.get(META_COOKIE)
        if self.send_cookie and cookie:
            headers["Cookie"] = cookie
        return headers

    async def fetch(self, url: str, datum: CrawlDatum) -> HttpOutput:
        """GET ``url`` once (no redirects followed); never raises for network or server errors."""
        scheme = urlsplit(url).scheme.lower() if "://" in url else ""
        if scheme not in self.schemes:
            return HttpOutput(ProtocolStatus(ProtocolStatusCode.PROTO_NOT_FOUND, (f"no protocol for {url}",)))
        refusal = await self.guard.refusal_for(url)
        if refusal is not None:
            return _refused(refusal)
        started = time.monotonic()
        date = datetime.now(UTC)
        headers = self.request_headers(datum)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.time_limit if self.time_limit > 0 else None
        headers_deadline = _earliest(deadline, loop.time() + self.headers_timeout if self.headers_timeout > 0 else None)
        try:
            try:
                async with asyncio.timeout_at(headers_deadline):
                    response = await self._client().get(url, headers=headers, allow_redirects=False,
                                                        proxy=self.proxy)
            except TimeoutError:
                waited = time.monotonic() - started
                return HttpOutput(ProtocolStatus(ProtocolStatusCode.EXCEPTION, (
                    f"TimeoutError: no complete response headers after {waited:.1f} s "
                    "(http.timeout.headers / http.time.limit)",)), response_ms=int(waited * 1000))
            async with response:
                return await self._read(url, response, started, date, deadline)
        except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as exc:
            refusal = refused_reason(exc)
            if refusal is not None:
                return _refused(refusal)
            message = type(exc).__name__ + (f": {exc}" if str(exc) else "")
            return HttpOutput(ProtocolStatus(ProtocolStatusCode.EXCEPTION, (message,)),
                              response_ms=int((time.monotonic() - started) * 1000))

    async def fetch_robots(self, robots_url: str, request: RobotsRequest) -> RobotsResponse:
        """robots.txt over this plugin's session (the fetch's connection pool); see :mod:`.http_robots`."""
        return await fetch_robots_http(self._client(), robots_url, request, self.guard, self.proxy)

    def _peer_address(self, url: str, response: aiohttp.ClientResponse) -> str | None:
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

    async def _read(self, url: str, response: aiohttp.ClientResponse, started: float,
                    date: datetime, deadline: float | None) -> HttpOutput:
        peer = self._peer_address(url, response)
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        decoder = ContentDecoder(encoding if encoding in ENCODINGS else "identity",
                           self.decoded_limit)
        raw, decoded = bytearray(), bytearray()
        truncated, error = "", ""
        try:
            async with asyncio.timeout_at(deadline) as budget:
                async for chunk in response.content.iter_chunked(CHUNK):
                    if 0 <= self.content_limit < len(raw) + len(chunk):
                        chunk = chunk[:self.content_limit - len(raw)]
                        truncated = "length"
                    raw += chunk
                    if not error:
                        try:
                            decoded += decoder.feed(chunk)
                        except (zlib.error, brotli.error) as exc:
                            error = f"{encoding}: {exc}"
                    if decoder.full:
                        truncated = "length"
                    if truncated:
                        break
        except TimeoutError:
            if not budget.expired():
                raise
            truncated = "time"
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError):
            if not (self.partial_truncated and raw):
                raise
            truncated = "disconnect"
        elapsed = int((time.monotonic() - started) * 1000)
        info = response.request_info
        header_list = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in response.raw_headers]
        status = status_for_http(response.status, url, response.headers.get("Location"))
        if status.code == ProtocolStatusCode.SUCCESS and response.headers.get("Last-Modified"):
            modified = http_date(response.headers["Last-Modified"])
            if modified is not None:
                status.last_modified = int(modified.timestamp() * 1000)
        metadata: dict[str, str] = {}
        if truncated:
            metadata[TRUNCATED] = "true"
            metadata[TRUNCATED_REASON] = truncated
        if error:
            metadata[DECODING_ERROR] = error
        content = Content(url, url, bytes(decoded), response.headers.get("Content-Type", ""), header_list,
                          metadata)
        target = info.url.raw_path_qs if hasattr(info.url, "raw_path_qs") else info.url.path_qs
        exchange = HttpExchange(
            url=url, method=info.method, request_target=target,
            http_version=f"{response.version.major}.{response.version.minor}" if response.version else "1.1",
            request_headers=list(info.headers.items()), status=response.status, reason=response.reason or "",
            response_headers=header_list, raw_body=bytes(raw), date=date,
            ip=peer, truncated=truncated,
            request_version=f"{self.version.major}.{self.version.minor}")
        return HttpOutput(status, content, exchange, elapsed, dict(response.headers))


def _earliest(*moments: float | None) -> float | None:
    """The earliest of the loop times given (None = no deadline)."""
    known = [m for m in moments if m is not None]
    return min(known) if known else None


def _refused(reason: str) -> HttpOutput:
    """The SSRF guard said no: ACCESS_DENIED (fetch_gone in the crawldb) with the guard's reason."""
    return HttpOutput(ProtocolStatus(ProtocolStatusCode.ACCESS_DENIED, (f"{REFUSED_PREFIX}{reason}",)))
