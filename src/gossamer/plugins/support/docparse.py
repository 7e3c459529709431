"""What the document parsers (office, OpenDocument, RTF, feeds, XML) share.

* :class:`TextSink` — an XML target collecting text by paragraphs and links with their
  anchor text; each format says which elements break lines, which insert a tab or a space,
  which hold text and which open a link.
* :func:`core_properties` — Dublin Core style properties (``docProps/core.xml`` of OOXML,
  ``meta.xml`` of OpenDocument) as parse metadata under Tika's names (``dc:title``,
  ``dc:creator``, ``meta:keyword``, ``dcterms:created`` …).
* :func:`absolute_link` — a link target made absolute against the document's URL, or
  ``None`` for targets that are not pages (``#fragment``, ``javascript:``, empty).
* :func:`document_result` — the :class:`ParseResult` every such parser returns.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import urljoin

from gossamer.core import Outlink, ParseData, ParseStatusCode, ParseText
from gossamer.plugins.api import ParseResult
from gossamer.plugins.support.safexml import local_name

_PROPERTY_NAMES = {
    "title": "dc:title", "creator": "dc:creator", "subject": "dc:subject", "description": "dc:description",
    "language": "dc:language", "keywords": "meta:keyword", "keyword": "meta:keyword",
    "created": "dcterms:created", "creation-date": "dcterms:created", "modified": "dcterms:modified",
    "date": "dcterms:modified", "lastModifiedBy": "cp:lastModifiedBy", "initial-creator": "meta:initial-creator",
    "generator": "meta:generator", "category": "cp:category",
}
_NOT_PAGES = ("javascript:", "data:", "vbscript:")
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n+")


def tidy_text(text: str) -> str:
    """Runs of spaces and tabs collapsed, blank lines removed, ends stripped."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n", "\n".join(line for line in lines if line)).strip()


def absolute_link(base: str, target: str) -> str | None:
    """``target`` resolved against ``base``; ``None`` for fragments, scripts and empty targets."""
    target = target.strip()
    if not target or target.startswith("#") or target.lower().startswith(_NOT_PAGES):
        return None
    try:
        return urljoin(base, target)
    except ValueError:
        return None


def core_properties(root: ET.Element) -> dict[str, str]:
    """Dublin Core / OOXML / ODF document properties found anywhere under ``root`` (keywords joined by ``, ``)."""
    found: dict[str, str] = {}
    for element in root.iter():
        key = _PROPERTY_NAMES.get(local_name(element.tag))
        value = "".join(element.itertext()).strip()
        if key and value:
            found[key] = f"{found[key]}, {value}" if key == "meta:keyword" and key in found else value
    return found


class TextSink:
    """Collects a document's text and links from XML events (ElementTree target protocol).

    ``text_tags``: elements whose character data is text (all elements when empty);
    ``line_tags``: elements ending a line; ``tab_tags``/``space_tags``: elements standing
    for a tab or a space (``space_count`` reads a repeat count attribute from one);
    ``link_of``: returns the link target of an opening element, or ``None``.  A link's
    anchor is the text inside its element.
    """

    def __init__(self, *, text_tags: Iterable[str] = (), line_tags: Iterable[str] = (),
                 tab_tags: Iterable[str] = (), space_tags: Iterable[str] = (),
                 link_of: Callable[[str, Mapping[str, str]], str | None] | None = None,
                 space_count: Callable[[Mapping[str, str]], int] | None = None) -> None:
        self.text_tags = frozenset(text_tags)
        self.line_tags = frozenset(line_tags)
        self.tab_tags = frozenset(tab_tags)
        self.space_tags = frozenset(space_tags)
        self.link_of = link_of
        self.space_count = space_count
        self.parts: list[str] = []
        self.links: list[tuple[str, str]] = []
        self._open_text = 0
        self._links: list[tuple[str, str, int]] = []

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        """An element opens: text, tab, space or link bookkeeping."""
        if tag in self.text_tags:
            self._open_text += 1
        elif tag in self.tab_tags:
            self.parts.append("\t")
        elif tag in self.space_tags:
            self.parts.append(" " * (self.space_count(attrs) if self.space_count else 1))
        if self.link_of is not None:
            target = self.link_of(tag, attrs)
            if target is not None:
                self._links.append((tag, target, len(self.parts)))

    def end(self, tag: str) -> None:
        """An element closes: ends a line, a text run or a link."""
        if tag in self.text_tags:
            self._open_text -= 1
        if tag in self.line_tags:
            self.parts.append("\n")
        if self._links and self._links[-1][0] == tag:
            _, target, first = self._links.pop()
            self.links.append((target, " ".join("".join(self.parts[first:]).split())))

    def data(self, text: str) -> None:
        """Character data: kept inside text elements (or everywhere without ``text_tags``)."""
        if self._open_text > 0 or not self.text_tags:
            self.parts.append(text)

    def close(self) -> None:
        """Nothing to finish (the ElementTree target protocol's last call)."""

    def text(self) -> str:
        """The collected text, tidied (see :func:`tidy_text`)."""
        return tidy_text("".join(self.parts))


def document_result(base: str, text: str, title: str, links: Iterable[tuple[str, str]],
                    metadata: Mapping[str, str], outlink_meta: Mapping[str, tuple[tuple[str, str], ...]]
                    | None = None) -> ParseResult:
    """A successful parse: links made absolute (see :func:`absolute_link`), each target once, in order.

    ``outlink_meta`` maps a link target (as found) to the metadata its outlink carries.
    """
    outlinks: list[Outlink] = []
    seen: set[str] = set()
    for target, anchor in links:
        url = absolute_link(base, target)
        if url is None or url in seen:
            continue
        seen.add(url)
        extra = outlink_meta.get(target, ()) if outlink_meta else ()
        outlinks.append(Outlink(url, anchor, extra))
    data = ParseData(ParseStatusCode.SUCCESS, title, outlinks, {}, dict(metadata))
    return ParseResult(data, ParseText(text))
