"""Fetching robots.txt through the Protocol plugins, and caching it, as Nutch's RobotRulesParser does.

``scheme://host[:port]/robots.txt`` is requested through the Protocol plugin of its
scheme (:meth:`~gossamer.plugins.api.Protocol.fetch_robots`) — in a fetch, the very
plugin instance and connection pool that fetch the pages — with the crawler's robots
User-Agent, http.timeout, http.robots.redirect.max and the robots byte limit
(:class:`~gossamer.plugins.api.RobotsRequest`).  The plugin only transfers; what the
outcome means is decided here, by :func:`~gossamer.crawl.robots.rules.rules_for_response`
(Nutch's status rules).  A protocol without robots.txt (``None``) allows everything.
Nothing here raises on network trouble: errors become "everything allowed, not cached"
rules, as in Nutch.
"""

from __future__ import annotations

from collections import OrderedDict
from urllib.parse import urlsplit

from gossamer.core import Settings
from gossamer.crawl.robots.rules import DEFAULT_PORTS, RobotRules, RobotsPolicy, allow_all, rules_for_response
from gossamer.plugins import PluginRepository, Protocol, ProtocolSelector, RobotsRequest


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


def robots_protocol(settings: Settings) -> ProtocolSelector:
    """The Protocol plugins of ``settings`` for a robots.txt request made outside a fetch (robotschecker).

    Without ``http.agent.name`` the plugins identify as the robots agent (``gossamer``), as
    the robots.txt request itself does.  The caller closes it.
    """
    if not settings.get_str("http.agent.name").strip():
        settings = settings.with_values([("http.agent.name", RobotsPolicy.from_settings(settings).user_agent)],
                                        "robots.txt request")
    return ProtocolSelector(PluginRepository(settings))


async def fetch_robots_txt(robots_url: str, policy: RobotsPolicy, protocol: Protocol | None = None,
                           settings: Settings | None = None) -> RobotRules:
    """Fetch exactly ``robots_url`` (following redirects) through ``protocol`` and interpret the outcome.

    Without ``protocol`` the plugins of ``settings`` (default settings if None) serve this one request.
    """
    own = protocol is None
    client: Protocol = robots_protocol(settings or Settings()) if protocol is None else protocol
    try:
        response = await client.fetch_robots(robots_url, RobotsRequest(policy.user_agent, policy.timeout,
                                                                       policy.max_bytes, policy.redirect_max))
    finally:
        if own:
            await client.close()
    if response is None:
        return allow_all(f"no robots.txt for {urlsplit(robots_url).scheme}: URLs: everything allowed",
                         source=robots_url)
    if response.left_protocol:
        return allow_all(f"robots.txt redirect to unsupported URL {response.left_protocol}: everything allowed",
                         status=response.status, source=robots_url, redirects=response.redirects)
    if response.status is None:
        return rules_for_response(None, b"", robots_url, policy, error=response.error, redirects=response.redirects)
    return rules_for_response(response.status, response.body, robots_url, policy, response.content_type,
                              redirects=response.redirects)


async def fetch_robots(url: str, settings: Settings, protocol: Protocol | None = None,
                       cache: RobotsCache | None = None, policy: RobotsPolicy | None = None) -> RobotRules:
    """Rules for the host of ``url``: from ``cache``, else fetched through ``protocol`` (and cached when cacheable).

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
        rules = await fetch_robots_txt(robots_url, policy, protocol, settings)
    if cache is not None:
        cache.put(url, rules)
    return rules
