"""Plugin ``protocol-http``: HTTP(S) with Nutch's headers, limits and status mapping, on a lean HTTP/1.1 client.

One :class:`HttpProtocol` serves one fetch run.  It speaks HTTP/1.x itself on asyncio
connections (:mod:`.http_lean`, :mod:`.http_pool`, :mod:`.http_wire`, :mod:`.http_head`), as
Nutch's own ``protocol-http`` does on sockets; through a proxy (``http.proxy.host``), or with
``http.client=aiohttp``, it uses aiohttp instead (:mod:`.http_aio`).  Both clients keep the same
contract, and the tests run the protocol tests over both:

* ``fetch`` sends one GET (no redirects followed) and never raises for network or server
  trouble: every outcome is a :class:`~gossamer.core.records.ProtocolStatus` mapped as
  reference §4 says (:func:`status_for_http`); a hostile answer (garbage status line, huge
  headers, bad chunks, a body shorter than its length, a reset) is an EXCEPTION with its reason.
* The body is read as transferred, so WARC records keep the real bytes and headers
  (``HttpExchange``: request target and headers as sent, status line, raw header fields in
  order, raw body, peer address); it is decoded here, chunk by chunk, and decoding stops at the
  decoded-size cap, so a gzip/deflate/br bomb costs at most the cap.
* Time: ``http.timeout`` bounds connecting and each read, ``http.timeout.headers`` the whole
  status line and headers (a server that drips them is cut off: EXCEPTION), and
  ``http.time.limit`` the whole exchange from the request on (a body still arriving then is
  kept as truncated, reason ``time``).
* Every request passes the SSRF guard (:mod:`.http_guard`): a refused address gives
  ACCESS_DENIED with the reason ``address refused: …``, and no connection is made; only the
  addresses the guard checked are connected to.
* Connections: an idle one stays open ``http.keepalive.timeout`` seconds for the host's next
  request, and a host name is resolved once per ``http.dns.cache.seconds`` (:mod:`.http_dns_cache`).

The plugin is registered by :mod:`.protocol_http_plugin`, which imports this module only when
the plugin is built.
"""

from __future__ import annotations

import asyncio
import string
import time
import zlib
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import format_datetime
from urllib.parse import quote, urlsplit

from gossamer.core import (
    DECOMPRESSED_LIMIT_PROPERTY,
    DEFAULT_DECOMPRESSED_LIMIT,
    META_COOKIE,
    META_ETAG,
    AddressPolicy,
    CrawlDatum,
    ProtocolStatus,
    ProtocolStatusCode,
    Settings,
    SettingsError,
    agent_string,
)
from gossamer.plugins.api import Protocol, RobotsRequest, RobotsResponse
from gossamer.plugins.builtin.http_aio import AioClient
from gossamer.plugins.builtin.http_decoding import BodyLimits
from gossamer.plugins.builtin.http_guard import HttpGuard, refused_reason
from gossamer.plugins.builtin.http_lean import HeadTimeout, LeanClient, request_bytes
from gossamer.plugins.builtin.http_output import (
    Answer,
    HttpOutput,
    Request,
    build_output,
    failure,
    head_timeout,
    refused,
    status_for_http,
)
from gossamer.plugins.builtin.http_pool import Key, Pool
from gossamer.plugins.builtin.http_robots import TOTAL_TIMEOUT_FACTOR, fetch_robots_http

__all__ = ["HttpOutput", "HttpProtocol", "status_for_http"]

_TARGET_SAFE = string.punctuation
"""Characters a request target keeps as they are (letters and digits always): only spaces, controls
and non-ASCII characters are percent-encoded, as UTF-8."""
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _optional_int(settings: Settings, name: str, default: int) -> int:
    try:
        return settings.get_int(name)
    except SettingsError:
        return default


class HttpProtocol(Protocol):
    """HTTP/HTTPS fetching (see the module docstring for the contract)."""

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
        self.limits = BodyLimits(self.content_limit, self.decoded_limit, self.partial_truncated)
        self.if_modified_since = settings.get_bool("http.enable.if.modified.since.header")
        self.send_cookie = settings.get_bool("http.enable.cookie.header")
        self.verify_tls = settings.get_bool("http.tls.certificates.check")
        self.http11 = settings.get_bool("http.useHttp11")
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
        self.client = "aiohttp" if self.proxy else settings.get_str("http.client").strip().lower()
        self.pool = Pool(self.guard, self.keepalive, self.timeout, self.verify_tls)
        self.lean = LeanClient(self.pool, self.timeout)
        self.aio = AioClient(self.guard, self.timeout, self.keepalive, self.verify_tls, self.http11, self.proxy)

    async def close(self) -> None:
        """Close the connections (both clients')."""
        self.pool.close()
        await self.aio.close()

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
            return refused(refusal)
        started = time.monotonic()
        date = datetime.now(UTC)
        headers = self.request_headers(datum)
        now = asyncio.get_running_loop().time()
        deadline = now + self.time_limit if self.time_limit > 0 else None
        head_deadline = now + self.headers_timeout if self.headers_timeout > 0 else float("inf")
        head_deadline = min(head_deadline, deadline) if deadline is not None else head_deadline
        try:
            if self.client == "lean":
                key, target, sent = self._lean_request(url, headers)
                response = await self.lean.get(key, request_bytes(target, sent, self.http11), self.http11,
                                               self.limits, head_deadline, deadline)
                head = response.head
                answer = Answer(head.status, head.reason, head.version, head.headers, head.first, response.raw,
                                response.content, response.truncated, response.error, response.peer)
            else:
                answer, target, sent = await self.aio.fetch(url, headers, self.limits, head_deadline, deadline)
            request = Request(url, target, sent, "1.1" if self.http11 else "1.0", started, date)
            return build_output(request, answer)  # (a Location urljoin refuses raises ValueError here)
        except HeadTimeout:
            return head_timeout(started)
        except Exception as exc:  # noqa: BLE001 - every failure is a status, never an exception out of fetch
            reason = refused_reason(exc)
            return refused(reason) if reason is not None else failure(exc, started)

    def _lean_request(self, url: str, headers: dict[str, str]) -> tuple[Key, str, list[tuple[str, str]]]:
        """The pool key, the request target and the header fields (Host first) of ``url``."""
        parts = urlsplit(url)
        scheme, host = parts.scheme.lower(), parts.hostname or ""
        if not host:
            raise ValueError(f"no host in {url!r}")
        if not host.isascii():
            host = host.encode("idna").decode("ascii")
        port = parts.port or _DEFAULT_PORTS[scheme]
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if not (target.isascii() and target.isprintable()) or " " in target:
            target = quote(target, safe=_TARGET_SAFE)
        authority = f"[{host}]" if ":" in host else host
        if port != _DEFAULT_PORTS[scheme]:
            authority = f"{authority}:{port}"
        return (scheme, host, port), target, [("Host", authority), *headers.items()]

    async def fetch_robots(self, robots_url: str, request: RobotsRequest) -> RobotsResponse:
        """robots.txt through this plugin's connections (lean pool or aiohttp session); see :mod:`.http_robots`."""
        get = self._robots_get if self.client == "lean" else self.aio.robots_get
        return await fetch_robots_http(get, self.guard, robots_url, request)

    async def _robots_get(self, url: str, headers: dict[str, str], timeout: float,
                          cap: int) -> tuple[int, Mapping[str, str], bytes]:
        """One robots.txt hop on the lean client (see :mod:`.http_robots`)."""
        key, target, sent = self._lean_request(url, headers)
        deadline = asyncio.get_running_loop().time() + timeout * TOTAL_TIMEOUT_FACTOR
        response = await LeanClient(self.pool, timeout).get(
            key, request_bytes(target, sent, self.http11), self.http11, BodyLimits(-1, cap, False), deadline, deadline)
        if response.error:
            raise zlib.error(response.error)
        if response.truncated == "time":
            raise TimeoutError(f"robots.txt not read in {timeout * TOTAL_TIMEOUT_FACTOR:g} s")
        return response.head.status, response.head.first, response.content
