"""Plugin ``parse-rtf``: Rich Text Format documents, read by :mod:`gossamer.plugins.support.rtf`.

Text is the document's text with a line per paragraph (tidied: runs of spaces collapsed,
blank lines dropped); the title is the ``\\info`` group's ``\\title``; ``author``,
``subject``, ``keywords``, ``comment`` and ``company`` become parse metadata under Tika's
names (``dc:creator``, ``dc:subject``, ``meta:keyword``, ``dc:description``,
``extended-properties:Company``).  ``HYPERLINK`` fields are outlinks with the field's
visible text as anchor.  Documents over ``parser.rtf.max.bytes`` and groups nested deeper
than ``parser.rtf.max.depth`` are refused with a ``ValueError`` naming the limit.
"""

from __future__ import annotations

from gossamer.core import Content, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.docparse import document_result, tidy_text
from gossamer.plugins.support.rtf import read_rtf

_META_NAMES = {"title": "dc:title", "author": "dc:creator", "subject": "dc:subject", "keywords": "meta:keyword",
               "comment": "dc:description", "company": "extended-properties:Company"}


class RtfParser(Parser):
    """RTF parser (see the module docstring)."""

    content_types = ("application/rtf", "text/rtf", "application/x-rtf", "text/richtext")

    def __init__(self, settings: Settings) -> None:
        self.max_depth = settings.get_int("parser.rtf.max.depth")
        self.max_bytes = settings.get_int("parser.rtf.max.bytes")

    def parse(self, content: Content) -> ParseResult:
        """Text, title, info and hyperlinks of one RTF document; ``ValueError`` when unreadable or too big."""
        if len(content.content) > self.max_bytes:
            raise ValueError(f"RTF document of {len(content.content)} bytes is over parser.rtf.max.bytes "
                             f"({self.max_bytes})")
        doc = read_rtf(content.content, self.max_depth)
        meta = {_META_NAMES[key]: value for key, value in doc.info.items() if key in _META_NAMES}
        return document_result(content.base_url or content.url, tidy_text(doc.text), doc.info.get("title", ""),
                               doc.links, meta)


PLUGIN = PluginInfo(
    id="parse-rtf",
    point="Parser",
    factory=RtfParser,
    description="Rich Text Format: text, \\info properties, HYPERLINK fields; size and group-depth limits",
)
