"""OpenSearch 1.1: the description document and results as RSS 2.0 or Atom.

* ``/opensearch.xml`` — the description (``application/opensearchdescription+xml``)
  with URL templates for the HTML results, RSS, Atom and the JSON API, absolute to
  this server, each with ``{searchTerms}``, ``{startIndex?}`` and ``{count?}``;
* ``/opensearch?q=&format=rss|atom&start=&n=&per_site=`` — one page of results
  with the OpenSearch response elements and links to the first, previous, next and
  last pages (:mod:`gossamer.web.opensearch_feeds`).  Malformed queries and
  parameters give 400, no index 503 (plain text).

**Index offset**: every template declares ``indexOffset="0"``: ``startIndex`` is the
0-based rank of the first hit — the ``start`` parameter of every route — and the
responses' ``opensearch:startIndex`` is that same number.  A client paging by the
spec (``startIndex`` + ``itemsPerPage``, or the ``next`` links) sees every hit once.

All XML is built with :mod:`xml.etree.ElementTree`, which escapes every crawled
string; item links are only written for ``http``/``https`` URLs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import PlainTextResponse

from gossamer.search import QuerySyntaxError
from gossamer.web.context import context
from gossamer.web.opensearch_feeds import DESCRIPTION_TYPE, FEED_TYPES, OS_NS, Feed, sub
from gossamer.web.render import (
    COMMON_HEADERS,
    BadRequest,
    CountQuery,
    PerSiteQuery,
    StartQuery,
    run_search,
    search_params,
)

router = APIRouter(tags=["opensearch"])


def _xml(root: ET.Element, media_type: str) -> Response:
    body = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, media_type=f"{media_type}; charset=utf-8", headers=COMMON_HEADERS)


INDEX_OFFSET = "0"
"""``indexOffset`` of every URL template: ``startIndex`` counts from 0, like ``start``."""
PAGING = "start={startIndex?}&n={count?}"


@router.api_route("/opensearch.xml", methods=["GET", "HEAD"], include_in_schema=False)
def description(request: Request) -> Response:
    """The OpenSearch description document of this server."""
    base = str(request.base_url).rstrip("/")
    root = ET.Element("OpenSearchDescription", xmlns=OS_NS)
    sub(root, "ShortName", "Gossamer")
    sub(root, "Description", "Search the pages of this Gossamer crawl.")
    sub(root, "InputEncoding", "UTF-8")
    sub(root, "OutputEncoding", "UTF-8")
    sub(root, "Url", type="text/html", indexOffset=INDEX_OFFSET,
         template=f"{base}/search?q={{searchTerms}}&{PAGING}")
    for name, media in FEED_TYPES.items():
        sub(root, "Url", type=media, indexOffset=INDEX_OFFSET,
             template=f"{base}/opensearch?q={{searchTerms}}&format={name}&{PAGING}")
    sub(root, "Url", type="application/json", indexOffset=INDEX_OFFSET,
         template=f"{base}/api/search?q={{searchTerms}}&{PAGING}")
    sub(root, "Url", type=DESCRIPTION_TYPE, rel="self", template=f"{base}/opensearch.xml")
    return _xml(root, DESCRIPTION_TYPE)


@router.head("/opensearch", include_in_schema=False)
@router.get("/opensearch", responses={400: {}, 503: {}})
def opensearch_results(
    request: Request,
    q: str | None = Query(None, description="the query"),
    format: str = Query("rss", description="rss or atom"),  # noqa: A002 - the OpenSearch parameter name
    start: StartQuery = None,
    n: CountQuery = None,
    per_site: PerSiteQuery = None,
) -> Response:
    """One page of results as RSS 2.0 or Atom."""
    if format not in FEED_TYPES:
        return PlainTextResponse("format must be rss or atom", status_code=400, headers=COMMON_HEADERS)
    try:
        params = search_params(q, start, n, per_site)
        results = run_search(context(request).searcher(), params)
    except (BadRequest, QuerySyntaxError) as exc:
        return PlainTextResponse(str(exc), status_code=400, headers=COMMON_HEADERS)
    except Exception as exc:  # noqa: BLE001 - no index / nodes down
        return PlainTextResponse(f"search is unavailable: {exc}", status_code=503, headers=COMMON_HEADERS)
    feed = Feed(results, params.n, params.per_site, str(request.base_url).rstrip("/"))
    return _xml(feed.rss() if format == "rss" else feed.atom(), FEED_TYPES[format])
