"""Plugin ``parse-pdf``: PDF documents with pypdf (Nutch reads them through parse-tika / PDFBox).

What a parse yields:

* ``text``: the text of every page (pypdf's layout-free extraction), pages separated
  by a blank line;
* ``title``: the document information's ``/Title``, else the first non-empty line of
  the text (at most 200 characters);
* ``outlinks``: every link annotation whose action is a ``/URI`` (absolute URLs as
  written, resolved against the document's URL when relative), in page order, each
  once; the anchor is the text drawn inside the annotation's rectangle, when any;
* parse metadata: ``author``, ``subject``, ``keywords``, ``creator``, ``producer``,
  ``created`` and ``modified`` (ISO 8601, from the information dictionary, when
  present and readable) and ``pdf.pages`` (the page count).

An encrypted document that does not open with the empty user password raises
``ValueError("encrypted: …")``; a document pypdf cannot read raises
``ValueError("broken PDF: …")``.  Either becomes ``parse_failed`` with that reason.
Time and memory are bounded by the parse worker process (``parser.timeout``,
``parser.memory.max``), not here.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import urljoin

from gossamer.core import Content, Outlink, ParseData, ParseStatusCode, ParseText, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.registry import PluginInfo

TITLE_MAX = 200
_INFO_KEYS = {"/Author": "author", "/Subject": "subject", "/Keywords": "keywords", "/Creator": "creator",
              "/Producer": "producer"}
_PDF_DATE = re.compile(r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+\-])?(\d{2})?'?(\d{2})?")
_DATE_KEYS = {"/CreationDate": "created", "/ModDate": "modified"}


def _iso_date(value: Any) -> str | None:
    """``D:20240131120000+01'00'`` → ``2024-01-31T12:00:00+01:00``; ``None`` when unreadable."""
    match = _PDF_DATE.match(str(value).strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, sign, tz_hour, tz_minute = match.groups()
    try:
        offset = timedelta(hours=int(tz_hour or 0), minutes=int(tz_minute or 0))
        zone = timezone(-offset if sign == "-" else offset) if sign in ("+", "-") else UTC
        moment = datetime(int(year), int(month or 1), int(day or 1), int(hour or 0), int(minute or 0),
                          int(second or 0), tzinfo=zone)
    except ValueError:
        return None
    return moment.isoformat()


def _link_targets(page: Any) -> list[tuple[str, tuple[float, float, float, float] | None]]:
    """``(uri, rect)`` of the page's link annotations with a ``/URI`` action."""
    found = []
    for ref in page.get("/Annots") or ():
        annot = ref.get_object()
        if not hasattr(annot, "get") or annot.get("/Subtype") != "/Link":
            continue
        action = annot.get("/A")
        action = action.get_object() if action is not None else None
        if not hasattr(action, "get") or action.get("/S") != "/URI" or action.get("/URI") is None:
            continue
        uri = action["/URI"]
        uri = uri.decode("latin-1") if isinstance(uri, bytes) else str(uri)
        rect = annot.get("/Rect")
        try:
            box = tuple(sorted(float(v) for v in rect[0::2])) + tuple(sorted(float(v) for v in rect[1::2]))
        except (TypeError, ValueError, IndexError):
            box = None
        found.append((uri.strip(), (box[0], box[2], box[1], box[3]) if box and len(box) == 4 else None))
    return found


def _collector(pieces: list[tuple[float, float, str]]) -> Callable[..., None]:
    def visit(text: str, cm: list[float], tm: list[float], font: object, size: object) -> None:
        if text.strip():
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            pieces.append((x, y, text))
    return visit


def _anchor(pieces: list[tuple[float, float, str]], rect: tuple[float, float, float, float] | None) -> str:
    if rect is None:
        return ""
    x0, y0, x1, y1 = rect
    inside = [text for x, y, text in pieces if x0 - 1 <= x <= x1 + 1 and y0 - 3 <= y <= y1 + 1]
    return " ".join(" ".join(inside).split())


class PdfParser(Parser):
    """PDF parser (see the module docstring)."""

    content_types = ("application/pdf",)

    def __init__(self, settings: Settings) -> None:
        import pypdf  # noqa: F401 - imported when the plugin is built, not on the first document

        logging.getLogger("pypdf").setLevel(logging.ERROR)  # broken files are reported by status, not logs

    def parse(self, content: Content) -> ParseResult:
        """Text, title, metadata and URI links of one PDF; ValueError for encrypted or unreadable files."""
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError

        try:
            reader = PdfReader(io.BytesIO(content.content))
            if reader.is_encrypted and not reader.decrypt(""):
                raise ValueError("encrypted: the document needs a password")
            texts, outlinks = self._pages(reader, content.base_url or content.url)
            meta = self._metadata(reader)
        except (MemoryError, RecursionError, ValueError):
            raise
        except PyPdfError as exc:
            raise ValueError(f"broken PDF: {exc}" if str(exc) else "broken PDF") from None
        except Exception as exc:  # noqa: BLE001 - pypdf fails on bad input with many exception types
            raise ValueError(f"broken PDF: {type(exc).__name__}: {exc}") from None
        text = "\n\n".join(t.strip() for t in texts if t.strip())
        title = meta.pop("title", "") or next((line.strip() for line in text.splitlines() if line.strip()), "")
        data = ParseData(ParseStatusCode.SUCCESS, title[:TITLE_MAX], outlinks, {}, meta)
        return ParseResult(data, ParseText(text))

    def _pages(self, reader: Any, base: str) -> tuple[list[str], list[Outlink]]:
        texts: list[str] = []
        links: dict[str, Outlink] = {}
        for page in reader.pages:
            targets = _link_targets(page)
            if not targets:
                texts.append(page.extract_text() or "")
                continue
            pieces: list[tuple[float, float, str]] = []
            texts.append(page.extract_text(visitor_text=_collector(pieces)) or "")
            for uri, rect in targets:
                url = urljoin(base, uri) if base else uri
                if url and url not in links:
                    links[url] = Outlink(url, _anchor(pieces, rect))
        return texts, list(links.values())

    def _metadata(self, reader: Any) -> dict[str, str]:
        meta = {"pdf.pages": str(len(reader.pages))}
        info = reader.metadata or {}
        title = info.get("/Title")
        if title:
            meta["title"] = " ".join(str(title).split())
        for key, name in _INFO_KEYS.items():
            value = info.get(key)
            if value and str(value).strip():
                meta[name] = str(value).strip()
        for key, name in _DATE_KEYS.items():
            value = info.get(key)
            date = _iso_date(value) if value else None
            if date:
                meta[name] = date
        return meta


PLUGIN = PluginInfo(
    id="parse-pdf",
    point="Parser",
    factory=PdfParser,
    description="PDF with pypdf: text, title, document information, URI link annotations",
    aliases=("org.apache.nutch.parse.pdf.PdfParser",),
)
