"""``updatedb``: merge segments' fetch and parse results into the crawldb (Nutch's CrawlDb job).

Inputs: the crawldb (co-partitioned, streamed in place unless URLs are
re-normalized) and, per segment, ``crawl_fetch`` and ``crawl_parse`` (both when
present; shuffled).  Map (CrawlDbFilter): purge ``db_gone`` / ``db_orphan`` rows of
the crawldb (``db.update.purge.404`` / ``.orphans``), optionally normalize and
filter every URL (scope ``crawldb``).  Reduce: per URL, the state machine of
:mod:`gossamer.crawl.updatedb.state_machine`.  URLs that appear only in the crawldb keep
their row untouched and never pass through Python (unless a scoring filter
adjusts orphaned scores).  The new crawldb is installed atomically under the lock.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from operator import attrgetter

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlDatum, Settings, now_millis
from gossamer.crawl.updatedb.state_machine import UpdateContext, UpdateSettings, keep_old, reduce_values
from gossamer.engine import (
    Input,
    Job,
    ProgressFn,
    TableJobReport,
    TableJobRun,
    TableSource,
    TaskContext,
    arange,
    run_table_job,
)
from gossamer.plugins import FetchSchedule, PluginRepository, ScoringFilter, URLChain, settings_key, task_chain
from gossamer.store import (
    CRAWLDB_SCHEMA,
    Place,
    TableVersion,
    as_place,
    batch_to_datums,
    datums_to_batch,
    hosts_of,
    place_text,
    table_present,
)

SEGMENT_INPUTS = ("crawl_fetch", "crawl_parse")


@dataclass(frozen=True)
class UpdateOptions:
    """Switches of ``updatedb``."""

    additions: bool = True  # -noAdditions
    filter: bool = False  # -filter
    normalize: bool = False  # -normalize
    force: bool = False  # -force: apply segments this crawldb has already absorbed


@dataclass
class UpdateReport(TableJobReport):
    """Counters and totals of one updatedb run."""

    segments: list[str] = field(default_factory=list)


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
        yield rewrite_urls(batch, task_chain(ctx, "crawldb", self.options.normalize, self.options.filter), ctx)


def rewrite_urls(batch: pa.RecordBatch, chain: URLChain, ctx: TaskContext) -> pa.RecordBatch:
    """Crawldb rows with their URLs through ``chain``; rows it rejects are dropped (``urls_filtered``)."""
    out = []
    for url, datum in batch_to_datums(batch):
        new_url = chain.apply(url, ctx.report)
        if new_url is None:
            ctx.count("urls_filtered")
            continue
        out.append((new_url, datum))
    return datums_to_batch(out)


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

        A URL whose only row is its crawldb row is copied column-wise; the rows of
        every other URL become datums and go through :func:`reduce_values`.  The output
        is one Arrow ``take`` over the batch and the merged rows, in batch order (so
        in URL order): copied rows where they were, a merged row where its URL's first
        row was.
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
        copied = pc.sum(untouched).as_py() or 0
        ctx.count("urls_unchanged", copied)
        base = _crawldb_rows(batch)
        if copied == n:
            yield base
            return
        touched = pc.invert(untouched)
        rest = batch.filter(touched)
        starts = pc.indices_nonzero(first.filter(touched))
        with _gc_paused():
            results = _reduce_groups(rest, starts.to_pylist(), update)
            kept = [i for i, datum in enumerate(results) if datum is not None]
            firsts = starts.take(pa.array(kept, pa.int64())) if len(kept) < len(results) else starts
            merged = _datum_rows(rest, firsts, [results[i] for i in kept], self.crawldb_src) if kept else None
        ctx.count("urls_updated", len(kept))
        ctx.count("urls_dropped", len(results) - len(kept))
        if merged is None:
            if copied:
                yield base.filter(untouched)
            return
        # Output row order = batch order: a copied row where it was, a merged row at its URL's first row.
        merged_at = pc.and_(first, touched)
        if len(kept) < len(results):
            merged_at = pc.is_in(arange(0, n), value_set=pc.indices_nonzero(touched).take(firsts))
        index = pc.replace_with_mask(arange(0, n), merged_at, arange(n, merged.num_rows))
        index = index.filter(pc.or_(untouched, merged_at))
        yield from pa.Table.from_batches([base, merged]).take(index).combine_chunks().to_batches()


_TRUE = pa.array([True])


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while one batch's datums are built and merged.

    A batch makes about a million short-lived objects (datums and their metadata
    dicts) without reference cycles; with the collector on, its generational scans
    of them cost more than building them (measured: 1.2 µs instead of 0.36 µs per
    datum).  Reference counting still frees everything; the collector runs again
    between batches.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
_CRAWLDB_NAMES = CRAWLDB_SCHEMA.names


def _crawldb_rows(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The crawldb columns of engine rows, in the crawldb schema."""
    return pa.RecordBatch.from_arrays([batch.column(name) for name in _CRAWLDB_NAMES], schema=CRAWLDB_SCHEMA)


def _reduce_groups(rows: pa.RecordBatch, starts: list[int], update: UpdateContext) -> list[CrawlDatum | None]:
    """:func:`reduce_values` over each URL's rows (``starts``: the index of each URL's first row)."""
    urls = rows.column("url").to_pylist()
    datums = _datums(rows)
    bounds = [*starts, rows.num_rows]
    return [reduce_values(urls[lo], datums[lo:hi], update) for lo, hi in pairwise(bounds)]


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


def _datum_rows(rows: pa.RecordBatch, firsts: pa.Array, datums: list[CrawlDatum],
                crawldb_src: int | None) -> pa.RecordBatch:
    """Crawldb rows for the new ``datums`` of the URLs whose first row in ``rows`` is at ``firsts``.

    The URL comes from that row, and so does the host when it is the crawldb's row
    (same URL, so same host); the host of every other URL is derived from it again.
    """
    url = rows.column("url").take(firsts)
    host = rows.column("host").take(firsts)
    derive = pc.not_equal(rows.column("_src").take(firsts), crawldb_src if crawldb_src is not None else -1)
    if pc.any(derive).as_py():
        host = pc.replace_with_mask(host, derive, hosts_of(url.filter(derive)))
    columns = {
        "url": url,
        "host": host,
        "status": list(map(int, map(_STATUS, datums))),
        "fetch_time": list(map(_FETCH_TIME, datums)),
        "retries": list(map(_RETRIES, datums)),
        "fetch_interval": list(map(_INTERVAL, datums)),
        "score": list(map(_SCORE, datums)),
        "signature": list(map(_SIGNATURE, datums)),
        "modified_time": list(map(_MODIFIED, datums)),
        "metadata": [list(m.items()) if m else None for m in map(_METADATA, datums)],
    }
    arrays = [value if isinstance(value := columns[f.name], pa.Array) else pa.array(value, type=f.type)
              for f in CRAWLDB_SCHEMA]
    return pa.RecordBatch.from_arrays(arrays, schema=CRAWLDB_SCHEMA)


def segment_inputs(segments: Sequence[Place], options: UpdateOptions) -> list[Input]:
    """The crawl_fetch / crawl_parse tables of ``segments`` (paths or Locations) as shuffled inputs.

    A table that is not there (on another filesystem: without ``_SUCCESS``) is left out.  A
    segment with crawl_parse but no crawl_fetch is the leftover of a fetch whose install was
    interrupted (crawl_fetch is its commit point): ValueError, since applying its parse alone
    would leave the fetched pages unfetched.
    """
    inputs = []
    for segment in segments:
        if table_present(segment / "crawl_parse") and not table_present(segment / "crawl_fetch"):
            raise ValueError(f"{segment}: its fetch did not finish (crawl_parse without crawl_fetch); "
                             "fetch it again, then update")
        for name in SEGMENT_INPUTS:
            directory = segment / name
            if table_present(directory):
                TableVersion(directory).close()  # raises TableError when incomplete
                inputs.append(Input(TableSource(str(directory)), CrawlDbFilter(options, is_crawldb=False)))
    return inputs


def refuse_absorbed(absorbed: Sequence[str], segments: Sequence[str]) -> None:
    """ValueError naming every segment of ``segments`` the crawldb has already absorbed."""
    again = sorted(set(absorbed) & set(segments))
    if again:
        raise ValueError(f"the crawldb has already absorbed segment(s) {', '.join(again)}: applying a segment "
                         "twice changes statuses and scores; leave them out, or give -force to apply them again")


def updatedb(crawldb: Place | str, segments: Sequence[Place | str], settings: Settings,
             options: UpdateOptions | None = None, progress: ProgressFn | None = None) -> UpdateReport:
    """Merge ``segments`` into ``crawldb`` (see the module docstring)."""
    options = options or UpdateOptions()
    additions = options.additions and settings.get_bool("db.update.additions.allowed")
    places = [as_place(segment, settings) for segment in segments]
    seg_inputs = segment_inputs(places, options)
    if not seg_inputs:
        raise ValueError("no segment has crawl_fetch or crawl_parse data to update from")
    now = now_millis()

    names = [p.name for p in places if any(table_present(p / name) for name in SEGMENT_INPUTS)]  # with results

    def build(run: TableJobRun) -> Job:
        inputs: list[Input] = []
        crawldb_src = None
        if run.existing is not None and not options.force:
            refuse_absorbed(run.existing.description.absorbed, names)
        if run.existing is not None:
            crawldb_src = 0
            inputs.append(Input(TableSource(str(run.existing.directory)), CrawlDbFilter(options, is_crawldb=True),
                                copartitioned=not options.normalize))
        inputs.extend(seg_inputs)
        return Job("updatedb", inputs, CRAWLDB_SCHEMA, UpdateReducer(now, crawldb_src, additions),
                   CRAWLDB_SCHEMA, run.parts)

    result, recovered = run_table_job(crawldb, "crawldb", settings, build, progress, absorbs=names)
    return UpdateReport(dict(result.counters), result.errors, result.rows, result.seconds, recovered,
                        segments=[place_text(s) for s in places])
