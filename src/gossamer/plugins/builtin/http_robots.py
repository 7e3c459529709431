"""robots.txt over HTTP(S) for plugin ``protocol-http``: redirects by hand, a byte cap, timeouts.

:func:`fetch_robots_http` runs on the plugin's own ``aiohttp`` session, so robots.txt
requests share the connection pool of the page requests.  ``GET`` with the robots
User-Agent and ``Accept: text/plain,*/*;q=0.8``; ``request.timeout`` for connecting and
for each read, four times that for the whole exchange; redirects (301, 302, 303, 307,
308) followed up to ``request.redirect_max``, every hop recorded, a redirect off HTTP(S)
reported as ``left_protocol``; the body decoded (the session does not decompress) up to
``request.max_bytes`` + 1 bytes.  Network trouble never raises: it becomes a response
with ``status=None`` and the error's name.  What the outcome *means* (Nutch's status
rules) is decided by the caller, :mod:`gossamer.crawl.robots`.
"""

from __future__ import annotations

import zlib
from urllib.parse import urljoin, urlsplit

import aiohttp
import brotli

from gossamer.plugins.api import RobotsRequest, RobotsResponse
from gossamer.plugins.builtin.http_decoding import ENCODINGS, ContentDecoder
from gossamer.plugins.builtin.http_guard import REFUSED_PREFIX, HttpGuard, refused_reason

TOTAL_TIMEOUT_FACTOR = 4
"""A whole robots.txt exchange (all redirects, slow bodies) may take this many ``request.timeout``."""
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
CHUNK = 65536


async def fetch_robots_http(session: aiohttp.ClientSession, robots_url: str, request: RobotsRequest,
                            guard: HttpGuard, proxy: str | None = None) -> RobotsResponse:
    """Fetch ``robots_url`` as the module docstring says; never raises for network trouble.

    ``guard`` is the plugin's SSRF guard (the session's resolver is its other half): a refused
    address, on the first request or on a redirect hop, ends the exchange with ``status=None``
    and ``error`` starting with ``address refused:``.
    """
    timeout = aiohttp.ClientTimeout(total=request.timeout * TOTAL_TIMEOUT_FACTOR,
                                    sock_connect=request.timeout, sock_read=request.timeout)
    headers = {"User-Agent": request.user_agent, "Accept": "text/plain,*/*;q=0.8",
               "Accept-Encoding": "gzip, deflate, br"}
    hops: list[str] = []
    url = robots_url
    try:
        while True:
            refusal = await guard.refusal_for(url)
            if refusal is not None:
                return RobotsResponse(None, redirects=tuple(hops), error=REFUSED_PREFIX + refusal)
            async with session.get(url, allow_redirects=False, timeout=timeout, headers=headers,
                                   proxy=proxy) as response:
                status = response.status
                location = response.headers.get("Location")
                if status in REDIRECT_CODES and location and len(hops) < request.redirect_max:
                    url = urljoin(url, location)
                    if urlsplit(url).scheme not in ("http", "https"):
                        return RobotsResponse(status, redirects=tuple(hops + [url]), left_protocol=url)
                    hops.append(url)
                    continue
                body = b"" if status in REDIRECT_CODES else await _read_decoded(response, request.max_bytes + 1)
                return RobotsResponse(status, body, response.headers.get("Content-Type"), tuple(hops))
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError, zlib.error, brotli.error) as exc:
        refusal = refused_reason(exc)
        message = REFUSED_PREFIX + refusal if refusal else type(exc).__name__ + (f": {exc}" if str(exc) else "")
        return RobotsResponse(None, redirects=tuple(hops), error=message)


async def _read_decoded(response: aiohttp.ClientResponse, cap: int) -> bytes:
    """The body, decoded by its Content-Encoding, at most ``cap`` bytes (reading stops there)."""
    encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
    decoder = ContentDecoder(encoding if encoding in ENCODINGS else "identity", cap)
    out = bytearray()
    async for chunk in response.content.iter_chunked(CHUNK):
        out += decoder.feed(chunk)
        if decoder.full:
            break
    return bytes(out)
