"""Generate's candidate job: due, accepted URLs, best first per group (Nutch's Generator, job 1).

An engine job, so it runs on every engine (one map task per crawldb part)::

    crawldb part ──map SelectCandidates──▶ due (schedule, _ngt_, status, interval, score), with
                                           count_key (host/domain after the generate_host_count
                                           normalizers, or "" when generate.max.count is off)
                                           and order_key
        ──shuffle by count_key (or url)──▶ sorted by order_key = count_key, score desc, url
        ──reduce KeepFirst──▶ the first ``per_group`` rows of each count_key that the URL
                              filters accept (``generate.max.count`` × segments), or, without a
                              per-group limit, the first ``per_part`` accepted rows of the part
                              (topN × segments)

Both cuts are exact: the dealing that follows (:mod:`.selection`) visits candidates
best first, and a group never gets more than ``max.count`` URLs per segment, so its
later candidates could never be chosen; without a group limit nothing is ever skipped,
so no part contributes more than ``topN × segments`` URLs.  The filters run in the
reduce, in that order, so rows past a cut are never filtered.  Ties in score are broken by
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
from gossamer.plugins import task_chain
from gossamer.store import CRAWLDB_SCHEMA, hosts_of

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


def order_keys(count_keys: pa.Array, scores: pa.Array, urls: pa.Array) -> pa.Array:
    """Binary keys sorting like ``(count_key, score descending, url)``: ``count_key ␀ score ␀ url``.

    The score (float32) becomes 4 big-endian bytes whose byte order is the reverse of
    the numeric order (-0.0 counts as 0.0); the NUL after the count key ends it, so a
    key never runs into the next one.  Built with Arrow kernels, no Python loop.
    """
    bits = (np.asarray(scores.to_numpy(zero_copy_only=False), dtype=np.float32) + np.float32(0)).view(np.uint32)
    ascending = np.where(bits >> 31 == 1, ~bits, bits | np.uint32(0x80000000))
    prefix = pa.FixedSizeBinaryArray.from_buffers(pa.binary(4), len(bits),
                                                  [None, pa.py_buffer((~ascending).astype(">u4").tobytes())])
    return pc.binary_join_element_wise(count_keys.cast(pa.binary()), prefix.cast(pa.binary()),
                                       urls.cast(pa.binary()), b"\x00")


@dataclass(frozen=True)
class SelectCandidates:
    """Map: keep the due rows; add ``count_key`` and ``order_key`` (the URL filters run in the reduce)."""

    due: DueRule
    normalize: bool = True
    counted: bool = False  # generate.max.count > 0: group by host or domain
    by_domain: bool = False  # generate.count.mode = domain

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the due rows of ``batch`` in :data:`CANDIDATE_SCHEMA`."""
        batch = batch.filter(self.due.mask(batch))
        if batch.num_rows == 0:
            return
        ctx.count("candidates", batch.num_rows)
        urls = batch.column("url")
        groups = self._count_keys(urls, ctx) if self.counted else pa.repeat(pa.scalar("", pa.string()), len(urls))
        columns = [order_keys(groups, batch.column("score"), urls),
                   *(batch.column(name) for name in CRAWLDB_SCHEMA.names), groups]
        yield pa.RecordBatch.from_arrays(columns, schema=CANDIDATE_SCHEMA)

    def _count_keys(self, urls: pa.Array, ctx: TaskContext) -> pa.Array:
        """Host (or domain) of every URL after the ``generate_host_count`` normalizers."""
        if self.normalize:
            chain = task_chain(ctx, "generate_host_count", True, False)
            normalized = []
            for url in urls.to_pylist():
                try:
                    normalized.append(chain.normalize(url))
                except ValueError:
                    normalized.append(url)
            urls = pa.array(normalized, pa.string())
        hosts = hosts_of(urls)
        if not self.by_domain:
            return hosts
        from gossamer.core import domain_of

        encoded = pc.dictionary_encode(hosts)
        domains = pa.array([domain_of(h) for h in encoded.dictionary.to_pylist()], pa.string())
        return domains.take(encoded.indices)


@dataclass(frozen=True)
class KeepFirst:
    """Reduce: URLs the filters accept, the first ``per_group`` of each count key or ``per_part`` of the part.

    Rows arrive in ``order_key`` order across calls; the running counts live in the
    task's :attr:`~gossamer.engine.TaskContext.state`, so a group or a part split over
    several calls is cut at the same place.  The URL filters run only on rows that
    could still be kept (a full group's or part's later rows are never filtered), so
    ``urls_filtered`` counts the rejections among the rows looked at.
    """

    per_group: int | None = None
    per_part: int | None = None
    filter: bool = True

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the kept rows of ``batch`` (without the engine's columns)."""
        state = ctx.state
        chain = task_chain(ctx, "generate", False, True) if self.filter else None
        group, seen, kept = state.get("group"), state.get("seen", 0), state.get("kept", 0)
        per_group = self.per_group if self.per_group is not None else -1
        per_part = self.per_part if self.per_part is not None else -1
        keep: list[int] = []
        rejected = 0
        groups = batch.column(COUNT_KEY).to_pylist() if per_group >= 0 else None
        for i, url in enumerate(batch.column("url").to_pylist()):
            if kept == per_part:
                break
            if groups is not None:
                if groups[i] != group:
                    group, seen = groups[i], 0
                if seen == per_group:
                    continue
            if chain is not None and chain.filter(url) is None:
                rejected += 1
                continue
            seen += 1
            kept += 1
            keep.append(i)
        state["group"], state["seen"], state["kept"] = group, seen, kept
        if rejected:
            ctx.count("urls_filtered", rejected)
        ctx.count("candidates_kept", len(keep))
        if keep:
            yield batch.select(CANDIDATE_SCHEMA.names).take(pa.array(keep, pa.int64()))
