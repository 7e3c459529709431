"""Fetching and reading sitemaps with the crawler's own fetch loop.

:func:`collect_sitemaps` finds the sitemaps of the given hosts in their robots.txt
and fetches them, and the given sitemap URLs, level by level (an index's sitemaps
are the next level, up to ``sitemap.index.depth.max``), through
:func:`~gossamer.crawl.fetch.fetcher.fetch_all`: the Protocol plugins chosen by
scheme, robots.txt obeyed, one connection per host and the host's delay between
requests (also across levels), ``sitemap.redir.max`` redirects, ``sitemap.size.max``
bytes per sitemap (``http.content.limit`` and ``file.content.limit`` for these
requests, as Nutch).  Every sitemap URL (given, announced or listed in an index) is
normalized and filtered (scope ``default``, as Nutch) unless turned off.  Each URL a
sitemap lists that passes :class:`~gossamer.crawl.sitemap.sources.ScopeRule` is handed
to ``write(entry)``; everything else is counted.  Network trouble and bad documents
never raise: they are counted, with sample messages in ``errors``.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from gossamer.core import CrawlDatum, CrawlStatus, Settings, now_millis
from gossamer.crawl.fetch.fetcher import fetch_all
from gossamer.crawl.fetch.loop_helpers import FetchRobots
from gossamer.crawl.fetch.results import FetchResult
from gossamer.crawl.sitemap.formats import SitemapEntry, parse_sitemap
from gossamer.crawl.sitemap.sources import ScopeRule, SitemapSeed, host_of_url
from gossamer.plugins import PluginRepository, ProtocolSelector, URLChain

OWNER_KEY = "_sm_owner_"
DEPTH_KEY = "_sm_depth_"
MAX_ERRORS = 50
REDIRECTS = frozenset({CrawlStatus.FETCH_REDIR_PERM, CrawlStatus.FETCH_REDIR_TEMP})


@dataclass(frozen=True)
class CollectOptions:
    """Switches of one run: strict path rule, URL filters and normalizers, parallel requests."""

    strict: bool = True
    filter: bool = True
    normalize: bool = True
    threads: int | None = None


@dataclass
class CollectState:
    """Counters and sample error messages of one run."""

    counters: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def error(self, counter: str, message: str) -> None:
        """Count ``counter`` and keep ``message`` (the first :data:`MAX_ERRORS`)."""
        self.counters[counter] += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(message)


def fetch_settings(settings: Settings, threads: int | None) -> Settings:
    """``settings`` for sitemap requests: size limit, redirects and threads of the sitemap settings."""
    size = settings.get_int("sitemap.size.max")
    pairs: list[tuple[str, object]] = [("http.content.limit", size), ("file.content.limit", size),
                                       ("http.redirect.max", settings.get_int("sitemap.redir.max"))]
    if threads is not None:
        pairs.append(("fetcher.threads.fetch", threads))
    return settings.with_values(pairs, "sitemap")


class _Sink:
    """Receives fetched sitemaps: reads each at once, writes its URLs, remembers the sitemaps it names."""

    def __init__(self, settings: Settings, rule: ScopeRule, write: Callable[[SitemapEntry], None],
                 state: CollectState, recent: dict[str, float]) -> None:
        self.rule, self.write, self.state, self.recent = rule, write, state, recent
        self.max_urls = settings.get_int("sitemap.urls.max")
        self.max_bytes = settings.get_int("sitemap.size.max")
        self.max_depth = settings.get_int("sitemap.index.depth.max")
        self.children: list[SitemapSeed] = []

    def dropped(self, url: str, datum: CrawlDatum, reason: str, detail: str) -> None:
        """A sitemap the loop gave up without a fetch."""
        self.state.error("sitemaps_failed", f"{url}: not fetched: {detail}")

    def result(self, result: FetchResult) -> None:
        """Read one fetched sitemap (see the module docstring)."""
        self.recent[result.url] = time.time()
        status = result.datum.status
        counters = self.state.counters
        if status in REDIRECTS:
            counters["sitemap_redirects"] += 1
            return
        if status != CrawlStatus.FETCH_SUCCESS or result.content is None:
            why = result.datum.metadata.get("_pst_", CrawlStatus(status).name.lower())
            self.state.error("sitemaps_failed", f"{result.url}: fetch failed: {why}")
            return
        counters["sitemaps_fetched"] += 1
        owner = result.datum.metadata.get(OWNER_KEY, "")
        depth = int(result.datum.metadata.get(DEPTH_KEY, "0"))
        parsed = parse_sitemap(result.content.content, result.url, self.max_urls, self.max_bytes)
        counters[f"sitemaps_{parsed.kind}"] += 1
        if parsed.error:
            self.state.error("sitemap_errors", f"{result.url}: {parsed.error}")
        counters["urls_invalid"] += parsed.invalid
        counters["urls_over_limit"] += parsed.over_limit
        for entry in parsed.urls:
            if self.rule.allowed(entry.url, result.url, owner):
                counters["urls_found"] += 1
                self.write(entry)
            else:
                counters["urls_rejected_cross_host"] += 1
        for child in parsed.sitemaps:
            if depth + 1 > self.max_depth:
                counters["sitemaps_too_deep"] += 1
            elif not self.rule.allowed_sitemap(child, result.url, owner):
                counters["sitemaps_rejected_cross_host"] += 1
            else:
                self.children.append(SitemapSeed(child, owner, depth + 1))


def document_url(chain: URLChain, url: str, report: Callable[[str], None]) -> str | None:
    """A sitemap's own URL normalized and filtered; a ``.gz`` one filtered as the URL without ``.gz``.

    The default filters reject ``.gz`` pages; a gzipped sitemap is judged by what it holds.
    """
    try:
        url = chain.normalize(url)
    except ValueError as exc:
        report(f"{url!r}: {exc}")
        return None
    gzipped = url.lower().endswith(".gz") and "?" not in url
    try:
        kept = chain.filter(url[:-3] if gzipped else url)
    except ValueError as exc:
        report(f"{url!r}: {exc}")
        return None
    return None if kept is None else (url if gzipped else kept)


async def _robots_sitemaps(origins: list[str], robots: FetchRobots, default_xml: bool, parallel: int,
                           state: CollectState, recent: dict[str, float]) -> list[SitemapSeed]:
    """The sitemaps robots.txt announces for each origin (``/sitemap.xml`` when none and ``default_xml``)."""
    gate = asyncio.Semaphore(max(1, parallel))

    async def one(origin: str) -> list[SitemapSeed]:
        async with gate:
            rules, fetched = await robots.rules(origin + "/")
        if fetched:
            recent[origin + "/"] = time.time()
        owner = host_of_url(origin)
        state.counters["hosts_checked"] += 1
        if rules.sitemaps:
            state.counters["sitemaps_from_robots"] += len(rules.sitemaps)
            return [SitemapSeed(url, owner) for url in rules.sitemaps]
        if default_xml:
            state.counters["sitemaps_default"] += 1
            return [SitemapSeed(origin + "/sitemap.xml", owner)]
        return []

    found = await asyncio.gather(*(one(origin) for origin in origins))
    return [seed for seeds in found for seed in seeds]


async def collect_sitemaps(sitemap_urls: list[str], origins: list[str], settings: Settings,
                           options: CollectOptions, write: Callable[[SitemapEntry], None],
                           state: CollectState) -> None:
    """Fetch and read the sitemaps of ``sitemap_urls`` and of ``origins``' robots.txt (module docstring)."""
    settings = fetch_settings(settings, options.threads)
    rule = ScopeRule(options.strict, settings.get_bool("sitemap.allow.cross.host"))
    chain = URLChain(PluginRepository(settings), "default", options.normalize, options.filter)
    protocol = ProtocolSelector(PluginRepository(settings))
    robots = FetchRobots(settings, protocol=protocol)
    recent: dict[str, float] = {}
    seen: set[str] = set()
    try:
        level = [SitemapSeed(url) for url in sitemap_urls]
        level += await _robots_sitemaps(origins, robots, settings.get_bool("sitemap.url.default.sitemap.xml"),
                                        settings.get_int("fetcher.threads.fetch"), state, recent)
        while level:
            items: list[tuple[str, CrawlDatum]] = []
            for seed in level:
                url = document_url(chain, seed.url, lambda why: state.error("sitemaps_malformed", f"sitemap URL {why}"))
                if url is None:
                    state.counters["sitemaps_filtered"] += 1
                    continue
                if url in seen:
                    continue
                seen.add(url)
                meta = {OWNER_KEY: seed.owner, DEPTH_KEY: str(seed.depth)}
                items.append((url, CrawlDatum(CrawlStatus.DB_UNFETCHED, now_millis(), 0, 0, 0.0, metadata=meta)))
            sink = _Sink(settings, rule, write, state, recent)
            if items:
                await fetch_all(items, settings, sink, protocol=protocol, robots=robots, recent=recent)
            level = sink.children
    finally:
        await robots.close()
        await protocol.close()
