"""``updatedb``: merge segments' fetch and parse results into the crawldb (Nutch's CrawlDb job).

Inputs: the crawldb (co-partitioned, streamed in place unless URLs are
re-normalized) and, per segment, ``crawl_fetch`` and ``crawl_parse`` (both when
present; shuffled).  Map (CrawlDbFilter): purge ``db_gone`` / ``db_orphan`` rows of
the crawldb (``db.update.purge.404`` / ``.orphans``), optionally normalize and
filter every URL (scope ``crawldb``).  Reduce: per URL, the state machine of
:mod:`gossamer.crawl.updatedb_logic`.  URLs that appear only in the crawldb keep
their row untouched and never pass through Python (unless a scoring filter
adjusts orphaned scores).  The new crawldb is installed atomically under the lock.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from operator import attrgetter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core.datum import CrawlDatum, now_millis
from gossamer.core.settings import Settings
from gossamer.crawl.tablejob import TableJobRun, run_table_job
from gossamer.crawl.updatedb_logic import UpdateContext, UpdateSettings, keep_old, reduce_values
from gossamer.engine import Input, Job, ProgressFn, TableSource, TaskContext
from gossamer.plugins import FetchSchedule, PluginRepository, ScoringFilter, URLChain, settings_key
from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA, batch_to_datums, datums_to_batch
from gossamer.store.table import TableVersion

SEGMENT_INPUTS = ("crawl_fetch", "crawl_parse")


@dataclass(frozen=True)
class UpdateOptions:
    """Switches of ``updatedb``."""

    additions: bool = True  # -noAdditions
    filter: bool = False  # -filter
    normalize: bool = False  # -normalize


@dataclass
class UpdateReport:
    """Counters and totals of one updatedb run."""

    counters: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    total_urls: int = 0
    seconds: float = 0.0
    segments: list[str] = field(default_factory=list)


def _chain(ctx: TaskContext, options: UpdateOptions) -> URLChain:
    return ctx.cached(settings_key(ctx.settings, "crawldb-chain", options),
                      lambda: URLChain(PluginRepository(ctx.settings), "crawldb", options.normalize, options.filter))


@dataclass(frozen=True)
class CrawlDbFilter:
    """Map for every input: purge rules (crawldb only) and optional normalize/filter of URLs."""

    options: UpdateOptions
    is_crawldb: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the rows that go on into the merge."""
        settings = UpdateSettings.from_settings(ctx.settings)
        if self.is_crawldb and (settings.purge_404 or settings.purge_orphans):
            rows = batch_to_datums(batch)
            kept = [(url, datum) for url, datum in rows if keep_old(datum, settings)]
            ctx.count("urls_purged", len(rows) - len(kept))
            batch = datums_to_batch(kept)
        if not (self.options.filter or self.options.normalize) or batch.num_rows == 0:
            yield batch
            return
        chain = _chain(ctx, self.options)
        out = []
        for url, datum in batch_to_datums(batch):
            try:
                new_url = chain.filter(chain.normalize(url))
            except ValueError as exc:
                ctx.report(f"{url!r}: {exc}")
                new_url = None
            if new_url is None:
                ctx.count("urls_filtered")
                continue
            out.append((new_url, datum))
        yield datums_to_batch(out)


@dataclass(frozen=True)
class UpdateReducer:
    """Reduce: Nutch's CrawlDbReducer per URL; crawldb-only URLs are copied column-wise."""

    now: int
    crawldb_src: int | None
    additions: bool

    def _context(self, ctx: TaskContext) -> tuple[UpdateContext, bool]:
        def build() -> tuple[UpdateContext, bool]:
            repo = PluginRepository(ctx.settings)
            scoring = repo.chain(ScoringFilter)
            settings = UpdateSettings.from_settings(ctx.settings)
            if not self.additions:
                settings = UpdateSettings(False, settings.retry_max, settings.max_interval, settings.max_inlinks,
                                          settings.purge_404, settings.purge_orphans)
            plain_orphans = all(type(f).orphaned_score is ScoringFilter.orphaned_score for f in scoring)
            return UpdateContext(repo.single(FetchSchedule), scoring, self.now, settings), plain_orphans

        return ctx.cached(settings_key(ctx.settings, "updatedb", self.now, self.additions), build)

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the new crawldb rows of this batch's URLs, in URL order.

        A URL whose only row is its crawldb row is copied column-wise (one Arrow
        ``filter`` for all of them); the rows of every other URL become datums and go
        through :func:`reduce_values`.  Both kinds are put back in URL order by their
        row positions in the batch (an integer sort: the batch is already sorted).
        """
        update, plain_orphans = self._context(ctx)
        n = batch.num_rows
        if n == 0:
            return
        keys, src = batch.column("url"), batch.column("_src")
        if n > 1:
            differs = pc.not_equal(keys.slice(1), keys.slice(0, n - 1))
            first = pa.concat_arrays([_TRUE, differs])
            single = pc.and_(first, pa.concat_arrays([differs, _TRUE]))
        else:
            first = single = pa.concat_arrays([_TRUE])
        if plain_orphans and self.crawldb_src is not None:
            untouched = pc.and_(single, pc.equal(src, pa.scalar(self.crawldb_src, src.type)))
        else:
            untouched = pa.array([False] * n)
        copied_at = pc.indices_nonzero(untouched)
        ctx.count("urls_unchanged", len(copied_at))
        if len(copied_at) == n:
            yield _crawldb_rows(batch)
            return
        pieces, positions = [], []
        if len(copied_at):
            pieces.append(_crawldb_rows(batch.filter(untouched)))
            positions.append(copied_at)
        touched = pc.invert(untouched)
        rest = batch.filter(touched)
        starts = pc.indices_nonzero(first.filter(touched)).to_pylist()
        urls, results, at = _reduce_groups(rest, starts, update)
        kept = [i for i, datum in enumerate(results) if datum is not None]
        ctx.count("urls_updated", len(kept))
        ctx.count("urls_dropped", len(results) - len(kept))
        if kept:
            if len(kept) < len(results):
                urls, results, at = ([values[i] for i in kept] for values in (urls, results, at))
            rest_at = pc.indices_nonzero(touched)
            pieces.append(_datum_rows(urls, results, rest.column("host").take(pa.array(at, pa.int64()))))
            positions.append(rest_at.take(pa.array(at, pa.int64())))
        if len(pieces) <= 1:
            yield from pieces
            return
        table = pa.Table.from_batches(pieces)
        order = pc.sort_indices(pa.chunked_array(positions, pa.uint64()))
        yield from table.take(order).combine_chunks().to_batches()


_TRUE = pa.array([True])
_CRAWLDB_NAMES = CRAWLDB_SCHEMA.names


def _crawldb_rows(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The crawldb columns of engine rows, in the crawldb schema."""
    return pa.RecordBatch.from_arrays([batch.column(name) for name in _CRAWLDB_NAMES], schema=CRAWLDB_SCHEMA)


def _reduce_groups(rows: pa.RecordBatch, starts: list[int], update: UpdateContext
                   ) -> tuple[list[str], list[CrawlDatum | None], list[int]]:
    """Run :func:`reduce_values` over each URL's rows (``starts``: the first row of each URL).

    Returns the URLs, their new datums (``None``: not written) and the row index of
    each URL's first row.
    """
    urls = rows.column("url").to_pylist()
    datums = _datums(rows)
    bounds = [*starts, rows.num_rows]
    results = [reduce_values(urls[lo], datums[lo:hi], update) for lo, hi in pairwise(bounds)]
    return [urls[i] for i in starts], results, starts


def _datums(rows: pa.RecordBatch) -> list[CrawlDatum]:
    """One :class:`CrawlDatum` per row (what ``batch_to_datums`` makes, without the URLs)."""
    metadata = [dict(m) if m else {} for m in rows.column("metadata").to_pylist()]
    return list(map(
        CrawlDatum,
        rows.column("status").to_pylist(),
        rows.column("fetch_time").cast(pa.int64()).to_pylist(),
        rows.column("retries").to_pylist(),
        rows.column("fetch_interval").to_pylist(),
        rows.column("score").to_pylist(),
        rows.column("signature").to_pylist(),
        rows.column("modified_time").cast(pa.int64()).to_pylist(),
        metadata,
    ))


_STATUS, _FETCH_TIME, _RETRIES, _INTERVAL, _SCORE, _SIGNATURE, _MODIFIED, _METADATA = (
    attrgetter(name) for name in ("status", "fetch_time", "retries", "fetch_interval", "score", "signature",
                                  "modified_time", "metadata"))


def _datum_rows(urls: list[str], datums: list[CrawlDatum], hosts: pa.Array) -> pa.RecordBatch:
    """Crawldb rows of ``(url, datum)`` pairs (what ``datums_to_batch`` makes; hosts given)."""
    columns = {
        "url": urls,
        "status": list(map(int, map(_STATUS, datums))),
        "fetch_time": list(map(_FETCH_TIME, datums)),
        "retries": list(map(_RETRIES, datums)),
        "fetch_interval": list(map(_INTERVAL, datums)),
        "score": list(map(_SCORE, datums)),
        "signature": list(map(_SIGNATURE, datums)),
        "modified_time": list(map(_MODIFIED, datums)),
        "metadata": [list(m.items()) if m else None for m in map(_METADATA, datums)],
    }
    arrays = [hosts if f.name == "host" else pa.array(columns[f.name], type=f.type) for f in CRAWLDB_SCHEMA]
    return pa.RecordBatch.from_arrays(arrays, schema=CRAWLDB_SCHEMA)


def segment_inputs(segments: list[Path], options: UpdateOptions) -> list[Input]:
    """The crawl_fetch / crawl_parse tables of ``segments`` as shuffled inputs."""
    inputs = []
    for segment in segments:
        for name in SEGMENT_INPUTS:
            directory = segment / name
            if directory.is_dir():
                TableVersion(directory).close()  # raises TableError when incomplete
                inputs.append(Input(TableSource(str(directory)), CrawlDbFilter(options, is_crawldb=False)))
    return inputs


def updatedb(crawldb: Path, segments: list[Path], settings: Settings, options: UpdateOptions | None = None,
             progress: ProgressFn | None = None) -> UpdateReport:
    """Merge ``segments`` into ``crawldb`` (see the module docstring)."""
    options = options or UpdateOptions()
    additions = options.additions and settings.get_bool("db.update.additions.allowed")
    seg_inputs = segment_inputs(segments, options)
    if not seg_inputs:
        raise ValueError("no segment has crawl_fetch or crawl_parse data to update from")
    now = now_millis()

    def build(run: TableJobRun) -> Job:
        inputs: list[Input] = []
        crawldb_src = None
        if run.existing is not None:
            crawldb_src = 0
            inputs.append(Input(TableSource(str(run.existing.directory)), CrawlDbFilter(options, is_crawldb=True),
                                copartitioned=not options.normalize))
        inputs.extend(seg_inputs)
        return Job("updatedb", inputs, CRAWLDB_SCHEMA, UpdateReducer(now, crawldb_src, additions),
                   CRAWLDB_SCHEMA, run.parts)

    result, _ = run_table_job(crawldb, "crawldb", settings, build, progress)
    return UpdateReport(dict(result.counters), result.errors, result.rows, result.seconds,
                        [str(s) for s in segments])
