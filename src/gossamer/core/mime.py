"""Content type detection: the declared type, the URL's extension and the leading bytes.

This is Nutch's ``MimeUtil.autoResolveContentType`` (with ``mime.type.magic``) on a
small magic table of our own:

1. the declared ``Content-Type`` without parameters, lower-cased and mapped to its
   canonical name (:data:`ALIASES`: ``text/xml`` → ``application/xml``,
   ``application/x-pdf`` → ``application/pdf`` …);
2. when it is missing or generic (:data:`GENERIC_TYPES`: ``application/octet-stream``
   and the like), the type of the URL path's extension (:data:`EXTENSIONS`);
3. with magic on, the type the leading bytes show (:func:`magic_type`) replaces the
   type so far when it differs — unless the bytes show only a broad type and the type
   so far is a refinement of it (:func:`refines`: ``text/csv`` of text, an RSS type of
   XML, a DOCX of a ZIP whose directory could not be read), or the bytes show only
   "some text" and a specific binary-free type was declared.  So a PDF served as
   ``application/octet-stream`` or ``text/plain`` is a PDF, an HTML error page served
   as ``application/pdf`` is HTML, and a declared ``application/rss+xml`` stays RSS.

Magic knows PDF, RTF, gzip, ZIP (and inside it OOXML: DOCX/XLSX/PPTX by their part
names; ODF: ODT/ODS/ODP by the ``mimetype`` entry), OLE2 (old Office), XML with
RSS/Atom/RDF/SVG/XHTML roots, HTML (the markers of the HTML standard's sniffing
rules), common images (PNG, JPEG, GIF, WebP, ICO) and, last, plain text (no NUL and
few control bytes in the first kilobyte).  Everything here is pure and cheap: at most
the first 4 KiB are looked at, and a ZIP's central directory is only listed.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterable, Mapping
from typing import TypeVar

V = TypeVar("V")
OCTET_STREAM = "application/octet-stream"
GENERIC_TYPES = frozenset({"", OCTET_STREAM, "binary/octet-stream", "application/unknown", "unknown/unknown",
                           "application/x-unknown-content-type", "content/unknown", "application/binary",
                           "application/force-download", "application/download"})
"""Declared types that name no format: the extension and the bytes decide."""

ALIASES = {
    "text/xml": "application/xml", "application/x-xml": "application/xml", "application/x-pdf": "application/pdf",
    "text/pdf": "application/pdf", "text/rtf": "application/rtf", "application/x-rtf": "application/rtf",
    "application/x-gzip": "application/gzip", "application/gzip-compressed": "application/gzip",
    "application/x-gunzip": "application/gzip", "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg",
    "application/x-rss+xml": "application/rss+xml", "application/rdf+xml": "application/rdf+xml",
    "application/x-zip-compressed": "application/zip", "application/x-zip": "application/zip",
    "text/x-html": "text/html", "application/x-atom+xml": "application/atom+xml",
}
"""Other names of a type → its canonical name."""

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
ODT = "application/vnd.oasis.opendocument.text"
ODS = "application/vnd.oasis.opendocument.spreadsheet"
ODP = "application/vnd.oasis.opendocument.presentation"

EXTENSIONS = {
    "html": "text/html", "htm": "text/html", "shtml": "text/html", "xhtml": "application/xhtml+xml",
    "txt": "text/plain", "text": "text/plain", "csv": "text/csv", "json": "application/json",
    "pdf": "application/pdf", "rtf": "application/rtf", "xml": "application/xml", "rss": "application/rss+xml",
    "atom": "application/atom+xml", "gz": "application/gzip", "zip": "application/zip",
    "docx": DOCX, "xlsx": XLSX, "pptx": PPTX, "odt": ODT, "ods": ODS, "odp": ODP,
    "doc": "application/msword", "xls": "application/vnd.ms-excel", "ppt": "application/vnd.ms-powerpoint",
    "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
    "ico": "image/vnd.microsoft.icon", "svg": "image/svg+xml",
}
"""URL path extension → type."""

ZIP_BASED = frozenset({DOCX, XLSX, PPTX, ODT, ODS, ODP, "application/epub+zip", "application/java-archive",
                       "application/vnd.oasis.opendocument.graphics", "application/vnd.ms-xpsdocument"})
PARSE_PLUGIN_MAP = (
    "text/html=parse-html", "application/xhtml+xml=parse-html", "text/plain=parse-text",
    "application/pdf=parse-pdf", f"{DOCX}=parse-ooxml", f"{XLSX}=parse-ooxml", f"{PPTX}=parse-ooxml",
    f"{ODT}=parse-odf", f"{ODS}=parse-odf", f"{ODP}=parse-odf", "application/rtf=parse-rtf",
    "application/rss+xml=parse-feed parse-xml", "application/atom+xml=parse-feed parse-xml",
    "application/xml=parse-xml",
)
"""The default ``parse.plugin.map``: the built-in parsers by type (Nutch's parse-plugins.xml)."""
_SIMPLE_MAGIC = ((b"%PDF-", "application/pdf"), (b"{\\rtf", "application/rtf"), (b"\x1f\x8b", "application/gzip"),
                 (b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF87a", "image/gif"),
                 (b"GIF89a", "image/gif"), (b"\x00\x00\x01\x00", "image/vnd.microsoft.icon"),
                 (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-tika-msoffice"))
MAGIC_KNOWN = frozenset({*ZIP_BASED, "application/zip", "image/webp", *(mime for _, mime in _SIMPLE_MAGIC)})
"""Types magic recognises by a signature: bytes without it contradict such a declared type."""
_OOXML_PARTS = ((b"word/", DOCX), (b"xl/", XLSX), (b"ppt/", PPTX))
_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<title", b"<script", b"<iframe", b"<h1",
                 b"<div", b"<font", b"<table", b"<a ", b"<style", b"<br", b"<p>", b"<p ", b"<!--")
_XML_ROOT = re.compile(rb"<([A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]*)[\s>/]")
_XML_ROOTS = {b"rss": "application/rss+xml", b"feed": "application/atom+xml", b"svg": "image/svg+xml",
              b"html": "application/xhtml+xml"}
_BINARY_BYTES = bytes(b for b in range(32) if b not in b"\t\n\x0c\r\x1b")


def canonical_mime(content_type: str) -> str:
    """``Text/XML; charset=x`` → ``application/xml``: no parameters, lower case, canonical name."""
    mime = content_type.partition(";")[0].strip().lower()
    return ALIASES.get(mime, mime)


def extension_type(url: str) -> str | None:
    """The type of the URL path's extension (:data:`EXTENSIONS`), or ``None``."""
    path = url.partition("#")[0].partition("?")[0]
    name = path.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return EXTENSIONS.get(name.rsplit(".", 1)[1].lower())


def _zip_type(data: bytes) -> str:
    if data[30:38] == b"mimetype":  # ODF: an uncompressed first entry holding the type
        declared = data[38:38 + 80].split(b"PK", 1)[0].decode("ascii", "replace").strip()
        if declared.startswith("application/vnd.oasis.opendocument."):
            return declared
    try:
        names = [name.encode("utf-8", "replace") for name in zipfile.ZipFile(io.BytesIO(data)).namelist()]
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        names = []  # a cut archive: the local headers still name the first parts
    listed = b"\n".join(names) if names else data[:65536]
    if b"[Content_Types].xml" in listed:
        for prefix, mime in _OOXML_PARTS:
            if any(name.startswith(prefix) for name in names) or (not names and prefix in listed):
                return mime
    return "application/zip"


def _xml_type(head: bytes) -> str:
    body = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", head, flags=re.S)
    match = _XML_ROOT.search(body)
    if match is None:
        return "application/xml"
    root = match.group(2).lower()
    if root == b"rdf" and b"purl.org/rss/1.0" in head:
        return "application/rss+xml"
    return _XML_ROOTS.get(root, "application/xml")


def magic_type(data: bytes) -> str | None:
    """The type the leading bytes show, or ``None`` when they show nothing known (see the module docstring)."""
    for signature, mime in _SIMPLE_MAGIC:
        if data.startswith(signature):
            return mime
    if data.startswith(b"PK\x03\x04"):
        return _zip_type(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if b"%PDF-" in data[:1024]:  # readers accept a PDF header anywhere in the first kilobyte
        return "application/pdf"
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n\x0c")
    lowered = head[:1024].lower()
    if lowered.startswith(b"<?xml"):
        return "application/xhtml+xml" if b"<html" in lowered else _xml_type(head)
    if lowered.startswith(_HTML_MARKERS):
        return "text/html"
    if lowered.startswith((b"<rss", b"<feed", b"<rdf:rdf", b"<svg")):
        return _xml_type(head)
    sample = data[:1024]
    if sample and b"\x00" not in sample and sum(map(sample.count, _BINARY_BYTES)) * 20 < len(sample):
        return "text/plain"
    return None


def refines(specific: str, broad: str) -> bool:
    """True when ``specific`` is a kind of ``broad`` that magic alone cannot tell (``text/csv`` of ``text/plain``)."""
    if specific == broad:
        return True
    if broad == "text/plain":
        return specific.startswith("text/") or specific in ("application/json", "application/javascript")
    if broad == "application/xml":
        return specific.endswith("+xml") or specific in ("text/html", "application/xml")
    if broad == "application/zip":
        return specific in ZIP_BASED or specific.endswith("+zip")
    return False


def detect_content_type(declared: str, url: str, data: bytes, magic: bool = True) -> str:
    """The effective content type of a document (see the module docstring); never empty.

    ``declared`` is the Content-Type as sent (parameters allowed), ``url`` the document's
    URL, ``data`` its bytes (only the first 4 KiB, or a ZIP's directory, are read).
    """
    mime = canonical_mime(declared)
    if mime in GENERIC_TYPES:
        mime = extension_type(url) or mime
    if magic:
        found = magic_type(data)
        if found is not None and found != mime and not refines(mime, found) \
                and (found != "text/plain" or mime in GENERIC_TYPES or mime in MAGIC_KNOWN):
            mime = found
    return mime or OCTET_STREAM


def mime_type_map(entries: Iterable[str]) -> dict[str, str]:
    """``["text/html=parse-html", …]`` → ``{"text/html": "parse-html", …}`` (keys canonical; later entries win).

    Raises ValueError for an entry without ``=`` or without a type.
    """
    mapping: dict[str, str] = {}
    for entry in entries:
        key, sep, value = entry.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"expected TYPE=VALUE, got {entry!r}")
        mapping[key.lower() if key.endswith("/*") or key == "*" else canonical_mime(key)] = value.strip()
    return mapping


def most_specific_mime(mapping: Mapping[str, V], mime: str) -> V | None:
    """The value of ``mime``, else of its family (``text/*``), else of ``*``; ``None`` when none is set."""
    for key in (mime, mime.partition("/")[0] + "/*", "*"):
        if key in mapping:
            return mapping[key]
    return None


def check_type_map(value: object) -> None:
    """The value check of ``parse.plugin.map``: every entry ``TYPE=VALUE``."""
    mime_type_map(value if isinstance(value, list) else [str(value)])


def check_size_limits(value: object) -> None:
    """The value check of ``parser.size.limits``: every entry ``TYPE=BYTES``, a whole number (``-1`` = no limit)."""
    for size in mime_type_map(value if isinstance(value, list) else [str(value)]).values():
        try:
            int(size)
        except ValueError:
            raise ValueError(f"size must be a whole number of bytes, got {size!r}") from None
