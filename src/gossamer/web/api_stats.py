"""The numbers of ``/api/stats``: the live index and the crawldb's status counts.

A view of the dashboard's cached statistics (:mod:`gossamer.web.dashboard_stats`,
recomputed only when a table changes), in the API's shape; a missing table is
reported with ``available: false``, never as an error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gossamer.web.dashboard_stats import dashboard_stats


def crawl_stats(crawl_dir: Path) -> dict[str, Any]:
    """``{"index": {...}, "crawldb": {...}}`` of a crawl directory (see :class:`~gossamer.web.api.StatsAnswer`)."""
    stats = dashboard_stats(Path(crawl_dir))
    index: dict[str, Any] = {"available": False}
    if stats.index is not None:
        index = {"available": True, "documents": stats.index.docs, "shards": stats.index.shards,
                 "size_bytes": stats.index.bytes, "created": stats.index.created}
    crawldb: dict[str, Any] = {"available": False}
    if stats.crawldb is not None:
        crawldb = {"available": True, "total": stats.crawldb.total, "status": dict(stats.crawldb.statuses)}
    return {"index": index, "crawldb": crawldb}
