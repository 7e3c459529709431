"""OpenSearch 1.1: the description document and results as RSS 2.0 or Atom.

* ``/opensearch.xml`` — the description (``application/opensearchdescription+xml``)
  with URL templates for the HTML results, RSS and Atom, absolute to this server;
* ``/opensearch?q=&format=rss|atom&start=&n=&per_site=`` — one page of results
  with the OpenSearch response elements ``totalResults``, ``startIndex`` (1-based)
  and ``itemsPerPage``.  Malformed queries and parameters give 400, no index 503
  (plain text).

All XML is built with :mod:`xml.etree.ElementTree`, which escapes every crawled
string; item links are only written for ``http``/``https`` URLs.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import PlainTextResponse

from gossamer.search import QuerySyntaxError, SearchResults
from gossamer.web.context import context
from gossamer.web.render import (
    COMMON_HEADERS,
    BadRequest,
    CountQuery,
    PerSiteQuery,
    StartQuery,
    is_web_url,
    search_params,
)

router = APIRouter(tags=["opensearch"])
OS_NS = "http://a9.com/-/spec/opensearch/1.1/"
ATOM_NS = "http://www.w3.org/2005/Atom"
DESCRIPTION_TYPE = "application/opensearchdescription+xml"
FEED_TYPES = {"rss": "application/rss+xml", "atom": "application/atom+xml"}


def _xml(root: ET.Element, media_type: str) -> Response:
    body = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return Response(body, media_type=f"{media_type}; charset=utf-8", headers=COMMON_HEADERS)


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


@router.api_route("/opensearch.xml", methods=["GET", "HEAD"], include_in_schema=False)
def description(request: Request) -> Response:
    """The OpenSearch description document of this server."""
    base = str(request.base_url).rstrip("/")
    root = ET.Element("OpenSearchDescription", xmlns=OS_NS)
    _sub(root, "ShortName", "Gossamer")
    _sub(root, "Description", "Search the pages of this Gossamer crawl.")
    _sub(root, "InputEncoding", "UTF-8")
    _sub(root, "OutputEncoding", "UTF-8")
    _sub(root, "Url", type="text/html", template=f"{base}/search?q={{searchTerms}}&start={{startIndex?}}",
         indexOffset="0")
    for name, media in FEED_TYPES.items():
        _sub(root, "Url", type=media, indexOffset="0",
             template=f"{base}/opensearch?q={{searchTerms}}&format={name}&start={{startIndex?}}")
    return _xml(root, DESCRIPTION_TYPE)


def _response_elements(parent: ET.Element, results: SearchResults, n: int, q: str) -> None:
    _sub(parent, "opensearch:totalResults", str(results.total))
    _sub(parent, "opensearch:startIndex", str(results.start + 1))
    _sub(parent, "opensearch:itemsPerPage", str(n))
    _sub(parent, "opensearch:Query", role="request", searchTerms=q, startPage="1")


def rss(results: SearchResults, n: int, base: str) -> ET.Element:
    """RSS 2.0 with OpenSearch response elements."""
    root = ET.Element("rss", {"version": "2.0", "xmlns:opensearch": OS_NS})
    channel = _sub(root, "channel")
    _sub(channel, "title", f"Gossamer search: {results.query}")
    _sub(channel, "link", f"{base}/search?" + urlencode({"q": results.query, "start": results.start}))
    _sub(channel, "description", f"Search results for {results.query}")
    _response_elements(channel, results, n, results.query)
    for hit in results.hits:
        item = _sub(channel, "item")
        _sub(item, "title", hit.details.title or hit.url)
        if is_web_url(hit.url):
            _sub(item, "link", hit.url)
        _sub(item, "guid", hit.url, isPermaLink="false")
        _sub(item, "description", hit.details.snippet.text)
    return root


def atom(results: SearchResults, n: int, base: str) -> ET.Element:
    """An Atom feed with OpenSearch response elements."""
    root = ET.Element("feed", {"xmlns": ATOM_NS, "xmlns:opensearch": OS_NS})
    self_url = f"{base}/opensearch?" + urlencode({"q": results.query, "format": "atom", "start": results.start})
    _sub(root, "title", f"Gossamer search: {results.query}")
    _sub(root, "id", self_url)
    _sub(root, "updated", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    _sub(_sub(root, "author"), "name", "Gossamer")
    _sub(root, "link", rel="self", href=self_url, type=FEED_TYPES["atom"])
    _response_elements(root, results, n, results.query)
    for hit in results.hits:
        entry = _sub(root, "entry")
        _sub(entry, "title", hit.details.title or hit.url)
        if is_web_url(hit.url):
            _sub(entry, "link", href=hit.url)
        _sub(entry, "id", hit.url)
        _sub(entry, "updated", str(hit.details.fields.get("tstamp") or "1970-01-01T00:00:00+00:00"))
        _sub(entry, "summary", hit.details.snippet.text)
    return root


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
        results = context(request).searcher().search(params.q, params.n, params.start, params.per_site)
    except (BadRequest, QuerySyntaxError) as exc:
        return PlainTextResponse(str(exc), status_code=400, headers=COMMON_HEADERS)
    except Exception as exc:  # noqa: BLE001 - no index / nodes down
        return PlainTextResponse(f"search is unavailable: {exc}", status_code=503, headers=COMMON_HEADERS)
    base = str(request.base_url).rstrip("/")
    root = rss(results, params.n, base) if format == "rss" else atom(results, params.n, base)
    return _xml(root, FEED_TYPES[format])
