"""The sitemap job's map (staged sitemap entries → crawldb rows) and reduce (the crawldb merge).

Staged entries are text lines ``url <TAB> lastmod-ms <TAB> changefreq <TAB> priority``
(empty fields: not given), written by the driver while it reads the sitemaps
(:func:`entry_line`).  The map normalizes and filters each URL (scope ``default``,
as Nutch's SitemapProcessor) and builds a row: score = priority (sitemaps.org's 0.5
when absent), fetch interval from ``changefreq`` clamped to
[``db.fetch.schedule.adaptive.min_interval``, ``db.fetch.interval.max``]
(``db.fetch.interval.default`` when absent), modified time = lastmod.

The reduce is inject's (:class:`~gossamer.crawl.inject.seed_merge.InjectReducer` in
``-update`` mode): a new URL becomes ``db_unfetched`` (the last entry of a URL listed
several times wins); a known URL keeps its row, changed only as :meth:`SitemapReducer._update`
says.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from gossamer.core import CrawlDatum, CrawlStatus, url_problem
from gossamer.crawl.inject.seed_merge import InjectOptions, InjectReducer, injected_batch
from gossamer.crawl.sitemap.fields import CHANGEFREQ_SECONDS, DEFAULT_PRIORITY, interval_for
from gossamer.crawl.sitemap.formats import SitemapEntry
from gossamer.engine import TaskContext
from gossamer.plugins import task_chain
from gossamer.store import TIMESTAMP

SCOPE = "default"
REFETCHABLE = frozenset({CrawlStatus.DB_FETCHED, CrawlStatus.DB_NOTMODIFIED})


def entry_line(entry: SitemapEntry) -> str:
    """The staging line of ``entry`` (its URL holds no whitespace: the reader rejects such URLs)."""
    priority = "" if entry.priority is None else repr(entry.priority)
    return f"{entry.url}\t{entry.lastmod}\t{entry.changefreq or ''}\t{priority}\n"


@dataclass(frozen=True)
class EntryMapper:
    """Map function for staged entry lines: → ``injected`` crawldb rows (see the module docstring)."""

    normalize: bool
    filter: bool
    now: int

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Turn a batch of entry lines into rows; rejected URLs are counted, malformed ones reported."""
        settings = ctx.settings
        schemes = frozenset(settings.get_list("urls.schemes"))
        default = settings.get_int("db.fetch.interval.default")
        low = settings.get_float("db.fetch.schedule.adaptive.min_interval")
        high = settings.get_int("db.fetch.interval.max")
        chain = task_chain(ctx, SCOPE, self.normalize, self.filter)
        urls: list[str] = []
        scores: list[float] = []
        intervals: list[int] = []
        modified: list[int] = []
        for line in batch.column("line").to_pylist():
            url, lastmod, changefreq, priority = (line.split("\t") + ["", "", ""])[:4]
            problem = url_problem(url, schemes)
            kept = None if problem else chain.apply(url, ctx.report)
            if kept is None:
                ctx.count("urls_filtered")
                continue
            urls.append(kept)
            scores.append(float(priority) if priority else DEFAULT_PRIORITY)
            intervals.append(interval_for(changefreq if changefreq in CHANGEFREQ_SECONDS else None,
                                          default, low, high))
            modified.append(int(lastmod or 0))
        ctx.count("urls_from_sitemaps", len(urls))
        if urls:
            rows = injected_batch(urls, scores, intervals, [None] * len(urls), self.now)
            column = rows.schema.get_field_index("modified_time")
            yield rows.set_column(column, rows.schema.field(column),
                                  pa.array(modified, pa.int64()).cast(TIMESTAMP))


@dataclass(frozen=True)
class SitemapReducer(InjectReducer):
    """Inject's merge, with Nutch's rule for a known URL (``sitemap.url.overwrite.existing``) and one of ours.

    With ``sitemap.url.overwrite.existing`` the sitemap's score, interval and (when
    given) modified time replace the row's, as Nutch.  With ``sitemap.lastmod.refetch``
    (not in Nutch) a fetched row (``db_fetched``, ``db_notmodified``) whose page the
    sitemap says changed after it was last fetched (``lastmod`` later than both its
    modified time and its last fetch) becomes due now.  Status and everything else stay.
    """

    now: int = 0

    @classmethod
    def create(cls, now: int, entries_input: int) -> SitemapReducer:
        """The reducer for a job whose input ``entries_input`` holds the entries (the crawldb's comes first)."""
        return cls(InjectOptions(update=True), entries_input, now)

    def _update(self, old_rows: dict[str, CrawlDatum], seeds: dict[str, CrawlDatum], ctx: TaskContext) -> None:
        overwrite = ctx.settings.get_bool("sitemap.url.overwrite.existing")
        refetch = ctx.settings.get_bool("sitemap.lastmod.refetch")
        for url, old in old_rows.items():
            entry = seeds[url]
            last_fetch = old.fetch_time - old.fetch_interval * 1000
            changed = entry.modified_time > max(old.modified_time, last_fetch)
            if overwrite:
                old.score, old.fetch_interval = entry.score, entry.fetch_interval
                if entry.modified_time:
                    old.modified_time = entry.modified_time
                ctx.count("urls_overwritten")
            if refetch and changed and old.status in REFETCHABLE and old.fetch_time > self.now:
                old.fetch_time = self.now
                ctx.count("urls_refetch")
