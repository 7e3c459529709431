"""One page of results as an OpenSearch 1.1 response: RSS 2.0 or Atom, with links to the other pages.

Contract of :class:`Feed` (built with :mod:`xml.etree.ElementTree`, which escapes
every crawled string; item links only for ``http``/``https`` URLs):

* response elements ``opensearch:totalResults``, ``opensearch:startIndex`` (the
  0-based rank of the first item, as the description's ``indexOffset="0"``
  says), ``opensearch:itemsPerPage`` (the page size used, after clamping) and
  ``opensearch:Query role="request"`` with ``searchTerms``, ``startIndex``, ``count``;
* links (Atom ``link``, in RSS ``atom:link``) ``self``, ``first``, ``previous``,
  ``next``, ``last`` (:func:`gossamer.web.paging.page_links`; ``previous`` and
  ``next`` only when there is such a page) — same format, page size and
  ``per_site`` — and ``search`` to the description document.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from urllib.parse import urlencode

from gossamer.search import SearchResults
from gossamer.web.paging import page_links
from gossamer.web.render import is_web_url

OS_NS = "http://a9.com/-/spec/opensearch/1.1/"
ATOM_NS = "http://www.w3.org/2005/Atom"
DESCRIPTION_TYPE = "application/opensearchdescription+xml"
FEED_TYPES = {"rss": "application/rss+xml", "atom": "application/atom+xml"}


def sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    """A child ``tag`` of ``parent`` with ``attrs`` and ``text``."""
    element = ET.SubElement(parent, tag, attrs)
    if text is not None:
        element.text = text
    return element


@dataclass(frozen=True)
class Feed:
    """``results`` (asked with page size ``n`` and ``per_site``) as a feed of this server at ``base``."""

    results: SearchResults
    n: int
    per_site: int | None
    base: str

    def href(self, format_: str, start: int) -> str:
        """The feed URL of the page from rank ``start``, in ``format_``."""
        params: dict[str, str | int] = {"q": self.results.query, "format": format_, "start": start, "n": self.n}
        if self.per_site is not None:
            params["per_site"] = self.per_site
        return f"{self.base}/opensearch?" + urlencode(params)

    def links(self, format_: str) -> list[tuple[str, str, str]]:
        """``(rel, href, type)`` of the page links and the description (see the module docstring)."""
        pages = page_links(self.results.start, self.n, self.results.total, len(self.results.hits))
        media = FEED_TYPES[format_]
        out = [("self", self.href(format_, self.results.start), media), ("first", self.href(format_, 0), media)]
        if pages.previous is not None:
            out.append(("previous", self.href(format_, pages.previous), media))
        if pages.next is not None:
            out.append(("next", self.href(format_, pages.next), media))
        out.append(("last", self.href(format_, pages.last), media))
        out.append(("search", f"{self.base}/opensearch.xml", DESCRIPTION_TYPE))
        return out

    def _response_elements(self, parent: ET.Element) -> None:
        results = self.results
        sub(parent, "opensearch:totalResults", str(results.total))
        sub(parent, "opensearch:startIndex", str(results.start))
        sub(parent, "opensearch:itemsPerPage", str(self.n))
        sub(parent, "opensearch:Query", role="request", searchTerms=results.query, startIndex=str(results.start),
            count=str(self.n))

    def rss(self) -> ET.Element:
        """RSS 2.0 with OpenSearch response elements and ``atom:link`` page links."""
        results = self.results
        root = ET.Element("rss", {"version": "2.0", "xmlns:opensearch": OS_NS, "xmlns:atom": ATOM_NS})
        channel = sub(root, "channel")
        sub(channel, "title", f"Gossamer search: {results.query}")
        sub(channel, "link", f"{self.base}/search?" + urlencode({"q": results.query, "start": results.start}))
        sub(channel, "description", f"Search results for {results.query}")
        self._response_elements(channel)
        for rel, href, media in self.links("rss"):
            sub(channel, "atom:link", rel=rel, href=href, type=media)
        for hit in results.hits:
            item = sub(channel, "item")
            sub(item, "title", hit.details.title or hit.url)
            if is_web_url(hit.url):
                sub(item, "link", hit.url)
            sub(item, "guid", hit.url, isPermaLink="false")
            sub(item, "description", hit.details.snippet.text)
        return root

    def atom(self) -> ET.Element:
        """An Atom feed with OpenSearch response elements and page links."""
        results = self.results
        root = ET.Element("feed", {"xmlns": ATOM_NS, "xmlns:opensearch": OS_NS})
        sub(root, "title", f"Gossamer search: {results.query}")
        sub(root, "id", self.href("atom", results.start))
        sub(root, "updated", dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
        sub(sub(root, "author"), "name", "Gossamer")
        for rel, href, media in self.links("atom"):
            sub(root, "link", rel=rel, href=href, type=media)
        self._response_elements(root)
        for hit in results.hits:
            entry = sub(root, "entry")
            sub(entry, "title", hit.details.title or hit.url)
            if is_web_url(hit.url):
                sub(entry, "link", href=hit.url)
            sub(entry, "id", hit.url)
            sub(entry, "updated", str(hit.details.fields.get("tstamp") or "1970-01-01T00:00:00+00:00"))
            sub(entry, "summary", hit.details.snippet.text)
        return root
