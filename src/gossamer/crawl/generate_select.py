"""Generate's selection: which due URLs go into which fetch list (Nutch's Generator, job 1).

DuckDB scans the crawldb parts and returns the candidates — due by the fetch
schedule (``fetch_time <= now + adddays``, or a fetch time more than
``db.fetch.interval.max`` in the future, which the schedule pulls back), not
generated within ``crawl.gen.delay`` (the ``_ngt_`` marker), of the
``generate.restrict.status``, within ``generate.min.interval``, with a sort value
(the score) of at least ``generate.min.score`` — best first, ties by URL so the
result is deterministic.  A streaming Python pass then applies the URL filters
and deals candidates into up to ``-maxNumSegments`` segments of ``-topN`` URLs,
at most ``generate.max.count`` per host or domain (``generate.count.mode``) and
segment, exactly as Nutch's reducer does.  It stops as soon as every segment is full.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa

from gossamer.core.datum import META_GENERATE_TIME, CrawlDatum
from gossamer.core.settings import Settings
from gossamer.core.status import status_by_name
from gossamer.crawl.readdb_stats import connect, parquet_relation
from gossamer.plugins import URLChain
from gossamer.store.crawldb_schema import batch_to_datums
from gossamer.store.partitioning import host_of
from gossamer.store.table import TableVersion


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


def _candidates(version: TableVersion, settings: Settings, opts: SelectOptions) -> Iterator[pa.RecordBatch]:
    max_interval_ms = settings.get_int("db.fetch.interval.max") * 1000
    gen_delay = settings.get_int("crawl.gen.delay")
    where = [
        "(epoch_ms(fetch_time) <= $cur OR epoch_ms(fetch_time) - $cur > $maxint)",
        "(metadata['_ngt_'] IS NULL OR TRY_CAST(metadata['_ngt_'] AS BIGINT) IS NULL "
        "OR TRY_CAST(metadata['_ngt_'] AS BIGINT) + $gendelay <= $cur)",
        "score >= $minscore",
    ]
    params: dict[str, object] = {"cur": opts.cur_time, "maxint": max_interval_ms, "gendelay": gen_delay,
                                 "minscore": settings.get_float("generate.min.score")}
    restrict = settings.get_str("generate.restrict.status").strip()
    if restrict:
        code = status_by_name(restrict)
        if code < 0:
            raise ValueError(f"generate.restrict.status: unknown status {restrict!r}")
        where.append("status = $restrict")
        params["restrict"] = code
    min_interval = settings.get_int("generate.min.interval")
    if min_interval > 0:
        where.append("fetch_interval <= $mininterval")
        params["mininterval"] = min_interval
    query = (f"SELECT * FROM {parquet_relation(version)} WHERE {' AND '.join(where)} "
             "ORDER BY score DESC, url")
    con = connect(settings.get_int("engine.memory.budget.mb"))
    reader = con.sql(query, params=params).to_arrow_reader(8192)
    yield from reader


def select(version: TableVersion, settings: Settings, opts: SelectOptions, chain: URLChain,
           count_chain: URLChain) -> Selection:
    """Run the selection (see the module docstring)."""
    max_count = settings.get_int("generate.max.count")
    by_domain = settings.get_str("generate.count.mode") == "domain"
    max_interval = settings.get_int("db.fetch.interval.max")
    limit = opts.top_n if opts.top_n is not None and opts.top_n > 0 else None
    segments: list[list[tuple[str, CrawlDatum]]] = [[] for _ in range(max(1, opts.max_segments))]
    counts: dict[str, list[int]] = {}
    selection = Selection(segments)
    current = 0
    for batch in _candidates(version, settings, opts):
        for url, datum in batch_to_datums(batch):
            if current >= len(segments):
                return selection
            selection.counters["candidates"] += 1
            if opts.filter and chain.filter(url) is None:
                selection.counters["urls_filtered"] += 1
                continue
            key = _count_key(url, count_chain if opts.normalize else None, by_domain)
            per_segment = counts.setdefault(key, [0] * len(segments))
            target = current
            while target < len(segments) and (
                    (limit is not None and len(segments[target]) >= limit)
                    or (max_count > 0 and per_segment[target] >= max_count)):
                target += 1
            if target >= len(segments):
                selection.counters["urls_over_max_count"] += 1
                continue
            if datum.fetch_time - opts.cur_time > max_interval * 1000:  # the schedule pulls it back
                if datum.fetch_interval > max_interval:
                    datum.set_fetch_interval(max_interval * 0.9)
                datum.fetch_time = opts.cur_time
            datum.metadata[META_GENERATE_TIME] = str(opts.cur_time)
            segments[target].append((url, datum))
            per_segment[target] += 1
            while current < len(segments) and limit is not None and len(segments[current]) >= limit:
                current += 1
    return selection


def _count_key(url: str, chain: URLChain | None, by_domain: bool) -> str:
    if chain is not None:
        try:
            url = chain.normalize(url)
        except ValueError:
            pass
    host = host_of(url)
    if by_domain:
        from gossamer.plugins.support.domains import domain_of

        return domain_of(host)
    return host
