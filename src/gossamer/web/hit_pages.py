"""What a hit offers on demand: its cached copy and the anchors pointing at it.

* ``/cached?url=[&view=html|text]`` — the stored response of a URL **in the
  index** (found through its ``warc`` locator, never a path from the request).
  HTML is shown in ``iframe#cached-frame`` (``sandbox=""``, the page made inert
  by :func:`~gossamer.web.cached_html.inert_html` in ``srcdoc``) and, with
  ``view=text``, as source in ``pre#cached-text``; other text types are shown
  as text only, binary bodies are described, not shown.
  The banner says when the page was fetched, as a readable date and time in UTC.
  The page carries :data:`~gossamer.web.render.CACHED_CSP`.
* ``/anchors?url=`` — ``table#anchors``: the inlinks of the URL from the linkdb.
"""

from __future__ import annotations

import codecs
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from gossamer.search import CachedPage, anchors, cached_page
from gossamer.web.cached_html import inert_html
from gossamer.web.context import context
from gossamer.web.render import (
    CACHED_CSP,
    COMMON_HEADERS,
    BadRequest,
    check_url,
    error_page,
    find_document,
    page,
    readable_time,
)

router = APIRouter(include_in_schema=False)
HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("text/", "application/json", "application/xml", "application/javascript", "application/rss+xml",
              "application/atom+xml")
ANCHOR_LIMIT = 500


def decode_body(page_: CachedPage) -> str | None:
    """The body as text (declared charset, else UTF-8, errors replaced); ``None`` when it looks binary."""
    media = page_.content_type.split(";")[0].strip().lower()
    sample = page_.body[:8192]
    if b"\x00" in sample or (media and not media.startswith(TEXT_TYPES) and not media.endswith(("+xml", "+json"))):
        return None
    charset = "utf-8"
    for param in page_.content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            charset = value.strip().strip("\"'")
    try:
        codecs.lookup(charset)
    except LookupError:
        charset = "utf-8"
    return page_.body.decode(charset, errors="replace")


@router.api_route("/cached", methods=["GET", "HEAD"], response_class=HTMLResponse)
def cached(request: Request, url: str | None = None, view: str | None = None) -> Response:
    """The stored copy of an indexed URL (see the module docstring)."""
    try:
        target = check_url(url)
        if view not in (None, "", "html", "text"):
            raise BadRequest("view must be html or text")
    except BadRequest as exc:
        return error_page(request, 400, str(exc))
    web = context(request)
    try:
        details = find_document(web.searcher(), target)
    except Exception as exc:  # noqa: BLE001 - no index / nodes down: the page says so
        return error_page(request, 503, f"search is unavailable: {exc}")
    locator = (details.fields.get("warc") if details is not None else None) or ""
    stored = cached_page(web.crawl_dir, locator) if isinstance(locator, str) and locator else None
    if details is None or stored is None:
        return error_page(request, 404, "there is no stored copy of this URL")
    media = stored.content_type.split(";")[0].strip().lower()
    text = decode_body(stored)
    is_html = media in HTML_TYPES and text is not None
    data: dict[str, Any] = {
        "url": target, "title": details.title, "page": stored, "media": media or "unknown type",
        "fetched": readable_time(details.fields.get("tstamp")), "size": len(stored.body),
        "text": text, "is_html": is_html, "view": "text" if view == "text" or not is_html else "html",
        "frame_html": inert_html(text, stored.url or target) if is_html and text is not None and view != "text" else "",
    }
    return page(request, "cached.html", data, headers={**COMMON_HEADERS, "Content-Security-Policy": CACHED_CSP})


@router.api_route("/anchors", methods=["GET", "HEAD"], response_class=HTMLResponse)
def anchors_page(request: Request, url: str | None = None) -> Response:
    """The inlinks of ``url``: source URL and anchor text."""
    try:
        target = check_url(url)
    except BadRequest as exc:
        return error_page(request, 400, str(exc))
    inlinks = anchors(context(request).crawl_dir, target, limit=ANCHOR_LIMIT)
    return page(request, "anchors.html", {"url": target, "inlinks": inlinks, "limit": ANCHOR_LIMIT})
