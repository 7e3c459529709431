"""Generate's candidate job: due, accepted URLs, best first per group (Nutch's Generator, job 1).

An engine job, so it runs on every engine (one map task per crawldb part)::

    crawldb part ──map SelectCandidates──▶ due (schedule, _ngt_, status, interval, score)
                                           and accepted by the URL filters, with
                                           count_key (host/domain, or "" when
                                           generate.max.count is off) and order_key
        ──shuffle by count_key (or url)──▶ sorted by order_key = count_key, 0, score desc, url
        ──reduce KeepFirst──▶ the first ``per_group`` rows of each count_key
                              (``generate.max.count`` × segments), or, without a per-group
                              limit, the first ``per_part`` rows of the part (topN × segments)

Both cuts are exact: the dealing that follows (``generate_select``) visits candidates
best first, and a group never gets more than ``max.count`` URLs per segment, so its
later candidates could never be chosen; without a group limit nothing is ever skipped,
so no part contributes more than ``topN × segments`` URLs.  Ties in score are broken by
URL (``order_key`` ends with it), never by arrival order, so the result is the same on
any engine and any number of parts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.engine import TaskContext
from gossamer.plugins import PluginRepository, URLChain
from gossamer.plugins.urlchain import settings_key
from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA
from gossamer.store.partitioning import host_of

ORDER_KEY = "order_key"
COUNT_KEY = "count_key"
CANDIDATE_SCHEMA = pa.schema([pa.field(ORDER_KEY, pa.binary(), nullable=False), *CRAWLDB_SCHEMA,
                              pa.field(COUNT_KEY, pa.string(), nullable=False)])
"""Rows of the candidate table: the crawldb row, its group and its place in the order."""


@dataclass(frozen=True)
class DueRule:
    """Which crawldb rows are due for generate at ``cur_time`` (epoch ms)."""

    cur_time: int
    max_interval_ms: int  # db.fetch.interval.max: a fetch time further ahead is pulled back
    gen_delay_ms: int  # crawl.gen.delay: rows marked _ngt_ less than this ago are skipped
    min_score: float  # generate.min.score
    status: int | None = None  # generate.restrict.status
    min_interval: int = 0  # generate.min.interval (seconds; 0: any)

    def mask(self, batch: pa.RecordBatch) -> pa.Array:
        """True for the due rows of ``batch`` (a NaN score is never due)."""
        fetch = batch.column("fetch_time").cast(pa.int64())
        due = pc.or_(pc.less_equal(fetch, self.cur_time),
                     pc.greater(pc.subtract(fetch, self.cur_time), self.max_interval_ms))
        due = pc.and_(due, pc.greater_equal(batch.column("score"), pa.scalar(self.min_score, pa.float32())))
        if self.status is not None:
            due = pc.and_(due, pc.equal(batch.column("status"), self.status))
        if self.min_interval > 0:
            due = pc.and_(due, pc.less_equal(batch.column("fetch_interval"), self.min_interval))
        marked = pc.map_lookup(batch.column("metadata"), pa.scalar("_ngt_"), "first")
        if marked.null_count < len(marked):
            recent = [_generated_at(value) + self.gen_delay_ms > self.cur_time
                      for value in marked.to_pylist()]
            due = pc.and_(due, pc.invert(pa.array(recent, pa.bool_())))
        return pc.fill_null(due, False)


def _generated_at(value: str | None) -> int:
    """The ``_ngt_`` time in ms; a missing or unreadable marker counts as never generated."""
    try:
        return int(value) if value is not None else -(1 << 62)
    except ValueError:
        return -(1 << 62)


def order_keys(count_keys: list[str], scores: pa.Array, urls: list[str]) -> pa.Array:
    """Binary keys sorting like ``(count_key, score descending, url)``.

    The score (float32) becomes 4 big-endian bytes whose byte order is the reverse of
    the numeric order; a NUL ends the count key, so a key never runs into the next one.
    """
    bits = (np.asarray(scores.to_numpy(zero_copy_only=False), dtype=np.float32) + np.float32(0)).view(np.uint32)
    ascending = np.where(bits >> 31 == 1, ~bits, bits | np.uint32(0x80000000))
    prefix = (~ascending).astype(">u4").tobytes()
    return pa.array([group.encode("utf-8") + b"\x00" + prefix[4 * i:4 * i + 4] + url.encode("utf-8")
                     for i, (group, url) in enumerate(zip(count_keys, urls, strict=True))], pa.binary())


@dataclass(frozen=True)
class SelectCandidates:
    """Map: keep due rows the URL filters accept; add ``count_key`` and ``order_key``."""

    due: DueRule
    filter: bool = True
    normalize: bool = True
    counted: bool = False  # generate.max.count > 0: group by host or domain
    by_domain: bool = False  # generate.count.mode = domain

    def _chains(self, ctx: TaskContext) -> tuple[URLChain, URLChain]:
        def build() -> tuple[URLChain, URLChain]:
            repo = PluginRepository(ctx.settings)
            return (URLChain(repo, "generate", normalize=False, filter=self.filter),
                    URLChain(repo, "generate_host_count", normalize=self.normalize, filter=False))

        return ctx.cached(settings_key(ctx.settings, "generate-chains", self.filter, self.normalize), build)

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the candidates of ``batch`` in :data:`CANDIDATE_SCHEMA`."""
        batch = batch.filter(self.due.mask(batch))
        if batch.num_rows == 0:
            return
        ctx.count("candidates", batch.num_rows)
        chain, count_chain = self._chains(ctx)
        urls = batch.column("url").to_pylist()
        if self.filter:
            accepted = [chain.filter(url) is not None for url in urls]
            if not all(accepted):
                ctx.count("urls_filtered", accepted.count(False))
                batch = batch.filter(pa.array(accepted, pa.bool_()))
                urls = [url for url, keep in zip(urls, accepted, strict=True) if keep]
        groups = [self._count_key(url, count_chain) for url in urls] if self.counted else [""] * len(urls)
        columns = [order_keys(groups, batch.column("score"), urls),
                   *(batch.column(name) for name in CRAWLDB_SCHEMA.names), pa.array(groups, pa.string())]
        yield pa.RecordBatch.from_arrays(columns, schema=CANDIDATE_SCHEMA)

    def _count_key(self, url: str, chain: URLChain) -> str:
        if self.normalize:
            try:
                url = chain.normalize(url)
            except ValueError:
                pass
        host = host_of(url)
        if self.by_domain:
            from gossamer.plugins.support.domains import domain_of

            return domain_of(host)
        return host


@dataclass(frozen=True)
class KeepFirst:
    """Reduce: the first ``per_group`` rows of each count key, or the first ``per_part`` of the part.

    Rows arrive in ``order_key`` order across calls; the running counts live in the
    task's :attr:`~gossamer.engine.TaskContext.state`, so a group or a part split over
    several calls is cut at the same place.
    """

    per_group: int | None = None
    per_part: int | None = None

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the kept rows of ``batch`` (without the engine's columns)."""
        state = ctx.state
        batch = batch.select(CANDIDATE_SCHEMA.names)
        if self.per_group is not None:
            keep: list[bool] = []
            group, seen = state.get("group"), state.get("seen", 0)
            for key in batch.column(COUNT_KEY).to_pylist():
                if key != group:
                    group, seen = key, 0
                seen += 1
                keep.append(seen <= self.per_group)
            state["group"], state["seen"] = group, seen
            batch = batch.filter(pa.array(keep, pa.bool_()))
        if self.per_part is not None:
            room = max(self.per_part - state.get("kept", 0), 0)
            batch = batch.slice(0, room)
            state["kept"] = state.get("kept", 0) + batch.num_rows
        ctx.count("candidates_kept", batch.num_rows)
        if batch.num_rows:
            yield batch
