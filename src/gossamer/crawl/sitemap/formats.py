"""Reading one sitemap document: XML urlset, sitemap index, RSS/Atom feed, plain text; gzip.

:func:`parse_sitemap` never raises for bad content: whatever it could read before a
problem is returned with ``error`` saying what went wrong.  Rules (sitemaps.org,
crawler-commons' SiteMapParser):

* gzip is recognised by its magic bytes (whatever the URL or type says) and inflated up
  to ``max_bytes``; more is an error (a zip bomb stops there).
* XML is read by a streaming parser that refuses DTD entities (defusedxml: no billion
  laughs, no external entities) and elements nested deeper than :data:`MAX_DEPTH`.
  Namespaces are ignored (crawler-commons' default, lenient about namespace typos).
* ``urlset/url`` gives ``loc``, ``lastmod``, ``changefreq``, ``priority``;
  ``sitemapindex/sitemap`` gives ``loc`` (a sitemap to read next); RSS ``item`` gives
  ``link`` and ``pubDate`` (or ``dc:date``); Atom ``entry`` gives its ``link href``
  (``rel`` absent or ``alternate``) and ``updated`` (or ``published``).
* A document that is not XML is a plain-text sitemap: one absolute URL per line.
* At most ``max_urls`` entries are taken; the rest are counted in ``over_limit``.
* Relative locations are resolved against the sitemap's URL; entries without a
  location, or whose location is not an absolute http(s)/ftp/file URL, are counted in
  ``invalid``.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import iterparse

from gossamer.crawl.sitemap.fields import parse_changefreq, parse_date, parse_priority

MAX_DEPTH = 32
"""Deepest element nesting accepted (a sitemap needs 3; an RSS feed 4)."""
GZIP_MAGIC = b"\x1f\x8b"
URL_SCHEMES = frozenset({"http", "https", "ftp", "file"})

ITEM_TAGS = {"urlset": "url", "sitemapindex": "sitemap", "rss": "item", "rdf": "item", "feed": "entry"}
"""Root element → the element holding one entry."""
KINDS = {"urlset": "urlset", "sitemapindex": "index", "rss": "feed", "rdf": "feed", "feed": "feed"}


@dataclass(frozen=True)
class SitemapEntry:
    """One URL of a sitemap: ``lastmod`` in epoch ms (0: not known); ``changefreq``/``priority`` None when absent."""

    url: str
    lastmod: int = 0
    changefreq: str | None = None
    priority: float | None = None


@dataclass
class ParsedSitemap:
    """What one document held: ``kind`` is ``urlset``, ``index``, ``feed``, ``text`` or ``unknown``."""

    kind: str = "unknown"
    urls: list[SitemapEntry] = field(default_factory=list)
    sitemaps: list[str] = field(default_factory=list)
    invalid: int = 0
    over_limit: int = 0
    error: str = ""


class SitemapFormatError(ValueError):
    """The document cannot be read (any further)."""


def inflate(data: bytes, max_bytes: int) -> bytes:
    """``data`` gunzipped if it starts with the gzip magic (else as is); SitemapFormatError past ``max_bytes``."""
    if not data.startswith(GZIP_MAGIC):
        return data
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, max_bytes + 1)
    except zlib.error as exc:
        raise SitemapFormatError(f"bad gzip data: {exc}") from None
    if len(out) > max_bytes:
        raise SitemapFormatError(f"gzip content larger than sitemap.size.max={max_bytes} bytes")
    return out


def parse_sitemap(data: bytes, url: str, max_urls: int = 50_000, max_bytes: int = 52_428_800,
                  now_ms: int | None = None) -> ParsedSitemap:
    """Read the sitemap document ``data`` fetched from ``url`` (see the module docstring)."""
    result = ParsedSitemap()
    try:
        data = inflate(data, max_bytes)
    except SitemapFormatError as exc:
        result.error = str(exc)
        return result
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"<"):
        _parse_xml(data, url, max_urls, now_ms, result)
    else:
        _parse_text(data, url, max_urls, result)
    return result


def _local(tag: object) -> str:
    """The local name of an element tag, lower case (``{ns}urlset`` → ``urlset``)."""
    return str(tag).rpartition("}")[2].rpartition(":")[2].lower()


def _absolute(location: str | None, base: str) -> str | None:
    """``location`` resolved against ``base`` when it is then an absolute URL of a crawlable scheme."""
    if not location:
        return None
    location = location.strip()
    if not location or any(c in location for c in "\t\r\n "):
        return None
    resolved = urljoin(base, location)
    parts = urlsplit(resolved)
    return resolved if parts.scheme.lower() in URL_SCHEMES and (parts.netloc or parts.scheme == "file") else None


def _add(result: ParsedSitemap, max_urls: int, entry: SitemapEntry | str | None) -> None:
    if entry is None:
        result.invalid += 1
    elif len(result.urls) + len(result.sitemaps) >= max_urls:
        result.over_limit += 1
    elif isinstance(entry, str):
        result.sitemaps.append(entry)
    else:
        result.urls.append(entry)


def _parse_text(data: bytes, url: str, max_urls: int, result: ParsedSitemap) -> None:
    result.kind = "text"
    for line in data.decode("utf-8", errors="replace").splitlines():
        line = line.strip().lstrip("\ufeff")
        if line:
            location = _absolute(line, url) if "://" in line else None
            _add(result, max_urls, SitemapEntry(location) if location else None)


def _children(item: Element) -> Iterator[tuple[str, Element]]:
    for child in item:
        yield _local(child.tag), child


def _entry(kind: str, item: Element, base: str, now_ms: int | None) -> SitemapEntry | str | None:
    """One entry element → a URL entry, a sitemap URL (index) or None (no usable location)."""
    texts: dict[str, str] = {}
    link: str | None = None
    for name, child in _children(item):
        text = (child.text or "").strip()
        if name == "link" and kind == "feed":
            href = child.get("href")
            if href is not None:  # Atom: <link href="…" rel="alternate"/>
                if child.get("rel", "alternate") == "alternate" and link is None:
                    link = href
                continue
            link = link or text
        texts.setdefault(name, text)
    if kind == "feed":
        location = _absolute(link, base)
        stamp = texts.get("pubdate") or texts.get("date") or texts.get("updated") or texts.get("published")
        return SitemapEntry(location, parse_date(stamp, now_ms)) if location else None
    location = _absolute(texts.get("loc"), base)
    if location is None or kind == "index":
        return location
    return SitemapEntry(location, parse_date(texts.get("lastmod"), now_ms), parse_changefreq(texts.get("changefreq")),
                        parse_priority(texts.get("priority")))


def _parse_xml(data: bytes, url: str, max_urls: int, now_ms: int | None, result: ParsedSitemap) -> None:
    depth = 0
    item_tag = ""
    try:
        for event, element in iterparse(io.BytesIO(data), events=("start", "end"), forbid_dtd=False):
            name = _local(element.tag)
            if event == "start":
                depth += 1
                if depth > MAX_DEPTH:
                    raise SitemapFormatError(f"XML nested deeper than {MAX_DEPTH} elements")
                if depth == 1:
                    if name not in ITEM_TAGS:
                        raise SitemapFormatError(f"not a sitemap or feed: root element <{name}>")
                    result.kind, item_tag = KINDS[name], ITEM_TAGS[name]
                continue
            depth -= 1
            if name == item_tag:
                _add(result, max_urls, _entry(result.kind, element, url, now_ms))
                element.clear()
    except SitemapFormatError as exc:
        result.error = str(exc)
    except DefusedXmlException as exc:
        result.error = f"unsafe XML refused: {type(exc).__name__}"
    except (ParseError, ValueError) as exc:
        result.error = f"malformed XML: {exc}"
