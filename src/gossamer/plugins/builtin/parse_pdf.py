"""Plugin ``parse-pdf``: PDF documents with PDFium through pypdfium2 (Nutch reads them through parse-tika / PDFBox).

What a parse yields:

* ``text``: the text of every page (PDFium's text extraction, lines ending in ``\\n``),
  pages separated by a blank line;
* ``title``: the document information's ``/Title``, else the first non-empty line of
  the text (at most 200 characters);
* ``outlinks``: every link annotation whose action is a ``/URI`` (absolute URLs as
  written, resolved against the document's URL when relative), in page order, each
  once; the anchor is the text drawn inside the annotation's rectangle, when any;
* parse metadata: ``author``, ``subject``, ``keywords``, ``creator``, ``producer``,
  ``created`` and ``modified`` (ISO 8601, from the information dictionary, when
  present and readable) and ``pdf.pages`` (the page count).

An encrypted document that does not open with the empty user password raises
``ValueError("encrypted: …")``; a document PDFium cannot read raises
``ValueError("broken PDF: …")``.  Either becomes ``parse_failed`` with that reason.
Time and memory are bounded by the parse worker process (``parser.timeout``,
``parser.memory.max``), not here; PDFium is native code, so a crash in it ends the worker
only (``parser process died``), never the parse job.  PDFium is not thread-safe: one
parser object must not parse in two threads at once (the parse worker is single-threaded).

PDFium (Chrome's PDF engine, continuously fuzzed) replaced pypdf here in issue 22: 9–11×
less CPU on the doc web's PDFs, the same text up to white space (``bench/README.md``).
"""

from __future__ import annotations

import ctypes
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import urljoin

from gossamer.core import Content, Outlink, ParseData, ParseStatusCode, ParseText, Settings
from gossamer.plugins.api import Parser, ParseResult
from gossamer.plugins.registry import PluginInfo

TITLE_MAX = 200
URI_MAX = 64 * 1024
"""Longest link target read from an annotation (bytes); longer ones are skipped."""
_INFO_KEYS = {"Author": "author", "Subject": "subject", "Keywords": "keywords", "Creator": "creator",
              "Producer": "producer"}
_PDF_DATE = re.compile(r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+\-])?(\d{2})?'?(\d{2})?")
_DATE_KEYS = {"CreationDate": "created", "ModDate": "modified"}
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
_LINE_ENDS = re.compile(r"\r\n?")
_NOT_TEXT = str.maketrans({"\ufffe": "-", "\x02": "-", "\x00": None})
"""PDFium joins a word hyphenated at a line end and puts U+FFFE (or ``\\x02``) where the hyphen was: a hyphen again."""


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


def _clean(text: str) -> str:
    """PDFium's text with ``\\n`` line ends and its markers of generated hyphens as hyphens.

    The same as ``_LINE_ENDS.sub("\\n", text).translate(_NOT_TEXT)``, by whole-string replaces: a
    translation table costs a dictionary lookup per character (0.18 s for the doc web's 10 M).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\ufffe", "-").replace("\x02", "-").replace("\x00", "")


def _decode_uri(raw_uri: bytes) -> str:
    """A ``/URI`` string's bytes (7-bit ASCII by the standard; UTF-8 in practice when not) as text."""
    try:
        return raw_uri.decode("utf-8").strip()
    except UnicodeDecodeError:
        return raw_uri.decode("latin-1").strip()


def _uri_links(raw: Any, document: Any, page: Any) -> list[tuple[str, tuple[float, float, float, float]]]:
    """``(uri, (left, bottom, right, top))`` of the page's link annotations with a ``/URI`` action, in order."""
    found = []
    position = ctypes.c_int(0)
    link = raw.FPDF_LINK()
    rect = raw.FS_RECTF()
    buffer = ctypes.create_string_buffer(4096)
    while raw.FPDFLink_Enumerate(page, ctypes.byref(position), ctypes.byref(link)):
        action = raw.FPDFLink_GetAction(link)
        if not action or raw.FPDFAction_GetType(action) != raw.PDFACTION_URI:
            continue
        size = raw.FPDFAction_GetURIPath(document, action, None, 0)
        if size <= 1 or size > URI_MAX:
            continue
        if size > len(buffer):
            buffer = ctypes.create_string_buffer(size)
        raw.FPDFAction_GetURIPath(document, action, buffer, size)
        uri = _decode_uri(buffer.raw[:size - 1])
        if not raw.FPDFLink_GetAnnotRect(link, ctypes.byref(rect)):
            rect.left = rect.right = rect.top = rect.bottom = float("nan")
        left, right = sorted((rect.left, rect.right))
        bottom, top = sorted((rect.bottom, rect.top))
        found.append((uri, (left, bottom, right, top)))
    return found


class PdfParser(Parser):
    """PDF parser (see the module docstring)."""

    content_types = ("application/pdf",)

    def __init__(self, settings: Settings) -> None:
        import pypdfium2  # noqa: F401 - loads PDFium when the plugin is built (before the worker's memory cap)

    def parse(self, content: Content) -> ParseResult:
        """Text, title, metadata and URI links of one PDF; ValueError for encrypted or unreadable files."""
        import pypdfium2 as pdfium

        try:
            document = pdfium.PdfDocument(content.content)
        except pdfium.PdfiumError as exc:
            if getattr(exc, "err_code", None) == _PASSWORD_ERROR:
                raise ValueError("encrypted: the document needs a password") from None
            raise ValueError(f"broken PDF: {exc}") from None
        try:
            texts, outlinks = self._pages(document, content.base_url or content.url)
            meta = self._metadata(document)
        except (MemoryError, RecursionError, ValueError):
            raise
        except pdfium.PdfiumError as exc:  # a page that does not load, say
            raise ValueError(f"broken PDF: {exc}") from None
        except Exception as exc:  # noqa: BLE001 - PDFium reports failures on bad input as PdfiumError and others
            raise ValueError(f"broken PDF: {type(exc).__name__}: {exc}") from None
        finally:
            document.close()
        text = "\n\n".join(t.strip() for t in texts if t.strip())
        title = meta.pop("title", "") or next((line.strip() for line in text.splitlines() if line.strip()), "")
        data = ParseData(ParseStatusCode.SUCCESS, title[:TITLE_MAX], outlinks, {}, meta)
        return ParseResult(data, ParseText(text))

    def _pages(self, document: Any, base: str) -> tuple[list[str], list[Outlink]]:
        import pypdfium2.raw as raw

        texts: list[str] = []
        links: dict[str, Outlink] = {}
        for index in range(len(document)):
            page = document[index]
            textpage = page.get_textpage()
            try:
                texts.append(_clean(textpage.get_text_range()))
                for uri, (left, bottom, right, top) in _uri_links(raw, document.raw, page.raw):
                    url = urljoin(base, uri) if base else uri
                    if url and url not in links:
                        anchor = "" if left != left else textpage.get_text_bounded(  # noqa: PLR0124 - NaN: no rect
                            left, bottom, right, top)
                        links[url] = Outlink(url, " ".join(_clean(anchor).split()))
            finally:
                textpage.close()
                page.close()
        return texts, list(links.values())

    def _metadata(self, document: Any) -> dict[str, str]:
        meta = {"pdf.pages": str(len(document))}
        info = document.get_metadata_dict(skip_empty=True)
        title = info.get("Title")
        if title and title.strip():
            meta["title"] = " ".join(title.split())
        for key, name in _INFO_KEYS.items():
            value = info.get(key)
            if value and value.strip():
                meta[name] = value.strip()
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
    description="PDF with PDFium (pypdfium2): text, title, document information, URI link annotations",
    aliases=("org.apache.nutch.parse.pdf.PdfParser",),
)
