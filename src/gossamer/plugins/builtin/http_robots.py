"""robots.txt over HTTP(S) for plugin ``protocol-http``: redirects by hand, a byte cap, timeouts.

:func:`fetch_robots_http` runs on the plugin's own connections (the lean client's pool, or the
aiohttp session when the plugin uses aiohttp), so robots.txt requests share the connection
pool of the page requests.  ``GET`` with the robots User-Agent and
``Accept: text/plain,*/*;q=0.8``; ``request.timeout`` for connecting and for each read, four
times that for each hop's whole exchange; redirects (301, 302, 303, 307, 308) followed up to
``request.redirect_max``, every hop recorded, a redirect off HTTP(S) reported as
``left_protocol``; the body decoded up to ``request.max_bytes`` + 1 bytes.  Network trouble
never raises: it becomes a response with ``status=None`` and the error's name.  What the
outcome *means* (Nutch's status rules) is decided by the caller, :mod:`gossamer.crawl.robots`.
"""

from __future__ import annotations

import zlib
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import urljoin, urlsplit

import aiohttp
import brotli

from gossamer.plugins.api import RobotsRequest, RobotsResponse
from gossamer.plugins.builtin.http_guard import REFUSED_PREFIX, HttpGuard, refused_reason

TOTAL_TIMEOUT_FACTOR = 4
"""One robots.txt hop (connecting, headers, a slow body) may take this many ``request.timeout``."""
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})

Getter = Callable[[str, dict[str, str], float, int], Awaitable[tuple[int, Mapping[str, str], bytes]]]
"""``get(url, headers, timeout, cap)`` → status, header lookup (lower-cased names), body decoded up to ``cap``."""


async def fetch_robots_http(get: Getter, guard: HttpGuard, robots_url: str, request: RobotsRequest) -> RobotsResponse:
    """Fetch ``robots_url`` as the module docstring says; never raises for network trouble.

    ``guard`` is the plugin's SSRF guard (the clients' resolver is its other half): a refused
    address, on the first request or on a redirect hop, ends the exchange with ``status=None``
    and ``error`` starting with ``address refused:``.
    """
    headers = {"User-Agent": request.user_agent, "Accept": "text/plain,*/*;q=0.8",
               "Accept-Encoding": "gzip, deflate, br"}
    hops: list[str] = []
    url = robots_url
    try:
        while True:
            refusal = await guard.refusal_for(url)
            if refusal is not None:
                return RobotsResponse(None, redirects=tuple(hops), error=REFUSED_PREFIX + refusal)
            status, lookup, body = await get(url, headers, request.timeout, request.max_bytes + 1)
            location = lookup.get("location")
            if status in REDIRECT_CODES and location and len(hops) < request.redirect_max:
                url = urljoin(url, location)
                if urlsplit(url).scheme not in ("http", "https"):
                    return RobotsResponse(status, redirects=tuple(hops + [url]), left_protocol=url)
                hops.append(url)
                continue
            body = b"" if status in REDIRECT_CODES else body
            return RobotsResponse(status, body, lookup.get("content-type"), tuple(hops))
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError, zlib.error, brotli.error) as exc:
        refusal = refused_reason(exc)
        message = REFUSED_PREFIX + refusal if refusal else type(exc).__name__ + (f": {exc}" if str(exc) else "")
        return RobotsResponse(None, redirects=tuple(hops), error=message)
