"""``crawl``: Nutch's ``bin/crawl`` loop — inject, rounds of generate → fetch → parse → updatedb, index.

With ``--index`` the loop ends with invertlinks → dedup → index (:func:`index_crawl`); with
``--sitemaps`` (or ``--sitemap-urls DIR``, bin/crawl's ``-sm``) the sitemaps are read into
the crawldb after inject, before the first round.

:func:`crawl` runs the steps in this process, one after the other, on the crawl
directory's standard layout (``crawldb/``, ``segments/``), and stops after
``rounds`` rounds or as soon as generate finds nothing due.  Unlike ``bin/crawl``
it parses while fetching (as ``fetcher.parse=true``) unless ``fetcher.parse``
was set explicitly, which saves re-reading every page from the WARC files; with
``fetcher.parse=false`` a separate parse step runs after each fetch, as in Nutch.
As ``bin/crawl`` does, each fetch is limited to ``fetcher.timelimit.mins`` =
:data:`DEFAULT_FETCH_MINUTES` unless that setting was given (URLs not reached
stay due for the next round).  Each step's report goes to a :class:`CrawlListener`
(the CLI prints them).  The crawl directory is a local path or a
:class:`~gossamer.store.location.Location` (``s3://bucket/crawl``, ``hdfs://…``): every
table, segment and the index are then on that filesystem.  A
step that fails raises; everything before it is installed and stays usable,
and running the same command again goes on from there: a round a killed run left
unfinished (segments newer than any the crawldb absorbed, not absorbed:
:func:`unfinished_segments`) is finished first — its fetch resumed, its parse and
updatedb run — instead of generating the same URLs into a new segment.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from gossamer.core import Report, Settings, frozen_heap
from gossamer.crawl.fetch import FetchOptions, FetchProgress, FetchReport, fetch_segment, process_count
from gossamer.crawl.generate import GenerateOptions, GenerateReport, generate
from gossamer.crawl.inject import InjectOptions, InjectReport, inject
from gossamer.crawl.updatedb import UpdateReport, updatedb
from gossamer.engine import return_free_memory, reuse_task_processes, table_lock
from gossamer.store import CrawlLayout, Place, list_segments, live_version_dir, open_live, table_present

DEFAULT_TOP_N = 50_000
"""URLs per round when ``-topN`` is not given (``bin/crawl``'s ``--size-fetchlist``)."""
DEFAULT_FETCH_MINUTES = 180
"""Fetch time limit per round unless ``fetcher.timelimit.mins`` is set (``bin/crawl``'s ``--time-limit-fetch``)."""


@dataclass(frozen=True)
class CrawlOptions:
    """Options of ``crawl``: rounds, ``-topN`` per round, total fetch ``threads``, processes."""

    rounds: int = 1
    top_n: int | None = DEFAULT_TOP_N
    threads: int | None = None
    processes: int | None = None
    seeds: Place | None = None
    index: bool = False
    sitemaps: bool = False
    """Before the first round, read the sitemaps of every crawldb host's robots.txt (``sitemap``)."""
    sitemap_urls: Place | None = None
    """Before the first round, read the sitemaps listed here (``bin/crawl -sm``)."""


class CrawlListener(Protocol):
    """Receives each step's report as the crawl goes (all methods optional in spirit; implement all)."""

    def injected(self, report: InjectReport) -> None:
        """The seeds were injected."""

    def sitemapped(self, report: Any) -> None:
        """The sitemaps were read into the crawldb (``--sitemaps``)."""

    def round_started(self, number: int, rounds: int) -> None:
        """A round begins."""

    def generated(self, report: GenerateReport) -> None:
        """Generate finished (``report.segments`` empty: nothing due, the crawl ends)."""

    def unfinished(self, segments: list[Place]) -> None:
        """The round finishes segments a killed run left (instead of generating)."""

    def fetching(self, progress: FetchProgress) -> None:
        """Live fetch progress."""

    def fetched(self, report: FetchReport) -> None:
        """Fetch finished."""

    def parsed(self, report: Any) -> None:
        """A separate parse step finished (only with fetcher.parse=false)."""

    def updated(self, report: UpdateReport) -> None:
        """Updatedb finished."""

    def linked(self, report: Any) -> None:
        """Invertlinks finished (``--index``)."""

    def deduplicated(self, report: Any) -> None:
        """Dedup finished (``--index``)."""

    def indexed(self, report: Any) -> None:
        """Index finished (``--index``)."""


@dataclass
class CrawlReport(Report):
    """What the whole crawl did."""

    rounds_done: int = 0
    segments: list[Place] = field(default_factory=list)
    pages_fetched: int = 0
    seconds: float = 0.0
    stopped: str = ""


def inline_parse(settings: Settings) -> bool:
    """Parse while fetching unless fetcher.parse was set explicitly (then obey it)."""
    if settings.origin("fetcher.parse") == "default":
        return True
    return settings.get_bool("fetcher.parse")


def crawl(crawl_dir: Place, settings: Settings, options: CrawlOptions,
          listener: CrawlListener) -> CrawlReport:
    """Run the crawl loop in ``crawl_dir`` (see the module docstring).

    Holds the crawl directory's lock (``<crawl_dir>/.locked``) throughout: a second
    ``crawl`` of the same directory waits ``store.lock.wait.seconds`` or fails with
    LockedError naming the holder.  The rounds' task processes (fetch, parse) are kept from
    one round to the next (:func:`~gossamer.engine.reuse_task_processes`) and end with the crawl;
    the objects alive at its start are left out of garbage collections (:func:`~gossamer.core.frozen_heap`).
    """
    with table_lock(crawl_dir, settings), reuse_task_processes(), frozen_heap():
        return _crawl_locked(crawl_dir, settings, options, listener)


def _crawl_locked(crawl_dir: Place, settings: Settings, options: CrawlOptions,
                  listener: CrawlListener) -> CrawlReport:
    layout = CrawlLayout(crawl_dir)
    report = CrawlReport()
    if settings.origin("fetcher.timelimit.mins") == "default":
        settings = settings.with_values([("fetcher.timelimit.mins", DEFAULT_FETCH_MINUTES)], "crawl")
    started = time.monotonic()
    if options.seeds is not None:
        listener.injected(inject(layout.crawldb, options.seeds, settings, InjectOptions()))
    if options.sitemaps or options.sitemap_urls is not None:
        listener.sitemapped(_sitemaps(layout, settings, options))
    parse_inline = inline_parse(settings)
    processes = process_count(settings, options.processes)
    unfinished = unfinished_segments(layout)
    for number in range(1, options.rounds + 1):
        listener.round_started(number, options.rounds)
        if unfinished:  # a killed run's round: finish it rather than generate the same URLs again
            segments, unfinished = unfinished, []
            listener.unfinished(segments)
        else:
            generated = generate(layout.crawldb, layout.segments, settings,
                                 GenerateOptions(top_n=options.top_n, num_fetchers=processes))
            listener.generated(generated)
            segments = generated.segments
            return_free_memory()  # the driver waits while fetch processes work: hand generate's peak back
        if not segments:
            report.stopped = "nothing due"
            break
        for segment in segments:
            _fetch_and_parse(segment, settings, FetchOptions(options.threads, parse_inline, processes),
                             listener, report)
        listener.updated(updatedb(layout.crawldb, segments, settings))
        return_free_memory()
        if settings.get_bool("webdb.update") and layout.root.is_local:
            from gossamer.webdb import build_webdb

            build_webdb(layout.root, settings, segments)
        report.rounds_done = number
    if options.index:
        index_crawl(layout, report.segments, settings, listener)
    report.seconds = time.monotonic() - started
    return report


def _sitemaps(layout: CrawlLayout, settings: Settings, options: CrawlOptions) -> Any:
    """``sitemap`` with the crawl's sources and the sitemap.* settings (as bin/crawl's ``-sm``)."""
    from gossamer.crawl.sitemap import SitemapOptions, sitemap

    return sitemap(layout.crawldb, settings, SitemapOptions(
        strict=settings.get_bool("sitemap.strict.parsing"), filter=settings.get_bool("sitemap.url.filter"),
        normalize=settings.get_bool("sitemap.url.normalize"), threads=options.threads,
        sitemap_urls=options.sitemap_urls, from_crawldb=options.sitemaps or None))


def unfinished_segments(layout: CrawlLayout) -> list[Place]:
    """Segments of a round a killed ``crawl`` did not finish: newer than any the crawldb absorbed, not absorbed.

    Empty when the crawldb does not exist yet (nothing was generated from it).
    """
    if live_version_dir(layout.crawldb) is None:
        return []
    with open_live(layout.crawldb) as version:
        absorbed = set(version.description.absorbed)
    newest = max(absorbed, default="")
    return [s for s in list_segments(layout.segments) if s.name > newest and s.name not in absorbed]


def _fetch_and_parse(segment: Place, settings: Settings, options: FetchOptions, listener: CrawlListener,
                     report: CrawlReport) -> None:
    """Fetch ``segment`` (resuming an interrupted fetch) and parse it, skipping what is already done."""
    if not table_present(segment / "crawl_fetch"):
        fetched = fetch_segment(segment, settings, options, listener.fetching)
        listener.fetched(fetched)
        report.pages_fetched += fetched.pages
    if not table_present(segment / "crawl_parse"):
        from gossamer.crawl.parse import parse_segment

        listener.parsed(parse_segment(segment, settings))
    report.segments.append(segment)


def index_crawl(layout: CrawlLayout, segments: list[Place], settings: Settings,
                listener: CrawlListener) -> None:
    """The end of ``crawl --index``: invertlinks, dedup, index (with ``-deleteGone``).

    As ``bin/crawl``, invertlinks neither normalizes nor filters again (the links
    were when parsed).
    The linkdb takes this run's segments; the index takes them too when it already
    exists, else every segment of the crawl (so an index started late misses nothing).
    """
    from gossamer.crawl.dedup import dedup
    from gossamer.crawl.linkdb import invert_links
    from gossamer.index import IndexOptions, index, live_index
    from gossamer.store import list_segments

    every = list_segments(layout.segments)
    if segments:
        listener.linked(invert_links(layout.linkdb, segments, settings, normalize=False, filter=False))
    listener.deduplicated(dedup(layout.crawldb, settings))
    chosen = segments if segments and live_index(layout.index) is not None else every
    if chosen:
        listener.indexed(index(layout.index, layout.crawldb, layout.linkdb, chosen, settings,
                               IndexOptions(delete_gone=True)))
