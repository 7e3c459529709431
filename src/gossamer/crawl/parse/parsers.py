"""Which Parser plugin reads a document: by content type, as Nutch's ParserFactory picks one.

The MIME type is the ``Content-Type`` value without parameters, lower-cased.  When
it is missing or says nothing (``application/octet-stream`` and the like) and
``mime.type.magic`` is on, the first bytes are sniffed for HTML (the markers of
the HTML standard's sniffing rules) and the URL's extension is consulted
(``.html``/``.htm``/``.xhtml``/``.txt``).  Among the active Parser plugins, one
listing the exact type wins over one listing ``type/*``, which wins over ``*``;
ties go to the plugin with the smaller id.  Choices are cached per type.
"""

from __future__ import annotations

from collections.abc import Sequence

from gossamer.core import Content
from gossamer.plugins import Parser

GENERIC_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/unknown",
                           "unknown/unknown", "application/x-unknown-content-type", "content/unknown"})
"""Content types that name no format: the bytes decide (with mime.type.magic)."""

_HTML_MARKERS = (b"<!doctype html", b"<html", b"<head", b"<body", b"<title", b"<script", b"<iframe", b"<h1",
                 b"<div", b"<font", b"<table", b"<a ", b"<style", b"<br", b"<p>", b"<p ", b"<!--")
_EXTENSIONS = {"html": "text/html", "htm": "text/html", "xhtml": "application/xhtml+xml", "txt": "text/plain"}


def mime_of(content_type: str) -> str:
    """``text/html; charset=x`` → ``text/html``."""
    return content_type.partition(";")[0].strip().lower()


def sniff(data: bytes) -> str | None:
    """``text/html`` when the document starts like HTML (after white space and a BOM), else ``None``."""
    head = data[:1024].lstrip(b"\xef\xbb\xbf \t\r\n\x0c").lower()
    if head.startswith(b"<?xml") and b"<html" in head:
        return "application/xhtml+xml"
    if head.startswith(_HTML_MARKERS):
        return "text/html"
    return None


def guess_from_url(url: str) -> str | None:
    """Type implied by the URL path's extension (a few text formats only), or ``None``."""
    path = url.partition("?")[0].partition("#")[0]
    name = path.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return _EXTENSIONS.get(name.rsplit(".", 1)[1].lower())


class ParserSelector:
    """Maps documents to Parser plugins (see the module docstring)."""

    def __init__(self, parsers: Sequence[Parser], magic: bool = True) -> None:
        self.parsers = list(parsers)
        self.magic = magic
        self._cache: dict[str, Parser | None] = {}

    def content_type(self, content: Content) -> str:
        """The MIME type used to choose a parser for ``content``."""
        mime = mime_of(content.content_type)
        if mime in GENERIC_TYPES and self.magic:
            return sniff(content.content) or guess_from_url(content.url) or mime
        return mime

    def parser_for(self, mime: str) -> Parser | None:
        """The parser for ``mime``, or ``None`` when no active parser takes it."""
        if mime in self._cache:
            return self._cache[mime]
        best: tuple[int, Parser] | None = None
        family = mime.partition("/")[0] + "/*"
        for parser in self.parsers:
            types = {t.strip().lower() for t in parser.content_types}
            rank = 0 if mime in types else 1 if family in types else 2 if "*" in types else None
            if rank is not None and (best is None or rank < best[0]):
                best = (rank, parser)
        chosen = best[1] if best is not None else None
        self._cache[mime] = chosen
        return chosen
