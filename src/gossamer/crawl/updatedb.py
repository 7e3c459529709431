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
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core.datum import now_millis
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
        """Yield the new crawldb rows of this batch's URLs, in URL order."""
        update, plain_orphans = self._context(ctx)
        n = batch.num_rows
        keys, src = batch.column("url"), batch.column("_src")
        if n > 1:
            differs = pc.not_equal(keys.slice(1), keys.slice(0, n - 1))
            single = pc.and_(pa.concat_arrays([pa.array([True]), differs]),
                             pa.concat_arrays([differs, pa.array([True])]))
        else:
            single = pa.array([True] * n)
        untouched = pc.and_(single, pc.equal(src, self.crawldb_src if self.crawldb_src is not None else -1))
        if not plain_orphans:
            untouched = pa.array([False] * n)
        copied = batch.filter(untouched)
        ctx.count("urls_unchanged", copied.num_rows)
        pieces = [pa.Table.from_batches([copied.select(CRAWLDB_SCHEMA.names)]).cast(CRAWLDB_SCHEMA)]
        rest = batch.filter(pc.invert(untouched))
        if rest.num_rows:
            merged: list = []
            current, values = None, []
            for url, datum in batch_to_datums(rest):
                if url != current:
                    if current is not None:
                        merged.append((current, reduce_values(current, values, update)))
                    current, values = url, []
                values.append(datum)
            if current is not None:
                merged.append((current, reduce_values(current, values, update)))
            kept = [(u, d) for u, d in merged if d is not None]
            ctx.count("urls_updated", len(kept))
            ctx.count("urls_dropped", len(merged) - len(kept))
            pieces.append(pa.Table.from_batches([datums_to_batch(kept)]))
        table = pa.concat_tables(pieces)
        if len(pieces) > 1:
            table = table.take(pc.sort_indices(table, [("url", "ascending")]))
        yield from table.combine_chunks().to_batches()


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
