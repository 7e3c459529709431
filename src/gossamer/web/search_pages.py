"""The search pages: home, results and a hit's score explanation (server-rendered, no script).

Routes (GET/HEAD only; every parameter is a query-string parameter, validated
by :mod:`gossamer.web.render`; errors are HTML pages with ``.error-message``):

* ``/`` — the search box and a short guide to the query language;
* ``/search?q=&start=&n=&per_site=`` — one page of results; 400 for a malformed
  query or bad parameter, 503 when there is no index or no search node answers;
* ``/explain?url=&q=`` — how ``url``'s score for ``q`` was made (404 when the URL
  is not in the index);
* ``/cached`` and ``/anchors`` come from :mod:`gossamer.web.hit_pages`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from gossamer.search import QuerySyntaxError, SearchResults, SearchUnavailable, explained_factors
from gossamer.store import TableError
from gossamer.web import hit_pages
from gossamer.web.context import MAX_START, context
from gossamer.web.render import BadRequest, check_url, error_page, page, run_search, search_params

router = APIRouter(include_in_schema=False)
router.include_router(hit_pages.router)

UNAVAILABLE = (SearchUnavailable, TableError, OSError)


def search_href(q: str, start: int = 0, n: int | None = None, per_site: int | None = None) -> str:
    """``/search?…`` for these parameters (``n``/``per_site`` only when not the defaults)."""
    params: dict[str, Any] = {"q": q}
    if start:
        params["start"] = start
    if n is not None and n != 10:
        params["n"] = n
    if per_site is not None:
        params["per_site"] = per_site
    return "/search?" + urlencode(params)


def result_view(results: SearchResults, n: int, per_site: int | None) -> dict[str, Any]:
    """What ``results.html`` needs beyond the results: the count line and the paging and hit links."""
    q = results.query
    first, last = results.start + 1, results.start + len(results.hits)
    hits = [{
        "hit": hit,
        "parts": hit.details.snippet.parts(),
        "cached": "/cached?" + urlencode({"url": hit.url}),
        "anchors": "/anchors?" + urlencode({"url": hit.url}),
        "explain": "/explain?" + urlencode({"url": hit.url, "q": q}),
        "more": search_href(f"site:{hit.details.site} {q}", n=n) if hit.more_from_site and hit.details.site else "",
    } for hit in results.hits]
    prev_href = search_href(q, max(0, results.start - n), n, per_site) if results.start > 0 else ""
    has_next = results.start + n < results.total and results.start + n <= MAX_START and len(results.hits) >= n
    next_href = search_href(q, results.start + n, n, per_site) if has_next else ""
    # Grouping by site hid matching pages and no next page follows: offer them all (Nutch's "show all hits").
    grouped = per_site != 0 and any(h.more_from_site for h in results.hits)
    show_all = search_href(q, 0, n, 0) if grouped and not has_next and results.total > last else ""
    return {"results": results, "hits": hits, "first": first, "last": last,
            "prev_href": prev_href, "next_href": next_href, "show_all_href": show_all}


@router.api_route("/", methods=["GET", "HEAD"], response_class=HTMLResponse)
def home(request: Request) -> Response:
    """The search box and the query-language guide."""
    return page(request, "search.html", {"q": ""})


@router.api_route("/search", methods=["GET", "HEAD"], response_class=HTMLResponse)
def search(request: Request, q: str | None = None, start: str | None = None, n: str | None = None,
           per_site: str | None = None) -> Response:
    """One page of results (see the module docstring)."""
    raw_q = (q or "")[:200]
    try:
        params = search_params(q, start, n, per_site)
    except BadRequest as exc:
        return error_page(request, 400, str(exc), raw_q)
    try:
        results = run_search(context(request).searcher(), params)
    except QuerySyntaxError as exc:
        return error_page(request, 400, f"bad query: {exc}", params.q)
    except UNAVAILABLE as exc:
        return error_page(request, 503, f"search is unavailable: {exc}", params.q)
    view = result_view(results, params.n, params.per_site)
    return page(request, "results.html", {"q": params.q, **view})


@router.api_route("/explain", methods=["GET", "HEAD"], response_class=HTMLResponse)
def explain_page(request: Request, url: str | None = None, q: str | None = None) -> Response:
    """The score of ``url`` for ``q``, taken apart."""
    try:
        target = check_url(url)
        params = search_params(q, None, None, None)
    except BadRequest as exc:
        return error_page(request, 400, str(exc))
    try:
        explanation = context(request).searcher().explain(target, params.q)
    except QuerySyntaxError as exc:
        return error_page(request, 400, f"bad query: {exc}", params.q)
    except UNAVAILABLE as exc:
        return error_page(request, 503, f"search is unavailable: {exc}", params.q)
    if explanation is None:
        return error_page(request, 404, "this URL is not in the index", params.q)
    return page(request, "explain.html", {"q": params.q, "url": target, "e": explanation,
                                          "factors": explained_factors(explanation)})


@router.api_route("/favicon.ico", methods=["GET", "HEAD"], include_in_schema=False)
def favicon() -> Response:
    """No icon (an empty answer instead of a 404 in every browser console)."""
    return Response(status_code=204)
