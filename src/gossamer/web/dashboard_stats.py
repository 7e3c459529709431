"""Crawl statistics for the dashboard and its JSON: pure, read-only functions over a crawl directory.

:func:`dashboard_stats` gathers the crawldb's status counts and per-host counts
(DuckDB over ``crawldb/current/*.parquet``), one :class:`~gossamer.web.segment_stats.SegmentRow`
per segment, the index size and the best-scored pages (:mod:`gossamer.web.top_pages`).
Each piece is cached in memory under a key made of its tables' ``_table.json``
(``_index.json``) modification times, so a page view only ``stat``\\ s a few files
unless a job has written something since; a new segment costs one query over that
segment (plus the cheap new-URL query over all).

Host columns (:class:`HostRow`) split the crawldb's statuses: ``fetched`` = db_fetched +
db_notmodified + db_duplicate; ``unfetched`` = db_unfetched never tried (retries 0);
``gone`` = db_gone; ``redirects`` = db_redir_temp + db_redir_perm; ``errors`` =
db_unfetched with retries > 0 (fetch_retry pending) + db_parse_failed; ``other`` the rest
(db_orphan); ``total`` all of them.  Missing tables give ``None`` / empty lists, never errors.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from gossamer.core import status_name
from gossamer.crawl.readdb import connect, parquet_relation
from gossamer.index import INDEX_FILE, IndexDescription, live_index
from gossamer.store import DESCRIPTION_FILE, CrawlLayout, TableError, TableVersion, list_segments, live_version_dir
from gossamer.web.segment_stats import SegmentRow, new_urls_per_segment, segment_key, segment_row, tree_size
from gossamer.web.top_pages import TopPages, score_table, top_pages

HOST_SORTS = ("total", "fetched", "unfetched", "gone", "redirects", "errors", "host")
"""Valid ``host_sort`` values: a count (largest first, ties by host) or ``host`` (A–Z)."""
TOP_HOSTS = 50
MEMORY_MB = 512
T = TypeVar("T")


@dataclass(frozen=True)
class HostRow:
    """Crawldb counts of one host (columns explained in the module docstring)."""

    host: str
    fetched: int
    unfetched: int
    gone: int
    redirects: int
    errors: int
    other: int
    total: int


@dataclass(frozen=True)
class CrawlDbSummary:
    """Status counts (name, count) in status-code order, the number of hosts, and the top hosts per sort."""

    total: int
    statuses: list[tuple[str, int]]
    host_count: int
    top_hosts: dict[str, list[HostRow]]


@dataclass(frozen=True)
class IndexSummary:
    """The live index version: documents, shards, bytes of its files, creation time (epoch ms)."""

    docs: int
    shards: int
    bytes: int
    created: int
    version: str


@dataclass(frozen=True)
class CrawlStats:
    """Everything the dashboard shows; ``None`` / ``[]`` for what the crawl does not have yet."""

    crawl_dir: str
    crawldb: CrawlDbSummary | None
    segments: list[SegmentRow] = field(default_factory=list)
    index: IndexSummary | None = None
    top_pages: TopPages | None = None

    def hosts(self, sort: str = "total") -> list[HostRow]:
        """The top :data:`TOP_HOSTS` hosts by ``sort`` (unknown sorts fall back to ``total``)."""
        if self.crawldb is None:
            return []
        return self.crawldb.top_hosts.get(sort) or self.crawldb.top_hosts.get("total", [])

    def to_json(self, host_sort: str = "total") -> dict[str, Any]:
        """A JSON-ready dict of everything (hosts sorted by ``host_sort``)."""
        db = self.crawldb
        return {
            "crawl_dir": self.crawl_dir,
            "crawldb": None if db is None else {
                "total": db.total, "status": dict(db.statuses), "host_count": db.host_count,
                "host_sort": host_sort if host_sort in HOST_SORTS else "total",
                "hosts": [asdict(h) for h in self.hosts(host_sort)]},
            "segments": [s.to_json() for s in self.segments],
            "index": None if self.index is None else asdict(self.index),
            "top_pages": None if self.top_pages is None else asdict(self.top_pages),
        }


_lock = threading.RLock()
_memo: dict[tuple[str, ...], tuple[object, object]] = {}
_MEMO_LIMIT = 10_000


def _cached(slot: tuple[str, ...], key: object, compute: Callable[[], T]) -> T:
    """``compute()``, remembered under ``slot`` while ``key`` stays the same (one computation at a time)."""
    with _lock:
        hit = _memo.get(slot)
        if hit is not None and hit[0] == key:
            return hit[1]  # type: ignore[return-value]
        value = compute()
        if len(_memo) >= _MEMO_LIMIT:
            _memo.clear()
        _memo[slot] = (key, value)
        return value


def clear_cache() -> None:
    """Forget every cached statistic."""
    with _lock:
        _memo.clear()


def _mtime(path: Path) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def crawldb_summary(crawldb_dir: Path, memory_mb: int = MEMORY_MB) -> CrawlDbSummary | None:
    """Statuses and hosts of the live crawldb version (``None`` without a complete one); uncached."""
    directory = live_version_dir(crawldb_dir)
    if directory is None:
        return None
    try:
        version = TableVersion(directory)
    except TableError:
        return None
    if not version.parts:
        version.close()
        return CrawlDbSummary(0, [], 0, {s: [] for s in HOST_SORTS})
    con = connect(memory_mb)
    try:
        src = parquet_relation(version)
        statuses = [(status_name(int(s)), int(n)) for s, n in
                    con.execute(f"SELECT status, count(*) FROM {src} GROUP BY 1 ORDER BY 1").fetchall()]
        ranks = ", ".join(f"row_number() OVER (ORDER BY {c} DESC, host) AS r_{c}" for c in HOST_SORTS[:-1])
        rows = con.execute(
            "WITH agg AS (SELECT host, "
            "count(*) FILTER (WHERE status IN (2, 6, 7)) AS fetched, "
            "count(*) FILTER (WHERE status = 1 AND retries <= 0) AS unfetched, "
            "count(*) FILTER (WHERE status = 3) AS gone, "
            "count(*) FILTER (WHERE status IN (4, 5)) AS redirects, "
            "count(*) FILTER (WHERE (status = 1 AND retries > 0) OR status = 9) AS errors, "
            f"count(*) AS total FROM {src} GROUP BY host) "
            f"SELECT host, fetched, unfetched, gone, redirects, errors, total, count(*) OVER () AS hosts, "
            f"{ranks}, row_number() OVER (ORDER BY host) AS r_host FROM agg "
            f"QUALIFY {' OR '.join(f'r_{s} <= {TOP_HOSTS}' for s in HOST_SORTS)}").fetchall()
    finally:
        con.close()
        version.close()
    top: dict[str, list[tuple[int, HostRow]]] = {s: [] for s in HOST_SORTS}
    for row in rows:
        host, fetched, unfetched, gone, redirects, errors, total = row[:7]
        other = total - fetched - unfetched - gone - redirects - errors
        entry = HostRow(host, fetched, unfetched, gone, redirects, errors, other, total)
        for sort, rank in zip(HOST_SORTS, row[8:], strict=True):
            if rank <= TOP_HOSTS:
                top[sort].append((rank, entry))
    return CrawlDbSummary(total=sum(n for _, n in statuses), statuses=statuses,
                          host_count=int(rows[0][7]) if rows else 0,
                          top_hosts={s: [e for _, e in sorted(v, key=lambda p: p[0])] for s, v in top.items()})


def index_summary(index_dir: Path) -> IndexSummary | None:
    """The live index version's size (``None`` when there is no complete index); uncached."""
    directory = live_index(index_dir)
    if directory is None:
        return None
    try:
        description = IndexDescription.read(directory)
    except TableError:
        return None
    return IndexSummary(docs=description.docs, shards=description.shards, bytes=tree_size(directory),
                        created=description.created, version=directory.name)


def dashboard_stats(crawl_dir: Path, memory_mb: int = MEMORY_MB) -> CrawlStats:
    """All dashboard statistics of ``crawl_dir``, recomputing only the tables that changed."""
    layout = CrawlLayout(Path(crawl_dir))
    root = str(layout.root)
    db_dir = live_version_dir(layout.crawldb)
    db_key = None if db_dir is None else (str(db_dir), _mtime(db_dir / DESCRIPTION_FILE))
    crawldb = _cached((root, "crawldb"), db_key, lambda: crawldb_summary(layout.crawldb, memory_mb))
    segments = list_segments(layout.segments)
    keys = [segment_key(s) for s in segments]
    new = _cached((root, "new-urls"), tuple(keys), lambda: new_urls_per_segment(segments, memory_mb))
    rows = []
    for segment, key in zip(segments, keys, strict=True):
        row = _cached((root, "segment", segment.name), key, lambda s=segment: segment_row(s, memory_mb))
        rows.append(replace(row, new_urls=new.get(segment.name)))
    index_dir = live_index(layout.index)
    index_key = None if index_dir is None else (str(index_dir), _mtime(index_dir / INDEX_FILE))
    index = _cached((root, "index"), index_key, lambda: index_summary(layout.index))
    scores = score_table(layout.root)
    scores_key = None if scores is None else (str(scores[1]), _mtime(scores[1] / DESCRIPTION_FILE))
    best = _cached((root, "top-pages"), scores_key, lambda: top_pages(layout.root, memory_mb))
    return CrawlStats(crawl_dir=root, crawldb=crawldb, segments=rows, index=index, top_pages=best)


def crawl_summary(crawl_dir: Path) -> dict[str, Any]:
    """A compact JSON-ready summary of a crawl (for ``/api/stats``), from the same cache.

    Keys: ``urls`` (crawldb rows), ``status`` (name → count), ``hosts``, ``segments``
    (count), ``fetched`` (fetch results over all segments), ``last_segment`` (name or
    ``None``) and ``index`` (``{"docs", "shards", "bytes"}`` or ``None``).
    """
    stats = dashboard_stats(Path(crawl_dir))
    db = stats.crawldb
    return {
        "urls": db.total if db else 0,
        "status": dict(db.statuses) if db else {},
        "hosts": db.host_count if db else 0,
        "segments": len(stats.segments),
        "fetched": sum(s.fetched or 0 for s in stats.segments),
        "last_segment": stats.segments[-1].name if stats.segments else None,
        "index": None if stats.index is None else
        {"docs": stats.index.docs, "shards": stats.index.shards, "bytes": stats.index.bytes},
    }
