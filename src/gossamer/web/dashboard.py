"""The crawl dashboard: ``GET /dashboard`` (HTML) and ``GET /api/crawl/stats`` (JSON).

Contract of the page (browser tests rely on these ids): ``#status-counts`` (crawldb
status → count table with a total row, and a bar chart), ``#hosts`` (top 50 hosts,
``?host_sort=`` one of :data:`~gossamer.web.dashboard_stats.HOST_SORTS`, anything
else means ``total``), ``#rounds`` (three ``svg.chart`` charts and one row per
segment), ``#segments`` (name, generated, fetched, parsed, size) and ``#index-size``.
A part the crawl does not have yet shows a ``p.nothing`` note instead.  Both routes
only read the crawl directory, through the cache of :mod:`gossamer.web.dashboard_stats`;
every crawled string reaches the page through Jinja's autoescaping or
:mod:`gossamer.web.charts` (which escapes).  The JSON is
:meth:`~gossamer.web.dashboard_stats.CrawlStats.to_json`.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from markupsafe import Markup

from gossamer.web.charts import bar_chart, format_number, hbar_chart, line_chart
from gossamer.web.context import context
from gossamer.web.dashboard_stats import HOST_SORTS, TOP_HOSTS, CrawlStats, dashboard_stats
from gossamer.web.render import COMMON_HEADERS, page

router = APIRouter()


def format_time(millis: int | None) -> str:
    """``2026-11-23 15:47:50`` (UTC) for epoch milliseconds; ``–`` for ``None``."""
    if millis is None:
        return "–"
    return datetime.fromtimestamp(millis / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M:%S")


def format_bytes(size: int | None) -> str:
    """``12.3 MB`` style (powers of 1024 labelled KB, MB, GB, TB)."""
    if size is None:
        return "–"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def format_count(value: int | None) -> str:
    """``12,345``; ``–`` for ``None`` (a table the segment does not have)."""
    return "–" if value is None else f"{value:,}"


def format_rate(value: float | None) -> str:
    """Pages per second with one decimal; ``–`` when unknown."""
    return "–" if value is None else f"{value:,.1f}"


def round_charts(stats: CrawlStats) -> list[Markup]:
    """Pages fetched, pages per second and errors per round (x: round number; tooltips name the segment)."""
    rows = stats.segments
    labels = [str(i) for i in range(1, len(rows) + 1)]
    tips = [f"round {i} ({row.name})" for i, row in enumerate(rows, 1)]
    errors = [("gone", [r.gone for r in rows]), ("retry", [r.retry for r in rows]),
              ("redirect", [r.redirects for r in rows]), ("parse failed", [r.parse_failed for r in rows])]
    return [
        bar_chart(labels, [r.fetched or 0 for r in rows], title="Pages fetched per round", tips=tips,
                  y_label="pages"),
        line_chart(labels, [("pages/s", [r.pages_per_second for r in rows])], title="Pages per second per round",
                   tips=tips, y_label="pages/s", area=True),
        line_chart(labels, errors, title="Errors per round", tips=tips, y_label="errors"),
    ]


def dashboard_data(stats: CrawlStats, host_sort: str) -> dict[str, Any]:
    """The template context of ``dashboard.html``."""
    db = stats.crawldb
    status_chart = None
    if db is not None and db.statuses:
        status_chart = hbar_chart([n for n, _ in db.statuses], [c for _, c in db.statuses],
                                  title="URLs per crawldb status")
    return {
        "stats": stats, "db": db, "host_sort": host_sort, "host_sorts": HOST_SORTS, "top_hosts": TOP_HOSTS,
        "hosts": stats.hosts(host_sort), "status_chart": status_chart,
        "round_charts": round_charts(stats) if stats.segments else [],
        "n": format_count, "short": format_number, "when": format_time, "size": format_bytes,
        "rate": format_rate,
    }


@router.get("/dashboard", response_class=HTMLResponse)
def dashboard(request: Request, host_sort: str = Query("total")) -> HTMLResponse:
    """The crawl dashboard page."""
    sort = host_sort if host_sort in HOST_SORTS else "total"
    stats = dashboard_stats(context(request).crawl_dir)
    return page(request, "dashboard.html", dashboard_data(stats, sort))


@router.get("/api/crawl/stats")
def crawl_stats_json(request: Request, host_sort: str = Query("total")) -> JSONResponse:
    """Everything the dashboard shows, as JSON."""
    stats = dashboard_stats(context(request).crawl_dir)
    return JSONResponse(stats.to_json(host_sort), headers=COMMON_HEADERS)
