"""The inject job's map and reduce functions (Nutch's Injector mapper and reducer).

Map (seeds): parse each line, check the URL, normalize and filter it (scope
``inject``), and build an ``injected`` row with the seed's score, interval and
metadata (then the scoring filters' ``injected_score``; one that raises ValueError
makes the line bad).  Map (existing crawldb): drop ``db_gone`` rows when
``db.update.purge.404``.  Reduce, per URL: a new URL becomes ``db_unfetched``;
for a URL already present the old row is kept, unless ``-overwrite`` (the seed
replaces it) or ``-update`` (seed metadata merged in; seed score and interval
taken where they differ from the defaults).  When a URL is in the seeds several
times, the last line wins.  Bad lines are reported with file and line number,
counted, and skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import META_FIXED_INTERVAL, CrawlDatum, CrawlStatus, url_problem
from gossamer.crawl.inject.fast_lane import Column, FastRows, SeedDefaults, SlowRows, fast_line_mask, in_line_order
from gossamer.crawl.inject.seeds import SeedError, is_seed_text, parse_seed_line
from gossamer.engine import TaskContext
from gossamer.plugins import PluginRepository, ScoringFilter, URLChain, settings_key, task_chain
from gossamer.store import CRAWLDB_SCHEMA, TIMESTAMP, batch_to_datums, datums_to_batch, hosts_of

SCOPE = "inject"


@dataclass(frozen=True)
class InjectOptions:
    """Command-line switches of ``inject``."""

    overwrite: bool = False
    update: bool = False
    filter: bool = True
    normalize: bool = True
    filter_normalize_all: bool = False


def _scoring(ctx: TaskContext) -> list[ScoringFilter]:
    return ctx.cached(settings_key(ctx.settings, "scoring"),
                      lambda: PluginRepository(ctx.settings).chain(ScoringFilter))


@dataclass(frozen=True)
class SeedMapper:
    """Map function for seed text: lines → ``injected`` crawldb rows.

    Lines that are one clean URL the chain keeps as it is go through the fast lane
    (:mod:`gossamer.crawl.inject.fast_lane`: Arrow columns, no per-line Python); every other line
    through the per-line path below.  Both give the same rows; rows keep the order of the lines.
    """

    options: InjectOptions
    now: int

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Turn a batch of seed lines into injected rows; bad lines are reported and skipped."""
        settings = ctx.settings
        schemes = frozenset(settings.get_list("urls.schemes"))
        defaults = SeedDefaults(settings.get_float("db.score.injected"), settings.get_int("db.fetch.interval.default"))
        chain = task_chain(ctx, SCOPE, self.options.normalize, self.options.filter)
        scoring = [f for f in _scoring(ctx) if type(f).injected_score is not ScoringFilter.injected_score]
        fast = None if scoring else fast_line_mask(batch, chain, schemes)
        positions = list(range(batch.num_rows)) if fast is None else \
            pc.indices_nonzero(pc.invert(fast)).to_pylist()
        rows = self._line_by_line(batch, positions, ctx, chain, schemes, defaults, scoring)
        fast_rows = FastRows.of(batch, fast)
        ctx.count("seed_lines", rows.seed_lines + fast_rows.count)
        ctx.count("urls_injected_total", len(rows.urls) + fast_rows.count)
        if rows.urls or fast_rows.count:
            yield injected_batch(*in_line_order(fast_rows, rows, defaults), self.now)

    def _line_by_line(
        self, batch: pa.RecordBatch, positions: list[int], ctx: TaskContext, chain: URLChain,
        schemes: frozenset[str], defaults: SeedDefaults, scoring: list[ScoringFilter],
    ) -> SlowRows:
        """The per-line path over the lines at ``positions`` (Nutch's Injector mapper, line by line)."""
        rows = SlowRows()
        if not positions:
            return rows
        taken = positions if len(positions) < batch.num_rows else None
        lines = (batch.column("line") if taken is None else batch.column("line").take(taken)).to_pylist()
        problems = (batch.column("problem") if taken is None else batch.column("problem").take(taken)).to_pylist()
        for position, line, line_problem in zip(positions, lines, problems, strict=True):
            if not is_seed_text(line):
                continue
            rows.seed_lines += 1
            try:
                if line_problem:
                    raise SeedError(line_problem)
                seed = parse_seed_line(line)
                problem = url_problem(seed.url, schemes)
                if problem:
                    raise SeedError(problem)
                url = chain.normalize(seed.url)
                problem = url_problem(url, schemes) if url != seed.url else None
                if problem:
                    raise SeedError(f"{problem} after normalization: {url!r}")
            except (SeedError, ValueError) as exc:
                ctx.count("urls_bad")
                ctx.report(f"{_where(batch, position)}: {exc}: {line[:300]!r}")
                continue
            kept = chain.filter(url)
            if kept is None:
                ctx.count("urls_filtered")
                continue
            meta = seed.metadata
            interval = seed.interval if seed.interval is not None else defaults.interval
            if seed.fixed_interval is not None:
                meta[META_FIXED_INTERVAL] = repr(seed.fixed_interval)
                interval = int(round(seed.fixed_interval))
            score = seed.score if seed.score is not None else defaults.score
            if scoring:
                datum = CrawlDatum(CrawlStatus.INJECTED, self.now, 0, interval, score, metadata=meta)
                try:
                    for scoring_filter in scoring:
                        scoring_filter.injected_score(kept, datum)
                except ValueError as exc:  # a scoring filter refuses the seed's metadata: a bad line
                    ctx.count("urls_bad")
                    ctx.report(f"{_where(batch, position)}: {exc}: {line[:300]!r}")
                    continue
                score, interval, meta = datum.score, datum.fetch_interval, datum.metadata
            rows.add(position, kept, score, interval, list(meta.items()) if meta else None)
        return rows


def _where(batch: pa.RecordBatch, index: int) -> str:
    """``file:line`` of seed line ``index`` of ``batch``."""
    return f"{batch.column('file')[index].as_py()}:{batch.column('line_no')[index].as_py()}"


def injected_batch(urls: Column, scores: Column, intervals: Column, metadata: Column, now: int) -> pa.RecordBatch:
    """Crawldb rows with status ``injected`` built column by column (no per-row objects).

    Each column is a list or an Arrow array (of the crawldb field's type or one that casts to it).
    """
    n = len(urls)
    url_array = _array(urls, pa.string())
    columns = {
        "url": url_array,
        "host": hosts_of(url_array),
        "status": pa.array(np_full(n, int(CrawlStatus.INJECTED)), pa.uint8()),
        "fetch_time": pa.array(np_full(n, now), pa.int64()).cast(TIMESTAMP),
        "retries": pa.array(np_full(n, 0), pa.int16()),
        "fetch_interval": _array(intervals, pa.int32()),
        "score": _array(scores, pa.float32()),
        "signature": pa.nulls(n, pa.binary()),
        "modified_time": pa.array(np_full(n, 0), pa.int64()).cast(TIMESTAMP),
        "metadata": _array(metadata, CRAWLDB_SCHEMA.field("metadata").type),
    }
    return pa.RecordBatch.from_arrays([columns[f.name] for f in CRAWLDB_SCHEMA], schema=CRAWLDB_SCHEMA)


def _array(values: Column, type_: pa.DataType) -> pa.Array:
    """``values`` as an Arrow array of ``type_``."""
    if isinstance(values, pa.Array):
        return values if values.type == type_ else values.cast(type_)
    return pa.array(values, type_)


def np_full(n: int, value: int) -> list[int]:
    """A list of ``n`` copies of ``value`` (cheap: one list repetition)."""
    return [value] * n


@dataclass(frozen=True)
class ExistingMapper:
    """Map function for the existing crawldb: purge gone pages, optionally re-normalize/filter."""

    options: InjectOptions

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the rows to keep."""
        if ctx.settings.get_bool("db.update.purge.404"):
            gone = pc.equal(batch.column("status"), int(CrawlStatus.DB_GONE))
            purged = _true_count(gone)
            if purged:
                ctx.count("urls_purged_404", purged)
                batch = batch.filter(pc.invert(gone))
        if self.options.filter_normalize_all and batch.num_rows:
            batch = self._renormalize(batch, ctx)
        yield batch

    def _renormalize(self, batch: pa.RecordBatch, ctx: TaskContext) -> pa.RecordBatch:
        chain = task_chain(ctx, SCOPE, self.options.normalize, self.options.filter)
        kept: list[tuple[str, CrawlDatum]] = []
        for url, datum in batch_to_datums(batch):
            try:
                new_url = chain.filter(chain.normalize(url))
            except ValueError as exc:
                ctx.report(f"crawldb URL {url!r}: {exc}")
                new_url = None
            if new_url is None:
                ctx.count("urls_filtered")
                continue
            kept.append((new_url, datum))
        return datums_to_batch(kept)


@dataclass(frozen=True)
class InjectReducer:
    """Reduce function: merge seeds with existing rows per URL (Nutch's InjectReducer).

    Everything but ``-update`` is decided column-wise: per URL group the old row
    is kept if there is one (``-overwrite``: the last seed row instead, when the
    URL was seeded), else the last seed row.  ``-update`` merges field by field in
    Python, only for URLs that are both old and seeded.  Several old rows for one
    URL happen only when ``-filterNormalizeAll`` maps old URLs together: the first
    (in part order) is kept.
    """

    options: InjectOptions
    seed_src: int

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield merged crawldb rows in URL order."""
        n = batch.num_rows
        keys, src = batch.column("url"), batch.column("_src")
        if n > 1:
            differs = pc.not_equal(keys.slice(1), keys.slice(0, n - 1))
            first = pa.concat_arrays([pa.array([True]), differs])
            last = pa.concat_arrays([differs, pa.array([True])])
        else:
            first = last = pa.array([True] * n)
        group = pc.subtract(pc.cumulative_sum(pc.cast(first, pa.int64())), 1)
        has_old = pc.not_equal(pc.take(src.filter(first), group), self.seed_src)
        has_seed = pc.equal(pc.take(src.filter(last), group), self.seed_src)
        from_seed = pc.equal(src, self.seed_src)
        both = pc.and_(has_old, has_seed)
        groups = _true_count(first)
        with_old = _true_count(pc.and_(first, has_old))
        merged = _true_count(pc.and_(first, both))
        ctx.count("urls_injected", groups - with_old)
        ctx.count("urls_merged", merged)
        ctx.count("urls_duplicate_in_seeds", _true_count(from_seed) - _true_count(pc.and_(last, has_seed)))
        ctx.count("urls_collapsed_in_crawldb", _true_count(pc.invert(from_seed)) - with_old)
        if self.options.overwrite:
            keep = pc.or_(pc.and_(last, has_seed), pc.and_(first, pc.invert(has_seed)))
            ctx.count("urls_overwritten", merged)
        else:
            keep = pc.or_(pc.and_(first, has_old), pc.and_(last, pc.invert(has_old)))
        if self.options.update:
            keep = pc.and_(keep, pc.invert(both))
        kept = batch.filter(keep)
        status = pc.if_else(pc.equal(kept.column("_src"), self.seed_src),
                            pa.scalar(int(CrawlStatus.DB_UNFETCHED), pa.uint8()), kept.column("status"))
        kept = kept.set_column(kept.schema.get_field_index("status"), "status", status)
        pieces = [pa.Table.from_batches([kept.select(CRAWLDB_SCHEMA.names)]).cast(CRAWLDB_SCHEMA)]
        if self.options.update:
            updated = batch.filter(both)
            if updated.num_rows:
                pieces.append(pa.Table.from_batches([self._update_groups(updated, ctx)]))
        merged = pa.concat_tables(pieces)
        if len(pieces) > 1:
            merged = merged.take(pc.sort_indices(merged, [("url", "ascending")]))
        yield from merged.combine_chunks().to_batches()

    def _update_groups(self, rows: pa.RecordBatch, ctx: TaskContext) -> pa.RecordBatch:
        """``-update`` for URLs with an old row and seed rows: :meth:`_update` merges each pair."""
        out: dict[str, CrawlDatum] = {}
        seeds: dict[str, CrawlDatum] = {}
        for (url, datum), src in zip(batch_to_datums(rows), rows.column("_src").to_pylist(), strict=True):
            if src == self.seed_src:
                seeds[url] = datum  # the last seed line wins
            else:
                out.setdefault(url, datum)  # the first old row wins (several only with -filterNormalizeAll)
        self._update(out, seeds, ctx)
        ctx.count("urls_updated", len(out))
        return datums_to_batch(sorted(out.items()))

    def _update(self, old_rows: dict[str, CrawlDatum], seeds: dict[str, CrawlDatum], ctx: TaskContext) -> None:
        """Change each old row in place by the seed of its URL: metadata merged, non-default score and interval.

        The one hook a merge job built on this reducer (``sitemap``) overrides.
        """
        default_score = ctx.settings.get_float("db.score.injected")
        default_interval = ctx.settings.get_int("db.fetch.interval.default")
        for url, old in old_rows.items():
            seed = seeds[url]
            old.merge_metadata(seed.metadata)
            if seed.score != default_score:
                old.score = seed.score
            if seed.fetch_interval != default_interval:
                old.fetch_interval = seed.fetch_interval


def _true_count(mask: pa.Array) -> int:
    """Number of true values in a boolean array (0 for an empty one)."""
    return pc.sum(mask).as_py() or 0
