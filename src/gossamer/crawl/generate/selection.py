"""Generate's selection: which due URLs go into which fetch list (Nutch's Generator, job 1).

The candidate job (:mod:`gossamer.crawl.generate.candidates`, an engine job, so it runs on
Spark too) keeps the rows that are due — by the fetch schedule (``fetch_time <= now +
adddays``, or a fetch time more than ``db.fetch.interval.max`` in the future, which the
schedule pulls back), not generated within ``crawl.gen.delay`` (the ``_ngt_`` marker),
of ``generate.restrict.status``, within ``generate.min.interval``, with a score of at
least ``generate.min.score`` — and accepted by the URL filters, cut to what the
dealing can use.  DuckDB then reads the candidates best first (ties by URL, so the
result never depends on the engine, the part count or timing) and a streaming pass
deals them into up to ``-maxNumSegments`` segments of ``-topN`` URLs, at most
``generate.max.count`` per host or domain (``generate.count.mode``) and segment,
exactly as Nutch's reducer does.  It stops as soon as every segment is full.

The candidate table is staged inside the crawldb's own directory (a ``tmp-*``
directory, or an unnamed ``v-*`` prefix on an object store), never in a local
temporary directory: on a cluster the executors write its parts, so it must be
where they can all write — which the crawldb's store is, by definition.  The
crawldb's lock is held throughout, a crash leaves it to the next writer's
recovery, and it is small (cut to what the dealing can use).  DuckDB reads local
parts itself and parts on another filesystem (``s3://`` …) as a pyarrow dataset:
the same rows, sorted by the same ``ORDER BY``, so the selection is identical.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field

import pyarrow as pa

from gossamer.core import META_GENERATE_TIME, CrawlDatum, Settings, status_by_name
from gossamer.crawl.generate.candidates import (
    CANDIDATE_SCHEMA,
    COUNT_KEY,
    ORDER_KEY,
    DueRule,
    KeepFirst,
    SelectCandidates,
)
from gossamer.crawl.readdb import connect, parts_relation
from gossamer.engine import Input, Job, TableSource, run_job
from gossamer.store import (
    KEY_PARTITIONER_NAME,
    Place,
    TableVersion,
    batch_to_datums,
    discard,
    new_staging_dir,
    part_name,
)


@dataclass(frozen=True)
class SelectOptions:
    """What to select: due at ``cur_time``; ``top_n`` per segment (None: unlimited)."""

    cur_time: int
    top_n: int | None = None
    max_segments: int = 1
    filter: bool = True
    normalize: bool = True


@dataclass
class Selection:
    """Selected ``(url, datum)`` pairs per segment, and counters."""

    segments: list[list[tuple[str, CrawlDatum]]]
    counters: dict[str, int] = field(default_factory=lambda: defaultdict(int))


def due_rule(settings: Settings, cur_time: int) -> DueRule:
    """The settings' due rule at ``cur_time``; ValueError for an unknown ``generate.restrict.status``."""
    restrict = settings.get_str("generate.restrict.status").strip()
    status = None
    if restrict:
        status = status_by_name(restrict)
        if status < 0:
            raise ValueError(f"generate.restrict.status: unknown status {restrict!r}")
    return DueRule(cur_time, settings.get_int("db.fetch.interval.max") * 1000,
                   settings.get_int("crawl.gen.delay"), settings.get_float("generate.min.score"),
                   status, max(settings.get_int("generate.min.interval"), 0))


def candidate_job(version: TableVersion, settings: Settings, opts: SelectOptions) -> Job:
    """The candidate job over the crawldb ``version`` (see :mod:`gossamer.crawl.generate.candidates`)."""
    max_count = settings.get_int("generate.max.count")
    segments = max(1, opts.max_segments)
    counted = max_count > 0
    top_n = opts.top_n if opts.top_n is not None and opts.top_n > 0 else 0
    mapper = SelectCandidates(due_rule(settings, opts.cur_time), opts.normalize, counted,
                              settings.get_str("generate.count.mode") == "domain")
    reducer = KeepFirst(per_group=max_count * segments if counted else None,
                        per_part=top_n * segments if top_n and not counted else None,
                        filter=opts.filter)
    return Job("generate-select", [Input(TableSource(str(version.directory)), mapper)], CANDIDATE_SCHEMA,
               reducer, CANDIDATE_SCHEMA, version.parts, key=ORDER_KEY, partitioner=KEY_PARTITIONER_NAME,
               partition_by=COUNT_KEY if counted else "url")


def _candidates(crawldb: Place, version: TableVersion, settings: Settings, opts: SelectOptions,
                counters: dict[str, int]) -> Iterator[pa.RecordBatch]:
    staging = new_staging_dir(crawldb)
    try:
        job = candidate_job(version, settings, opts)
        result = run_job(job, staging, settings)
        counters.update(result.counters)
        con = connect(settings.get_int("engine.memory.budget.mb"))
        source = parts_relation(con, staging, [part_name(i) for i in range(job.parts)])
        query = f"SELECT * EXCLUDE ({ORDER_KEY}) FROM {source} ORDER BY score DESC, url"
        yield from con.sql(query).to_arrow_reader(8192)
    finally:
        discard(staging)


def select(crawldb: Place, version: TableVersion, settings: Settings, opts: SelectOptions) -> Selection:
    """Run the selection (see the module docstring); the candidate table is staged in ``crawldb``."""
    dealer = _Dealer(settings, opts)
    with closing(_candidates(crawldb, version, settings, opts, dealer.selection.counters)) as batches:
        for batch in batches:
            if not dealer.deal(batch):
                break
    return dealer.selection


class _Dealer:
    """Deals candidates, best first, into segments: Nutch's limits per segment and group."""

    def __init__(self, settings: Settings, opts: SelectOptions) -> None:
        self.max_count = settings.get_int("generate.max.count")
        self.max_interval = settings.get_int("db.fetch.interval.max")
        self.limit = opts.top_n if opts.top_n is not None and opts.top_n > 0 else None
        self.cur_time = opts.cur_time
        self.segments: list[list[tuple[str, CrawlDatum]]] = [[] for _ in range(max(1, opts.max_segments))]
        self.counts: dict[str, list[int]] = {}
        self.selection = Selection(self.segments)
        self.current = 0

    def _full(self, segment: int) -> bool:
        return self.limit is not None and len(self.segments[segment]) >= self.limit

    def deal(self, batch: pa.RecordBatch) -> bool:
        """Deal a batch of candidates in order; False once every segment is full."""
        segments, limit = self.segments, self.limit
        for (url, datum), key in zip(batch_to_datums(batch), batch.column(COUNT_KEY).to_pylist(), strict=True):
            if self.current >= len(segments):
                return False
            per_segment = self.counts.setdefault(key, [0] * len(segments))
            target = self.current
            while target < len(segments) and (
                    self._full(target) or (self.max_count > 0 and per_segment[target] >= self.max_count)):
                target += 1
            if target >= len(segments):
                self.selection.counters["urls_over_max_count"] += 1
                continue
            if datum.fetch_time - self.cur_time > self.max_interval * 1000:  # the schedule pulls it back
                if datum.fetch_interval > self.max_interval:
                    datum.set_fetch_interval(self.max_interval * 0.9)
                datum.fetch_time = self.cur_time
            datum.metadata[META_GENERATE_TIME] = str(self.cur_time)
            segments[target].append((url, datum))
            per_segment[target] += 1
            while self.current < len(segments) and limit is not None and self._full(self.current):
                self.current += 1
        return self.current < len(segments)
