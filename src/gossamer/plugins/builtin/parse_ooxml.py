"""Plugin ``parse-ooxml``: Word (DOCX), Excel (XLSX) and PowerPoint (PPTX) documents, Office Open XML.

One plugin for the three formats: the package says which it is (the main part is
``word/…``, ``xl/…`` or ``ppt/…``), so a document served with a wrong or generic type
still parses.  Read with the stdlib's zipfile and expat under the package and XML limits
(``parser.zip.max.members``, ``parser.zip.max.bytes``, ``parser.xml.max.depth``,
``parser.xml.max.elements``); any breach, damage or encryption is a ``ValueError`` naming
the reason.

* **DOCX** — the text of the main document, a line per paragraph; outlinks from
  ``w:hyperlink`` elements whose relationship is external, with the link's text as anchor.
* **XLSX** — per sheet in workbook order, the sheet's name then a line per row, cells
  separated by tabs (shared strings, inline strings and values); outlinks from the
  sheets' external hyperlinks (anchor: the ``display`` text, else the linked cell's text).
* **PPTX** — the slides in presentation order, a line per paragraph; outlinks from
  ``a:hlinkClick`` on text runs (anchor: the run's text).

The title is the core property ``dc:title``; every core property is parse metadata under
Tika's names (``dc:creator``, ``meta:keyword``, ``dcterms:modified`` …), and
``ooxml.format`` says ``docx``, ``xlsx`` or ``pptx``.
"""

from __future__ import annotations

from gossamer.core import Content, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.docparse import TextSink, document_result
from gossamer.plugins.support.ooxml import R_ID, OoxmlPackage
from gossamer.plugins.support.safexml import feed_xml, limits_from, xml_tree
from gossamer.plugins.support.safezip import SafeZip, zip_limits_from

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"

CONTENT_TYPES = (
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template",
    "application/vnd.ms-word.document.macroenabled.12",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.template",
    "application/vnd.ms-excel.sheet.macroenabled.12",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow",
    "application/vnd.ms-powerpoint.presentation.macroenabled.12",
)


def _word(package: OoxmlPackage, part: str) -> tuple[str, list[tuple[str, str]]]:
    links = package.hyperlinks(part)
    sink = TextSink(text_tags=(W + "t",), line_tags=(W + "p", W + "br", W + "cr"), tab_tags=(W + "tab",),
                    link_of=lambda tag, attrs: links.get(attrs.get(R_ID, "")) if tag == W + "hyperlink" else None)
    feed_xml(package.xml(part), sink, package.limits, part)
    return sink.text(), sink.links


class _RunLinks(TextSink):
    """DrawingML text: a run (``a:r``) is a link when its properties carry ``a:hlinkClick``."""

    def __init__(self, links: dict[str, str]) -> None:
        super().__init__(text_tags=(A + "t",), line_tags=(A + "p", A + "br"), tab_tags=(A + "tab",))
        self.targets = links
        self._run: tuple[int, str | None] | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        """Track runs and their click targets."""
        super().start(tag, attrs)
        if tag == A + "r":
            self._run = (len(self.parts), None)
        elif tag == A + "hlinkClick" and self._run is not None:
            self._run = (self._run[0], self.targets.get(attrs.get(R_ID, "")))

    def end(self, tag: str) -> None:
        """A run that had a click target becomes a link."""
        if tag == A + "r" and self._run is not None:
            first, target = self._run
            if target:
                self.links.append((target, " ".join("".join(self.parts[first:]).split())))
            self._run = None
        super().end(tag)


def _slides(package: OoxmlPackage, part: str) -> tuple[str, list[tuple[str, str]]]:
    rels = package.relationships(part)
    order = [rels[sid.get(R_ID, "")].target for sid in xml_tree(package.xml(part), package.limits, part)
             .iter(P + "sldId") if sid.get(R_ID, "") in rels]
    texts, links = [], []
    for slide in order:
        sink = _RunLinks(package.hyperlinks(slide))
        feed_xml(package.xml(slide), sink, package.limits, slide)
        texts.append(sink.text())
        links += sink.links
    return "\n".join(texts), links


class _Cells:
    """Worksheet target: rows of cell texts, and each cell's text by reference (for hyperlink anchors)."""

    def __init__(self, shared: list[str]) -> None:
        self.shared = shared
        self.rows: list[list[str]] = []
        self.by_ref: dict[str, str] = {}
        self.hyperlinks: list[dict[str, str]] = []
        self._cell: dict[str, str] | None = None
        self._buffer: list[str] | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag == S + "row":
            self.rows.append([])
        elif tag == S + "c":
            self._cell, self._value = attrs, []
        elif tag in (S + "v", S + "t") and self._cell is not None:
            self._buffer = self._value
        elif tag == S + "hyperlink":
            self.hyperlinks.append(attrs)

    def data(self, text: str) -> None:
        if self._buffer is not None:
            self._buffer.append(text)

    def end(self, tag: str) -> None:
        if tag in (S + "v", S + "t"):
            self._buffer = None
        elif tag == S + "c" and self._cell is not None:
            value = "".join(self._value)
            if self._cell.get("t") == "s":
                index = int(value) if value.strip().isdigit() else -1
                value = self.shared[index] if 0 <= index < len(self.shared) else ""
            if value and self.rows:
                self.rows[-1].append(value)
            self.by_ref[self._cell.get("r", "")] = value
            self._cell = None

    def close(self) -> None:
        """Nothing to finish."""


def _sheets(package: OoxmlPackage, part: str) -> tuple[str, list[tuple[str, str]]]:
    shared: list[str] = []
    rels = package.relationships(part)
    for rel in rels.values():
        if rel.type.endswith("/sharedStrings") and package.zip.has(rel.target):
            strings = xml_tree(package.xml(rel.target), package.limits, rel.target)
            shared = ["".join(t.text or "" for t in si.iter(S + "t")) for si in strings.iter(S + "si")]
    texts: list[str] = []
    links: list[tuple[str, str]] = []
    for sheet in xml_tree(package.xml(part), package.limits, part).iter(S + "sheet"):
        rel = rels.get(sheet.get(R_ID, ""))
        if rel is None or rel.external or not package.zip.has(rel.target):
            continue
        cells = _Cells(shared)
        feed_xml(package.xml(rel.target), cells, package.limits, rel.target)
        texts.append("\n".join([sheet.get("name", ""), *("\t".join(row) for row in cells.rows if row)]))
        targets = package.hyperlinks(rel.target)
        for attrs in cells.hyperlinks:
            target = targets.get(attrs.get(R_ID, ""))
            if target:
                links.append((target, attrs.get("display") or cells.by_ref.get(attrs.get("ref", ""), "")))
    return "\n".join(texts), links


_READERS = {"word": ("docx", _word), "xl": ("xlsx", _sheets), "ppt": ("pptx", _slides)}


class OoxmlParser(Parser):
    """DOCX, XLSX and PPTX parser (see the module docstring)."""

    content_types = CONTENT_TYPES

    def __init__(self, settings: Settings) -> None:
        self.zip_limits = zip_limits_from(settings)
        self.xml_limits = limits_from(settings)

    def parse(self, content: Content) -> ParseResult:
        """Text, title, properties and hyperlinks of one OOXML document; ``ValueError`` when unreadable."""
        package = OoxmlPackage(SafeZip(content.content, self.zip_limits, "OOXML document"), self.xml_limits)
        main = package.main_part()
        kind = _READERS.get(main.partition("/")[0])
        if kind is None:
            raise ValueError(f"OOXML document: unknown main part {main}")
        fmt, read = kind
        text, links = read(package, main)
        properties = package.properties()
        meta = {**properties, "ooxml.format": fmt}
        return document_result(content.base_url or content.url, text, properties.get("dc:title", ""), links, meta)


PLUGIN = PluginInfo(
    id="parse-ooxml",
    point="Parser",
    factory=OoxmlParser,
    description="Office Open XML (DOCX, XLSX, PPTX): text, core properties, hyperlinks; zip-bomb and XML limits",
)
