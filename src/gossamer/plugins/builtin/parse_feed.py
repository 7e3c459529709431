"""Plugin ``parse-feed``: RSS 0.9x / 1.0 / 2.0 and Atom (0.3, 1.0) feeds, after Nutch's ``feed`` plugin.

The feed is read with the safe XML reader (:mod:`..support.safexml`: no entities, depth and
element limits).  A feed that is not well-formed because of HTML entities (``&nbsp;``) or
bare ``&`` is read once more with those repaired; anything else broken is a ``ValueError``.

* Title: the feed's (channel's) title.  Text: the feed's title and description, then per
  item its title and description (HTML in descriptions reduced to its text).
* Outlinks: each item's link (RSS ``link``, else a permalink ``guid``; Atom ``link``
  with ``rel="alternate"`` or no ``rel``), in feed order, anchor the item's title; the
  outlink carries the item's date as metadata ``feed.published`` (RSS ``pubDate`` /
  ``dc:date``, Atom ``published``, else ``updated``) and ``feed.updated`` (Atom
  ``updated``), so updatedb puts it on the item's crawldb entry.  Dates are ISO 8601 in
  UTC (``2024-05-01T10:00:00Z``); a date that cannot be read is kept as written.
* Parse metadata: ``feed.format`` (``rss``, ``rss1.0``, ``atom``), ``feed.updated`` (the
  feed's own date, if any) and ``feed.items``: a JSON list of ``{"url", "title",
  "published"}`` per item, the item dates where a page's metadata can hold them.

Nutch's feed plugin instead makes one parse per item, keyed by the item's URL; here the
items stay links of the feed's page and are fetched as pages of their own.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from gossamer.core import Content, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.docparse import absolute_link, document_result, tidy_text
from gossamer.plugins.support.safexml import XmlLimits, limits_from, local_name, xml_tree

CONTENT_TYPES = ("application/rss+xml", "application/atom+xml", "application/rdf+xml", "application/x-rss+xml",
                 "application/x-atom+xml", "application/rss", "text/rss+xml")
FEED_ROOTS = frozenset({"rss", "RDF", "feed"})
"""Local names of the root elements of RSS 0.9x/2.0, RSS 0.90/1.0 (RDF) and Atom."""

_ENTITY = re.compile(rb"&(?!#\d+;|#x[0-9a-fA-F]+;|(?:amp|lt|gt|quot|apos);)([A-Za-z][A-Za-z0-9]{1,31};)?")
_TAGS = re.compile(r"<[^>]*>")


def _repair(data: bytes) -> bytes:
    """HTML named entities → numeric references; a bare ``&`` → ``&amp;``."""
    def fix(match: re.Match[bytes]) -> bytes:
        name = match.group(1)
        if name:
            char = html.unescape("&" + name.decode())
            if len(char) == 1:
                return f"&#{ord(char)};".encode()
        return b"&amp;" + (name or b"")
    return _ENTITY.sub(fix, data)


def _child(element: ET.Element, *names: str) -> ET.Element | None:
    for child in element:
        if local_name(child.tag) in names:
            return child
    return None


def _text(element: ET.Element, *names: str) -> str:
    found = _child(element, *names)
    if found is None:
        return ""
    value = "".join(found.itertext())
    return tidy_text(html.unescape(_TAGS.sub(" ", value)) if "<" in value else value)


def iso_date(value: str) -> str:
    """An RFC 822 or ISO 8601 date as ISO 8601 UTC (``…Z``); the input unchanged when unreadable."""
    value = value.strip()
    if not value:
        return ""
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            return value
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _atom_link(entry: ET.Element) -> str:
    for child in entry:
        if local_name(child.tag) == "link" and child.get("rel", "alternate") == "alternate":
            return child.get("href", "") or (child.text or "").strip()
    return ""


def feed_result(root: ET.Element, base: str) -> ParseResult:
    """The parse of a feed whose root element is ``root`` (its local name is one of :data:`FEED_ROOTS`)."""
    kind = local_name(root.tag)
    atom = kind == "feed"
    channel = root if atom else _child(root, "channel")
    if channel is None:
        channel = root
    holder = root if kind == "RDF" else channel
    entries = [e for e in holder if local_name(e.tag) in ("entry" if atom else "item",)]
    title = _text(channel, "title")
    texts = [title, _text(channel, "subtitle", "description", "tagline")]
    links: list[tuple[str, str]] = []
    meta_of: dict[str, tuple[tuple[str, str], ...]] = {}
    items = []
    for entry in entries:
        item_title = _text(entry, "title")
        texts += [item_title, _text(entry, "summary", "description", "content", "encoded")]
        if atom:
            url = _atom_link(entry)
            updated = iso_date(_text(entry, "updated", "modified"))
            published = iso_date(_text(entry, "published", "issued")) or updated
        else:
            url = _text(entry, "link")
            guid = _child(entry, "guid")
            if not url and guid is not None and guid.get("isPermaLink", "true") == "true":
                url = (guid.text or "").strip()
            updated, published = "", iso_date(_text(entry, "pubDate", "date"))
        if not url:
            continue
        links.append((url, item_title))
        meta_of[url] = tuple((k, v) for k, v in (("feed.published", published), ("feed.updated", updated)) if v)
        items.append({"url": absolute_link(base, url) or url, "title": item_title, "published": published})
    meta = {"feed.format": "atom" if atom else "rss1.0" if kind == "RDF" else "rss",
            "feed.items": json.dumps(items, ensure_ascii=False)}
    feed_date = iso_date(_text(channel, "updated", "lastBuildDate", "pubDate", "date", "modified"))
    if feed_date:
        meta["feed.updated"] = feed_date
    return document_result(base, "\n".join(t for t in texts if t), title, links, meta, meta_of)


def read_xml(data: bytes, limits: XmlLimits, part: str) -> ET.Element:
    """The document's tree; a document broken by HTML entities or bare ``&`` is repaired once."""
    try:
        return xml_tree(data, limits, part)
    except ValueError as exc:
        if "malformed XML" not in str(exc) or b"&" not in data:
            raise
        return xml_tree(_repair(data), limits, part)


class FeedParser(Parser):
    """RSS and Atom parser (see the module docstring)."""

    content_types = CONTENT_TYPES

    def __init__(self, settings: Settings) -> None:
        self.limits = limits_from(settings)

    def parse(self, content: Content) -> ParseResult:
        """Title, text and item links of one feed; ``ValueError`` when it is not a readable feed."""
        root = read_xml(content.content, self.limits, "feed")
        if local_name(root.tag) not in FEED_ROOTS:
            raise ValueError(f"not an RSS or Atom feed (root element {local_name(root.tag)!r})")
        return feed_result(root, content.base_url or content.url)


PLUGIN = PluginInfo(
    id="parse-feed",
    point="Parser",
    factory=FeedParser,
    description="RSS 0.9x/1.0/2.0 and Atom feeds: each item's link an outlink (title anchor, date metadata)",
    aliases=("org.apache.nutch.parse.feed.FeedParser",),
)
