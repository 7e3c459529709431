"""Plugin ``parse-odf``: OpenDocument text, spreadsheets and presentations (ODT, ODS, ODP and templates).

An OpenDocument file is a ZIP with a ``mimetype`` member, ``content.xml`` (the body),
``meta.xml`` (properties) and ``META-INF/manifest.xml``.  Read with the stdlib's zipfile
and expat under ``parser.zip.*`` and ``parser.xml.*`` limits.

* Text: the paragraphs and headings of ``content.xml`` (``text:p``, ``text:h``; in
  spreadsheets and presentations they sit in cells and frames), a line each;
  ``text:s`` (with its ``text:c`` count), ``text:tab`` and ``text:line-break`` kept.
* Outlinks: ``text:a`` and ``draw:a`` ``xlink:href`` targets, anchor the link's text.
* Title: ``dc:title`` of ``meta.xml``; every property becomes parse metadata under Tika's
  names (``dc:creator``, ``meta:keyword``, ``dcterms:created``, ``dcterms:modified`` …);
  ``odf.mimetype`` holds the package's declared type.
* A package whose manifest lists encryption data is refused as ``encrypted``; a broken
  or hostile one raises ``ValueError`` with the reason (see :mod:`..support.safezip`).
"""

from __future__ import annotations

from collections.abc import Mapping

from gossamer.core import Content, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.docparse import TextSink, core_properties, document_result
from gossamer.plugins.support.safexml import feed_xml, limits_from, xml_tree
from gossamer.plugins.support.safezip import SafeZip, zip_limits_from

TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
MANIFEST = "{urn:oasis:names:tc:opendocument:xmlns:manifest:1.0}"
HREF = "{http://www.w3.org/1999/xlink}href"

CONTENT_TYPES = tuple(
    f"application/vnd.oasis.opendocument.{kind}{suffix}"
    for kind in ("text", "spreadsheet", "presentation", "graphics") for suffix in ("", "-template")
)


def _link(tag: str, attrs: Mapping[str, str]) -> str | None:
    return attrs.get(HREF) if tag in (TEXT + "a", DRAW + "a") else None


def _spaces(attrs: Mapping[str, str]) -> int:
    count = attrs.get(TEXT + "c", "1")
    return min(int(count), 1000) if count.isdigit() else 1


class OdfParser(Parser):
    """OpenDocument parser (see the module docstring)."""

    content_types = CONTENT_TYPES

    def __init__(self, settings: Settings) -> None:
        self.zip_limits = zip_limits_from(settings)
        self.xml_limits = limits_from(settings)

    def parse(self, content: Content) -> ParseResult:
        """Text, title, properties and links of one OpenDocument file; ``ValueError`` when unreadable."""
        package = SafeZip(content.content, self.zip_limits, "OpenDocument file")
        manifest = package.read_optional("META-INF/manifest.xml")
        if manifest is not None and any(
                True for _ in xml_tree(manifest, self.xml_limits, "manifest.xml").iter(MANIFEST + "encryption-data")):
            raise ValueError("OpenDocument file is encrypted (password protected)")
        body = package.read_optional("content.xml")
        if body is None:
            raise ValueError("OpenDocument file: missing content.xml (not an OpenDocument package?)")
        sink = TextSink(text_tags=(TEXT + "p", TEXT + "h"), line_tags=(TEXT + "p", TEXT + "h", TEXT + "line-break"),
                        tab_tags=(TEXT + "tab",), space_tags=(TEXT + "s",), link_of=_link, space_count=_spaces)
        feed_xml(body, sink, self.xml_limits, "content.xml")
        meta_xml = package.read_optional("meta.xml")
        properties = core_properties(xml_tree(meta_xml, self.xml_limits, "meta.xml")) if meta_xml else {}
        mimetype = (package.read_optional("mimetype") or b"")[:200].decode("ascii", "replace").strip()
        metadata = {**properties, "odf.mimetype": mimetype} if mimetype else properties
        return document_result(content.base_url or content.url, sink.text(), properties.get("dc:title", ""),
                               sink.links, metadata)


PLUGIN = PluginInfo(
    id="parse-odf",
    point="Parser",
    factory=OdfParser,
    description="OpenDocument (ODT, ODS, ODP): text, meta.xml properties, links; zip-bomb and XML limits",
)
