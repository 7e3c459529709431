"""Fetching robots.txt over HTTP(S) with aiohttp, and caching it, as Nutch's HttpRobotRulesParser does.

``GET scheme://host[:port]/robots.txt`` with the crawler's User-Agent, http.timeout
for connecting and for each read, redirects followed by hand up to
http.robots.redirect.max (every hop recorded), the body read up to the robots byte
limit; the outcome becomes :class:`~gossamer.crawl.robots.rules.RobotRules` through
:func:`~gossamer.crawl.robots.rules.rules_for_response`.  Nothing here raises on network
trouble: errors become "everything allowed, not cached" rules, as in Nutch.
"""

from __future__ import annotations

from collections import OrderedDict
from urllib.parse import urljoin, urlsplit

import aiohttp

from gossamer.core.settings import Settings
from gossamer.crawl.robots.rules import DEFAULT_PORTS, RobotRules, RobotsPolicy, allow_all, rules_for_response

TOTAL_TIMEOUT_FACTOR = 4
"""A whole robots.txt exchange (all redirects, slow bodies) may take this many http.timeout."""
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


def robots_url_for(url: str) -> str:
    """``scheme://host[:port]/robots.txt`` for any URL of that host (default port omitted)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        raise ValueError(f"not an absolute URL: {url!r}")
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or port == DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return f"{scheme}://{netloc}/robots.txt"


def cache_key(url: str) -> str:
    """Nutch's robots cache key ``protocol:host:port`` (lower case, default port filled in)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port if parts.port is not None else DEFAULT_PORTS.get(scheme, -1)
    return f"{scheme}:{(parts.hostname or '').lower()}:{port}"


class RobotsCache:
    """Rules per ``protocol:host:port``, least recently used dropped beyond ``max_entries``.

    Only cacheable rules are kept (Nutch re-fetches after 5xx/429 and network errors).
    A redirect to another host's ``/robots.txt`` also fills that host's entry.
    """

    def __init__(self, max_entries: int = 10000) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, RobotRules] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, url: str) -> RobotRules | None:
        """Cached rules for the host of ``url``, or None."""
        key = cache_key(url)
        rules = self._entries.get(key)
        if rules is not None:
            self._entries.move_to_end(key)
        return rules

    def put(self, url: str, rules: RobotRules) -> None:
        """Remember ``rules`` for the host of ``url`` (ignored when not cacheable)."""
        if not rules.cacheable:
            return
        keys = [cache_key(url)]
        if rules.redirects and urlsplit(rules.redirects[-1]).path == "/robots.txt":
            keys.append(cache_key(rules.redirects[-1]))
        for key in dict.fromkeys(keys):
            self._entries[key] = rules
            self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


async def _read_capped(response: aiohttp.ClientResponse, max_bytes: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            break
    return b"".join(chunks)


async def fetch_robots_txt(robots_url: str, policy: RobotsPolicy,
                           session: aiohttp.ClientSession | None = None) -> RobotRules:
    """Fetch exactly ``robots_url`` (following redirects) and interpret the outcome."""
    own = session is None
    timeout = aiohttp.ClientTimeout(total=policy.timeout * TOTAL_TIMEOUT_FACTOR,
                                    sock_connect=policy.timeout, sock_read=policy.timeout)
    client = session or aiohttp.ClientSession()
    hops: list[str] = []
    url = robots_url
    try:
        while True:
            async with client.get(url, allow_redirects=False, timeout=timeout,
                                  headers={"User-Agent": policy.user_agent, "Accept": "text/plain,*/*;q=0.8"}
                                  ) as response:
                status = response.status
                location = response.headers.get("Location")
                if status in REDIRECT_CODES and location and len(hops) < policy.redirect_max:
                    url = urljoin(url, location)
                    if urlsplit(url).scheme not in ("http", "https"):
                        return allow_all(f"robots.txt redirect to unsupported URL {url}: everything allowed",
                                         status=status, source=robots_url, redirects=tuple(hops + [url]))
                    hops.append(url)
                    continue
                body = b"" if status in REDIRECT_CODES else await _read_capped(response, policy.max_bytes)
                return rules_for_response(status, body, robots_url, policy,
                                          response.headers.get("Content-Type"), redirects=tuple(hops))
    except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as exc:
        message = type(exc).__name__ + (f": {exc}" if str(exc) else "")
        return rules_for_response(None, b"", robots_url, policy, error=message, redirects=tuple(hops))
    finally:
        if own:
            await client.close()


async def fetch_robots(url: str, settings: Settings, session: aiohttp.ClientSession | None = None,
                       cache: RobotsCache | None = None, policy: RobotsPolicy | None = None) -> RobotRules:
    """Rules for the host of ``url``: from ``cache``, else fetched (and cached when cacheable).

    A host matching http.robot.rules.allowlist is allowed everything without a fetch.
    Raises ValueError only for a URL without scheme or host; network trouble never raises.
    """
    if cache is not None:
        cached = cache.get(url)
        if cached is not None:
            return cached
    policy = policy or RobotsPolicy.from_settings(settings)
    robots_url = robots_url_for(url)
    if policy.allowlisted(urlsplit(url).hostname or ""):
        rules = allow_all("host in http.robot.rules.allowlist: robots.txt not fetched, everything allowed",
                          source=robots_url)
    else:
        rules = await fetch_robots_txt(robots_url, policy, session)
    if cache is not None:
        cache.put(url, rules)
    return rules
