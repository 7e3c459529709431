"""``sitemap``: read sitemaps and merge their URLs into the crawldb (Nutch's SitemapProcessor).

:func:`sitemap` gathers the sources (``-sitemapUrls`` lines, hostdb hosts, or the
crawldb's own hosts when neither is given), fetches and reads the sitemaps in this
process (:mod:`.fetching`), staging the accepted entries as a text file beside the
crawldb, then runs the merge (:mod:`.merge`) as one table job through the engine
(lock, run — locally or on Spark —, atomic install), as ``inject`` does.  When the
sitemaps yield no URL, the crawldb is left as it is.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from dataclasses import dataclass

from gossamer.core import Settings, now_millis
from gossamer.crawl.sitemap.fetching import CollectOptions, CollectState, collect_sitemaps
from gossamer.crawl.sitemap.formats import SitemapEntry
from gossamer.crawl.sitemap.merge import EntryMapper, SitemapReducer, entry_line
from gossamer.crawl.sitemap.sources import is_url, read_seed_dir, table_hosts, table_origins
from gossamer.engine import Input, Job, ProgressFn, TableJobReport, TableJobRun, TableSource, TextSource, run_table_job
from gossamer.plugins import PluginRepository, URLChain
from gossamer.store import CRAWLDB_SCHEMA, Place, as_place, live_version_dir, open_live

HOST_SCHEMES = ("http", "https", "ftp")
"""Schemes tried, in order, for a bare host name (the first the URL filters accept wins), as Nutch."""


@dataclass(frozen=True)
class SitemapOptions(CollectOptions):
    """``sitemap``'s sources: a ``-sitemapUrls`` file or directory, a ``-hostdb`` table, the crawldb's hosts."""

    sitemap_urls: Place | None = None
    hostdb: Place | None = None
    from_crawldb: bool | None = None
    """None: the crawldb's hosts only when neither ``sitemap_urls`` nor ``hostdb`` is given."""


@dataclass
class SitemapReport(TableJobReport):
    """What ``sitemap`` did: driver and merge counters, sample errors, rows in the crawldb."""

    def summary_lines(self) -> list[str]:
        """Nutch-style summary lines."""
        c = self.counters
        kinds = ", ".join(f"{k.removeprefix('sitemaps_')} {c[k]}" for k in
                          ("sitemaps_urlset", "sitemaps_index", "sitemaps_feed", "sitemaps_text", "sitemaps_unknown")
                          if c.get(k))
        return [
            f"SitemapProcessor: hosts checked (robots.txt): {c.get('hosts_checked', 0)}",
            f"SitemapProcessor: sitemaps fetched: {c.get('sitemaps_fetched', 0)}" + (f" ({kinds})" if kinds else ""),
            f"SitemapProcessor: sitemaps failed: {c.get('sitemaps_failed', 0)}, unreadable or cut short: "
            f"{c.get('sitemap_errors', 0)}, filtered: {c.get('sitemaps_filtered', 0)}, too deep: "
            f"{c.get('sitemaps_too_deep', 0)}, off host: {c.get('sitemaps_rejected_cross_host', 0)}",
            f"SitemapProcessor: URLs found: {c.get('urls_found', 0)}, rejected off host/path: "
            f"{c.get('urls_rejected_cross_host', 0)}, invalid: {c.get('urls_invalid', 0)}, over the limit: "
            f"{c.get('urls_over_limit', 0)}, filtered: {c.get('urls_filtered', 0)}",
            f"SitemapProcessor: new_sitemap_entries: {c.get('urls_injected', 0)}",
            f"SitemapProcessor: existing_sitemap_entries: {c.get('urls_merged', 0)} (refetch now: "
            f"{c.get('urls_refetch', 0)}, overwritten: {c.get('urls_overwritten', 0)})",
            f"SitemapProcessor: Total urls in CrawlDb: {self.total_urls}",
        ]


def _host_origin(host: str, chain: URLChain) -> str | None:
    for scheme in HOST_SCHEMES:
        if chain.apply(f"{scheme}://{host}/") is not None:
            return f"{scheme}://{host}"
    return None


def gather_sources(crawldb: Place, settings: Settings, options: SitemapOptions,
                   state: CollectState) -> tuple[list[str], list[str]]:
    """``(sitemap URLs, origins whose robots.txt is read)`` of ``options`` (see :class:`SitemapOptions`)."""
    chain = URLChain(PluginRepository(settings), "default", options.normalize, options.filter)
    urls: list[str] = []
    hosts: list[str] = []
    if options.sitemap_urls is not None:
        for line in read_seed_dir(options.sitemap_urls):
            (urls if is_url(line) else hosts).append(line)
        state.counters["sitemap_seeds"] += len(urls)
    if options.hostdb is not None:
        with open_live(options.hostdb) as version:
            hosts.extend(table_hosts(version))
    origins: list[str] = []
    for host in dict.fromkeys(hosts):
        origin = _host_origin(host, chain)
        if origin is None:
            state.counters["hosts_filtered"] += 1
        else:
            origins.append(origin)
    from_crawldb = options.from_crawldb
    if from_crawldb is None:
        from_crawldb = options.sitemap_urls is None and options.hostdb is None
    if from_crawldb and live_version_dir(crawldb) is not None:
        with open_live(crawldb) as version:
            origins.extend(table_origins(version))
    return urls, list(dict.fromkeys(origins))


def sitemap(crawldb: Place | str, settings: Settings, options: SitemapOptions | None = None,
            progress: ProgressFn | None = None) -> SitemapReport:
    """Fetch the sitemaps of ``options`` and merge their URLs into ``crawldb`` (see the module docstring).

    Raises FileNotFoundError for a missing ``-sitemapUrls`` path, TableError for a missing hostdb.
    """
    options = options or SitemapOptions()
    crawldb = as_place(crawldb)
    started = time.monotonic()
    state = CollectState()
    if options.sitemap_urls is not None and not options.sitemap_urls.exists():
        raise FileNotFoundError(f"sitemap URLs not found: {options.sitemap_urls.display()}")
    urls, origins = gather_sources(crawldb, settings, options, state)
    staging = crawldb.parent / f".sitemap-{os.getpid()}-{uuid.uuid4().hex[:8]}.txt"
    try:
        with staging.open_output() as out:
            def write(entry: SitemapEntry) -> None:
                out.write(entry_line(entry).encode("utf-8"))

            asyncio.run(collect_sitemaps(urls, origins, settings, options, write, state))
        if not state.counters.get("urls_found"):
            total = 0
            if live_version_dir(crawldb) is not None:
                with open_live(crawldb) as version:
                    total = version.num_rows()
            return SitemapReport(dict(state.counters), state.errors, total, time.monotonic() - started)
        return _merge(crawldb, staging, settings, options, state, progress, started)
    finally:
        staging.delete_file()


def _merge(crawldb: Place, staging: Place, settings: Settings, options: SitemapOptions, state: CollectState,
           progress: ProgressFn | None, started: float) -> SitemapReport:
    now = now_millis()
    source = TextSource.from_path(staging)

    def build(run: TableJobRun) -> Job:
        inputs: list[Input] = []
        if run.existing is not None:
            inputs.append(Input(TableSource(str(run.existing.directory)), copartitioned=True))
        entries = len(inputs)
        inputs.append(Input(source, EntryMapper(options.normalize, options.filter, now)))
        return Job("sitemap", inputs, CRAWLDB_SCHEMA, SitemapReducer.create(now, entries), CRAWLDB_SCHEMA,
                   run.parts)

    result, recovered = run_table_job(crawldb, "crawldb", settings, build, progress)
    counters = dict(state.counters)
    for key, value in result.counters.items():
        counters[key] = counters.get(key, 0) + value
    return SitemapReport(counters, state.errors + list(result.errors), result.rows,
                         time.monotonic() - started, recovered)

