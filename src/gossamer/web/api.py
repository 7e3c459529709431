"""The JSON API: search, one document's stored fields, index and crawldb statistics.

Routes (GET/HEAD; documented in ``/openapi.json`` by the models below):

* ``/api/search?q=&start=&n=&per_site=`` — :class:`SearchAnswer`, the shape of
  :meth:`SearchResults.to_json <gossamer.search.broker.SearchResults.to_json>`;
  400 ``{"error": …}`` for a malformed query or parameter, 503 when there is no
  index or no search node answers;
* ``/api/document?url=`` — :class:`DocumentAnswer` (404 when not indexed);
* ``/api/stats`` — :class:`StatsAnswer` (see :mod:`gossamer.web.api_stats`).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from gossamer.search import QuerySyntaxError
from gossamer.web.api_stats import crawl_stats
from gossamer.web.context import context
from gossamer.web.render import (
    COMMON_HEADERS,
    BadRequest,
    CountQuery,
    PerSiteQuery,
    StartQuery,
    check_url,
    find_document,
    run_search,
    search_params,
)

router = APIRouter(prefix="/api", tags=["api"])


class ErrorAnswer(BaseModel):
    """What went wrong (400, 404, 503)."""

    error: str


class HitAnswer(BaseModel):
    """One hit; ``highlights`` are [start, end) character ranges into ``snippet`` (plain text, not markup)."""

    url: str
    title: str
    site: str
    score: float
    more_from_site: bool
    snippet: str
    highlights: list[tuple[int, int]]
    fields: dict[str, Any] = Field(description="stored facts: tstamp, type, lang, warc, digest, …")


class SearchAnswer(BaseModel):
    """One page of results; ``partial`` with ``failures`` when some search node did not answer."""

    query: str
    total: int
    start: int
    seconds: float
    partial: bool
    failures: list[str]
    hits: list[HitAnswer]


class DocumentAnswer(BaseModel):
    """An indexed document's stored fields."""

    url: str
    title: str
    site: str
    fields: dict[str, Any]


class IndexStats(BaseModel):
    """The live index (``available`` false when there is none)."""

    available: bool
    documents: int = 0
    shards: int = 0
    size_bytes: int = 0
    created: int = 0


class CrawlDbStats(BaseModel):
    """The crawldb: URLs in total and per status name."""

    available: bool
    total: int = 0
    status: dict[str, int] = Field(default_factory=dict)


class StatsAnswer(BaseModel):
    """Index and crawldb statistics."""

    index: IndexStats
    crawldb: CrawlDbStats


ERRORS: dict[int | str, dict[str, Any]] = {400: {"model": ErrorAnswer}, 503: {"model": ErrorAnswer}}


def error(status: int, message: str) -> JSONResponse:
    """``{"error": message}`` with ``status``."""
    return JSONResponse({"error": message}, status_code=status, headers=COMMON_HEADERS)


@router.head("/search", include_in_schema=False)
@router.get("/search", response_model=SearchAnswer, responses=ERRORS)
def api_search(
    request: Request,
    q: str | None = Query(None, description="the query (see docs/search.md), at most 1,024 characters"),
    start: StartQuery = None,
    n: CountQuery = None,
    per_site: PerSiteQuery = None,
) -> Any:
    """Search the index."""
    try:
        params = search_params(q, start, n, per_site)
        results = run_search(context(request).searcher(), params)
    except (BadRequest, QuerySyntaxError) as exc:
        return error(400, str(exc))
    except Exception as exc:  # noqa: BLE001 - no index / nodes down
        return error(503, f"search is unavailable: {exc}")
    return JSONResponse(results.to_json(), headers=COMMON_HEADERS)


@router.head("/document", include_in_schema=False)
@router.get("/document", response_model=DocumentAnswer, responses={**ERRORS, 404: {"model": ErrorAnswer}})
def api_document(request: Request, url: str | None = Query(None, description="the exact page URL")) -> Any:
    """The stored fields of an indexed page."""
    try:
        target = check_url(url)
    except BadRequest as exc:
        return error(400, str(exc))
    try:
        details = find_document(context(request).searcher(), target)
    except Exception as exc:  # noqa: BLE001 - no index / nodes down
        return error(503, f"search is unavailable: {exc}")
    if details is None:
        return error(404, "this URL is not in the index")
    return JSONResponse({"url": details.url, "title": details.title, "site": details.site, "fields": details.fields},
                        headers=COMMON_HEADERS)


@router.head("/stats", include_in_schema=False)
@router.get("/stats", response_model=StatsAnswer)
def api_stats(request: Request) -> Any:
    """Index documents, shards and size on disk; crawldb URLs per status."""
    return JSONResponse(crawl_stats(context(request).crawl_dir), headers=COMMON_HEADERS)
