"""Shared helpers of the search pages, the JSON API and OpenSearch: parameters, pages, headers, look-ups.

Contracts:

* :func:`search_params` validates ``q``/``start``/``n``/``per_site`` as given in
  the query string (strings, never trusted): a missing or too long ``q`` or a
  non-numeric number raises :class:`BadRequest`; ``n`` is clamped to
  1 … ``MAX_PAGE_SIZE``, ``per_site`` to 0 … ``MAX_PAGE_SIZE`` and ``start`` to 0 or more.
* :func:`run_search` searches one page; a ``start`` past ``MAX_START`` gives an
  empty page at that ``start`` (with the total), never a page from another rank —
  so a client that pages by adding the page size never sees a hit twice.
* :data:`StartQuery`, :data:`CountQuery` and :data:`PerSiteQuery` declare those
  parameters for routes in the OpenAPI schema: integers with the minimum and
  maximum :func:`search_params` clamps to (the route still receives the raw
  text, so a non-numeric value is a 400 with its own message, never a 422).
* :func:`page` renders a template with the security headers of
  :data:`PAGE_HEADERS` (no script, nothing from another origin); the cached
  page passes its own, stricter policy.
* :func:`find_document` returns the indexed details of exactly ``url`` (or
  ``None``), so ``/cached``, ``/explain`` and ``/api/document`` only ever act on
  URLs that are in the index.
* The Jinja test ``web_url`` is true only for ``http``/``https`` URLs: templates
  link a crawled URL only when it passes (anything else is shown as text).
* :func:`readable_time` turns a stored timestamp (ISO 8601 text, a datetime or
  epoch milliseconds) into a date and time for people, in UTC.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Query, Request
from fastapi.responses import HTMLResponse
from pydantic import WithJsonSchema

from gossamer.search import HitDetails, SearchResults
from gossamer.web.context import MAX_PAGE_SIZE, MAX_QUERY_LENGTH, MAX_START, templates

DEFAULT_PAGE_SIZE = 10
PAGE_CSP = ("default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
            "base-uri 'none'; frame-ancestors 'none'")
"""Policy of every search page: our stylesheet, our images, forms to ourselves; no script at all."""
CACHED_CSP = ("sandbox; default-src 'none'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
              "form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
"""Policy of the cached page.  ``sandbox`` makes the page (and the ``srcdoc`` frame, which inherits
the policy) an opaque origin without scripts, forms or popups; ``'self'`` still matches this server's
URL, so ``/static/style.css`` loads; the stored page's inline styles are allowed, its other resources
are not fetched at all."""
COMMON_HEADERS = {"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
                  "X-Frame-Options": "DENY"}
PAGE_HEADERS = {**COMMON_HEADERS, "Content-Security-Policy": PAGE_CSP}


def _integer(low: int, high: int) -> WithJsonSchema:
    return WithJsonSchema({"type": "integer", "minimum": low, "maximum": high})


StartQuery = Annotated[str | None, _integer(0, MAX_START), Query(
    description=f"first rank, 0-based (0 … {MAX_START:,}, default 0; past {MAX_START:,}: no hits)")]
"""The ``start`` parameter: documented as an integer, parsed by :func:`search_params`."""
CountQuery = Annotated[str | None, _integer(1, MAX_PAGE_SIZE), Query(
    description=f"hits per page (1 … {MAX_PAGE_SIZE}, default {DEFAULT_PAGE_SIZE}; other values are clamped)")]
"""The ``n`` parameter: documented as an integer, parsed by :func:`search_params`."""
PerSiteQuery = Annotated[str | None, _integer(0, MAX_PAGE_SIZE), Query(
    description=f"most hits per site (0 … {MAX_PAGE_SIZE}; 0 = no grouping; "
                "default searcher.max.hits.per.site)")]
"""The ``per_site`` parameter: documented as an integer, parsed by :func:`search_params`."""


class BadRequest(ValueError):
    """A request parameter that cannot be used (HTTP 400); the message is shown to the user."""


@dataclass(frozen=True)
class SearchParams:
    """Validated search parameters."""

    q: str
    start: int
    n: int
    per_site: int | None


def parse_int(name: str, value: str | None, default: int | None, low: int, high: int) -> int | None:
    """``value`` as an integer clamped to ``low`` … ``high`` (``default`` when absent or blank)."""
    if value is None or not value.strip():
        return default
    text = value.strip()
    if not (text.isascii() and text.lstrip("+-").isdigit()) or len(text) > 12:
        raise BadRequest(f"{name} must be a whole number, not {value[:40]!r}")
    return max(low, min(high, int(text)))


def search_params(q: str | None, start: str | None, n: str | None, per_site: str | None,
                  default_n: int = DEFAULT_PAGE_SIZE) -> SearchParams:
    """Validated parameters of one search (see the module docstring); raises :class:`BadRequest`."""
    text = (q or "").strip()
    if not text:
        raise BadRequest("the query is empty")
    if len(text) > MAX_QUERY_LENGTH:
        raise BadRequest(f"the query is longer than {MAX_QUERY_LENGTH} characters")
    first = parse_int("start", start, 0, 0, 10**12)
    size = parse_int("n", n, default_n, 1, MAX_PAGE_SIZE)
    assert first is not None and size is not None
    return SearchParams(text, first, size, parse_int("per_site", per_site, None, 0, MAX_PAGE_SIZE))


def run_search(searcher: Any, params: SearchParams) -> SearchResults:
    """One page of results for ``params`` (see the module docstring); raises what the searcher raises."""
    if params.start > MAX_START:
        counted = searcher.search(params.q, 1, 0, params.per_site)
        return replace(counted, hits=[], start=params.start)
    return searcher.search(params.q, params.n, params.start, params.per_site)


def check_url(url: str | None) -> str:
    """A page URL parameter: present and not absurdly long (it is only ever compared, never opened)."""
    if not url or not url.strip():
        raise BadRequest("no url given")
    if len(url) > 4096:
        raise BadRequest("the url is too long")
    return url.strip()


def is_web_url(value: Any) -> bool:
    """Whether ``value`` is an ``http``/``https`` URL with a host (safe to use as a link)."""
    if not isinstance(value, str) or any(c in value for c in "\x00\r\n\t "):
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme.lower() in ("http", "https") and bool(parts.netloc)


templates.env.tests["web_url"] = is_web_url


def readable_time(value: Any) -> tuple[str, str] | None:
    """``(text, iso)`` for a stored timestamp: "14 March 2026, 09:05:07 UTC" and its ISO 8601 form (UTC).

    ``value`` is ISO 8601 text, a :class:`datetime.datetime` or epoch milliseconds; a time
    without zone counts as UTC.  ``None`` when ``value`` is missing or not a time.
    """
    when: dt.datetime
    if isinstance(value, dt.datetime):
        when = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        when = dt.datetime.fromtimestamp(value / 1000, dt.UTC)
    elif isinstance(value, str) and value.strip():
        try:
            when = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    else:
        return None
    when = (when.replace(tzinfo=dt.UTC) if when.tzinfo is None else when).astimezone(dt.UTC)
    return f"{when.day} {when:%B %Y}, {when:%H:%M:%S} UTC", when.isoformat(timespec="seconds")


def page(request: Request, name: str, data: dict[str, Any], status: int = 200,
         headers: dict[str, str] | None = None) -> HTMLResponse:
    """The template ``name`` rendered with ``data``, with the page security headers."""
    response = templates.TemplateResponse(request, name, data, status_code=status)
    response.headers.update(headers or PAGE_HEADERS)
    return response


def error_page(request: Request, status: int, message: str, q: str = "") -> HTMLResponse:
    """The error page: ``.error-message`` holds ``message`` (escaped); the search box and a link home around it."""
    titles = {400: "Bad request", 404: "Not found", 405: "Method not allowed", 503: "Search unavailable"}
    return page(request, "error.html", {"status": status, "title": titles.get(status, "Error"),
                                        "message": message, "q": q}, status)


def find_document(searcher: Any, url: str) -> HitDetails | None:
    """The indexed details of exactly ``url`` (``None`` when it is not in the index).

    Uses the query ``url:<url>`` (an exact URL match; for a URL with quotes or
    spaces, its words as a ``url:"…"`` phrase) through the broker, so it works
    over search nodes too, and keeps only a hit whose URL is exactly ``url``.
    """
    from gossamer.search import QuerySyntaxError

    if any(c.isspace() or c == '"' for c in url):  # not one raw term: the URL's words as a phrase, then compare
        text = 'url:"' + " ".join(url.replace('"', " ").split()) + '"'
    else:
        text = f"url:{url}"
    try:
        results = searcher.search(text, n=MAX_PAGE_SIZE, start=0, per_site=0)
    except QuerySyntaxError:
        return None
    for hit in results.hits:
        if hit.url == url:
            return hit.details
    return None
