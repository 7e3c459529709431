"""Helpers of the fetch loop: the status mapping, robots.txt access and redirect-target processing."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from gossamer.core import (
    META_CONTENT_TYPE,
    META_COOKIE,
    META_ETAG,
    META_PROTOCOL_CODE,
    META_PROTOCOL_STATUS,
    META_REPR_URL,
    META_RESPONSE_TIME,
    CrawlStatus,
    ProtocolStatusCode,
    Settings,
)
from gossamer.crawl.robots import RobotRules, RobotsCache, RobotsPolicy, allow_all, fetch_robots, robots_protocol
from gossamer.plugins import Protocol

STATUS_MAP: dict[ProtocolStatusCode, CrawlStatus] = {
    ProtocolStatusCode.SUCCESS: CrawlStatus.FETCH_SUCCESS,
    ProtocolStatusCode.MOVED: CrawlStatus.FETCH_REDIR_PERM,
    ProtocolStatusCode.TEMP_MOVED: CrawlStatus.FETCH_REDIR_TEMP,
    ProtocolStatusCode.EXCEPTION: CrawlStatus.FETCH_RETRY,
    ProtocolStatusCode.RETRY: CrawlStatus.FETCH_RETRY,
    ProtocolStatusCode.FAILED: CrawlStatus.FETCH_RETRY,
    ProtocolStatusCode.GONE: CrawlStatus.FETCH_GONE,
    ProtocolStatusCode.NOTFOUND: CrawlStatus.FETCH_GONE,
    ProtocolStatusCode.ACCESS_DENIED: CrawlStatus.FETCH_GONE,
    ProtocolStatusCode.ROBOTS_DENIED: CrawlStatus.FETCH_GONE,
    ProtocolStatusCode.REDIR_EXCEEDED: CrawlStatus.FETCH_GONE,
    ProtocolStatusCode.NOTMODIFIED: CrawlStatus.FETCH_NOTMODIFIED,
}
"""Nutch's ProtocolStatus → fetch status (FetcherThread); any other code → fetch_retry."""


CODE_NAMES: dict[ProtocolStatusCode, str] = {code: code.name.lower() for code in ProtocolStatusCode}
"""Lower-case names of the protocol status codes (the fetch summary's keys), made once per process."""


def last_value(fields: list[tuple[str, str]], name: str) -> str | None:
    """The value of the last header field called ``name`` (give it in lower case; matched case-insensitively).

    None when there is none; what ``dict((k.lower(), v) for k, v in fields).get(name)`` gives, without the dict.
    """
    for key, value in reversed(fields):
        if key.lower() == name:
            return value
    return None


def fetch_status_for(code: ProtocolStatusCode) -> CrawlStatus:
    """The fetch status of a protocol outcome (unknown codes → fetch_retry)."""
    return STATUS_MAP.get(code, CrawlStatus.FETCH_RETRY)


def representative_url(source: str, target: str, temp: bool) -> str:
    """The URL a redirect pair is known by (``_repr_``).

    The target for permanent redirects, the source for temporary ones (a
    simplification of Nutch's URLUtil.chooseRepr heuristics).
    """
    return source if temp else target


RESPONSE_KEYS = frozenset({META_PROTOCOL_STATUS, META_PROTOCOL_CODE, META_ETAG, META_RESPONSE_TIME, META_CONTENT_TYPE})
"""Datum metadata that describes one URL's own last response: never handed on to a redirect target."""


def redirect_metadata(source: dict[str, str], repr_url: str, same_host: bool) -> dict[str, str]:
    """Metadata of a redirect target's datum: the source's, as Nutch hands it on, with ``_repr_``.

    Seed metadata and what scoring filters keep (``_depth_``, ``_maxdepth_`` …) follow the
    redirect; the keys of :data:`RESPONSE_KEYS` stay with the source, and so does a
    ``Cookie`` when the target is on another host (unlike Nutch: a cookie is never sent
    to a host it was not configured for).
    """
    dropped = RESPONSE_KEYS if same_host else RESPONSE_KEYS | {META_COOKIE}
    inherited = {key: value for key, value in source.items() if key not in dropped}
    inherited[META_REPR_URL] = repr_url
    return inherited


class FetchRobots:
    """robots.txt rules for the fetcher: :func:`~gossamer.crawl.robots.fetch_robots` with a cache.

    Requests go through ``protocol`` — in :func:`~gossamer.crawl.fetch.fetcher.fetch_all` the
    same Protocol plugins (one connection pool) that fetch the pages; without one, the
    plugins of ``settings``, closed by :meth:`close`.  :meth:`rules` returns ``(rules,
    fetched)``; ``fetched`` is True when a request went to the host just now (then the
    queue must wait its delay before the page).  ``enabled=False`` allows everything
    without requests.
    """

    def __init__(self, settings: Settings, cache: RobotsCache | None = None, enabled: bool = True,
                 protocol: Protocol | None = None) -> None:
        self.settings = settings
        self.policy = RobotsPolicy.from_settings(settings)
        self.cache = cache if cache is not None else RobotsCache()
        self.enabled = enabled
        self.protocol = protocol
        self._own: Protocol | None = None

    async def rules(self, url: str) -> tuple[RobotRules, bool]:
        """Rules for the host of ``url`` and whether they were fetched now; never raises."""
        if not self.enabled:
            return allow_all("robots.txt checks disabled"), False
        cached = self.cache.get(url)
        if cached is not None:
            return cached, False
        if self.protocol is None:
            self._own = self.protocol = robots_protocol(self.settings)
        try:
            rules = await fetch_robots(url, self.settings, self.protocol, self.cache, self.policy)
        except ValueError as exc:
            return allow_all(f"no robots.txt for {url}: {exc}"), False
        return rules, not self.policy.allowlisted(urlsplit(url).hostname or "")

    async def close(self) -> None:
        """Close the plugins this object opened itself (never the fetch's)."""
        if self._own is not None:
            await self._own.close()
            self._own = self.protocol = None


class RedirectTargets:
    """URL processing of the fetcher: redirect targets and (optionally) fetch-list URLs.

    ``target(url, source)`` normalizes and filters a redirect target (scope ``fetcher``,
    always on, as Nutch) and, with ``db.ignore.also.redirects``, drops it when
    ``db.ignore.external.links`` / ``db.ignore.internal.links`` would drop a link from
    ``source`` to it; ``input_url(url)`` applies fetcher.normalize.urls /
    fetcher.filter.urls to fetch-list entries.  Both return None to reject.
    """

    def __init__(self, target: Callable[[str], str | None], input_url: Callable[[str], str | None],
                 scope: Callable[[str, str], bool] | None = None) -> None:
        self._target = target
        self._input = input_url
        self._scope = scope

    @staticmethod
    def _safe(step: Callable[[str], str | None]) -> Callable[[str], str | None]:
        def run(url: str) -> str | None:
            try:
                return step(url)
            except ValueError:
                return None
        return run

    @classmethod
    def from_settings(cls, settings: Settings) -> RedirectTargets:
        """Chains built from the plugin repository of ``settings``."""
        from gossamer.plugins import PluginRepository, URLChain

        repository = PluginRepository(settings)
        chain = URLChain(repository, "fetcher")
        normalize, filt = settings.get_bool("fetcher.normalize.urls"), settings.get_bool("fetcher.filter.urls")
        if normalize or filt:
            inputs = URLChain(repository, "fetcher", normalize=normalize, filter=filt)
            input_step = cls._safe(lambda u: inputs.filter(inputs.normalize(u)))
        else:
            input_step = _identity
        scope: Callable[[str, str], bool] | None = None
        if settings.get_bool("db.ignore.also.redirects"):
            from gossamer.plugins import URLExemptionFilter
            from gossamer.plugins.support import LinkScope

            link_scope = LinkScope(settings, repository.chain(URLExemptionFilter))
            if link_scope.ignore_external or link_scope.ignore_internal:
                scope = link_scope.keep
        return cls(cls._safe(lambda u: chain.filter(chain.normalize(u))), input_step, scope)

    @classmethod
    def passthrough(cls) -> RedirectTargets:
        """Accept every URL unchanged (tests, callers that filtered already)."""
        return cls(_identity, _identity)

    def target(self, url: str, source: str | None = None) -> str | None:
        """The processed redirect target of a redirect from ``source``, or None."""
        accepted = self._target(url)
        if accepted is not None and source is not None and self._scope is not None \
                and not self._scope(source, accepted):
            return None
        return accepted

    def input_url(self, url: str) -> str | None:
        """The processed fetch-list URL, or None."""
        return self._input(url)


def _identity(url: str) -> str | None:
    return url
