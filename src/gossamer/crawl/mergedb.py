"""``mergedb``: merge crawldbs into one (Nutch's CrawlDbMerger, reference §1 table).

Per URL the datum fetched last wins — "last fetch time" as Nutch's fetch schedule
computes it: ``fetch_time - fetch_interval``, or 0 for an unfetched URL; on a tie
the earlier input wins.  Metadata of every datum of the URL is merged, the winner's
values overriding older ones.  With ``-normalize`` / ``-filter`` every URL passes
the ``crawldb`` URL chain first (filtered URLs are dropped and counted).  Inputs
and output may be local paths or URIs (``s3://`` …); the output is installed
atomically under its lock like every table job.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import groupby

import pyarrow as pa

from gossamer.core import CrawlDatum, CrawlStatus, Settings
from gossamer.crawl.updatedb import rewrite_urls
from gossamer.engine import Input, Job, ProgressFn, TableJobReport, TableJobRun, TableSource, TaskContext, run_table_job
from gossamer.plugins import task_chain
from gossamer.store import (
    CRAWLDB_SCHEMA,
    Place,
    TableError,
    TableVersion,
    as_place,
    batch_to_datums,
    datums_to_batch,
    live_version_dir,
    open_live,
)


@dataclass
class MergeReport(TableJobReport):
    """What ``mergedb`` did."""


@dataclass(frozen=True)
class MergeMapper:
    """Map of every input crawldb: count rows, optionally normalize and filter URLs."""

    normalize: bool
    filter: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the rows that take part in the merge."""
        ctx.count("urls_read", batch.num_rows)
        if not (self.normalize or self.filter):
            yield batch
            return
        yield rewrite_urls(batch, task_chain(ctx, "crawldb", self.normalize, self.filter), ctx)


def last_fetch_time(datum: CrawlDatum) -> int:
    """Nutch's ``AbstractFetchSchedule.calculateLastFetchTime``."""
    if datum.status == CrawlStatus.DB_UNFETCHED:
        return 0
    return datum.fetch_time - datum.fetch_interval * 1000


def merge_datums(datums: Sequence[CrawlDatum]) -> CrawlDatum:
    """The merged datum of one URL's datums, in input order (see the module docstring)."""
    best, best_time = datums[0], last_fetch_time(datums[0])
    metadata = dict(best.metadata)
    for datum in datums[1:]:
        when = last_fetch_time(datum)
        if when > best_time:
            metadata.update(datum.metadata)
            best, best_time = datum, when
        else:
            metadata = {**datum.metadata, **metadata}
    return CrawlDatum(best.status, best.fetch_time, best.retries, best.fetch_interval, best.score,
                      best.signature, best.modified_time, metadata)


def merge_reduce(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Reduce: one row per URL (rows arrive sorted by URL, then input order)."""
    rows = batch_to_datums(batch.select([f.name for f in CRAWLDB_SCHEMA]))
    merged = []
    for url, group in groupby(rows, key=lambda row: row[0]):
        datums = [datum for _, datum in group]
        if len(datums) > 1:
            ctx.count("urls_merged")
        merged.append((url, merge_datums(datums)))
    yield datums_to_batch(merged)


def mergedb(out: Place | str, crawldbs: Sequence[Place | str], settings: Settings,
            normalize: bool = False, url_filter: bool = False, progress: ProgressFn | None = None) -> MergeReport:
    """Merge the live versions of ``crawldbs`` into the crawldb ``out`` (created or replaced)."""
    sources = []
    absorbed: list[str] = []
    for crawldb in crawldbs:
        place = as_place(crawldb, settings)
        live = live_version_dir(place)
        if live is None:
            open_live(place)  # raises the usual "no table" error
            raise TableError(f"no table at {crawldb}")
        with TableVersion(live) as version:
            absorbed.extend(version.description.absorbed)
        sources.append(TableSource(str(live)))
    if not sources:
        raise ValueError("give at least one crawldb to merge")

    def build(run: TableJobRun) -> Job:
        mapper = MergeMapper(normalize, url_filter)
        return Job("mergedb", [Input(source, mapper) for source in sources], CRAWLDB_SCHEMA, merge_reduce,
                   CRAWLDB_SCHEMA, run.parts)

    result, recovered = run_table_job(out, "crawldb", settings, build, progress, absorbs=absorbed)
    return MergeReport(dict(result.counters), result.errors, result.rows, result.seconds, recovered)
