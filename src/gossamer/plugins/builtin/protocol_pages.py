"""What ``protocol-file`` and ``protocol-ftp`` share: directory link pages and HTTP-shaped outputs.

Both protocols answer like Nutch's protocol-file and protocol-ftp do: with an HTTP-shaped
response (a status code, ``Content-Type``, ``Content-Length``, ``Last-Modified``), so that the
rest of the crawl (WARC records, the parse job, the status mapping) treats them like any page.

* :func:`listing_page` renders a directory as an HTML page whose links are the entries
  (sub-directories end in ``/``) in name order, plus a ``../`` link to the parent when asked.
  Links are relative and percent-encoded, so the HTML parser resolves them against the
  directory's URL (which always ends in ``/``).
* :func:`local_output` builds the :class:`~gossamer.plugins.api.ProtocolOutput` of one
  request: content (``None`` unless the status is SUCCESS), an :class:`HttpExchange` whose
  request line is ``GET <path>`` and whose response carries the synthesized headers (the
  WARC record), and the truncation flags of the content metadata.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import IO
from urllib.parse import quote, urlsplit

from gossamer.core import TRUNCATED, TRUNCATED_REASON, Content, HttpExchange, ProtocolStatus, ProtocolStatusCode
from gossamer.plugins.api import ProtocolOutput

LISTING_TYPE = "text/html; charset=utf-8"
"""Content type of a directory link page."""

HTTP_CODES: dict[ProtocolStatusCode, tuple[int, str]] = {
    ProtocolStatusCode.SUCCESS: (200, "OK"),
    ProtocolStatusCode.MOVED: (301, "Moved Permanently"),
    ProtocolStatusCode.NOTMODIFIED: (304, "Not Modified"),
    ProtocolStatusCode.ACCESS_DENIED: (403, "Forbidden"),
    ProtocolStatusCode.NOTFOUND: (404, "Not Found"),
    ProtocolStatusCode.GONE: (410, "Gone"),
}
"""The HTTP code recorded for each outcome (Nutch's protocol-file/ftp answer with these too)."""


@dataclass(frozen=True)
class Entry:
    """One directory entry: its name, whether it is a directory, its size and mtime (ms, 0 unknown)."""

    name: str
    is_dir: bool
    size: int = -1
    modified: int = 0


def listing_page(title: str, entries: Iterable[Entry], parent: bool, limit: int = -1) -> tuple[bytes, str]:
    """The HTML link page of a directory (module docstring) as UTF-8 bytes, and why it was cut.

    A page longer than ``limit`` bytes (<0: no limit) is cut there: the reason is then ``length``.
    """
    rows = ['<a href="../">../</a>'] if parent else []
    for entry in sorted(entries, key=lambda e: e.name):
        if entry.name in ("", ".", ".."):
            continue
        shown = entry.name + ("/" if entry.is_dir else "")
        href = quote(entry.name, safe="") + ("/" if entry.is_dir else "")
        size = "" if entry.is_dir or entry.size < 0 else f" {entry.size}"
        stamp = f" {http_date(entry.modified)}" if entry.modified > 0 else ""
        rows.append(f'<a href="{html.escape(href)}">{html.escape(shown)}</a>{html.escape(size + stamp)}')
    name = html.escape(title)
    body = "<br>\n".join(rows)
    page = (f"<!DOCTYPE html>\n<html><head><title>Index of {name}</title></head>\n"
            f"<body><h1>Index of {name}</h1>\n{body}\n</body></html>\n").encode("utf-8", "surrogateescape")
    if 0 <= limit < len(page):
        return page[:limit], "length"
    return page, ""


def http_date(millis: int) -> str:
    """``millis`` (epoch ms) as an HTTP date."""
    return format_datetime(datetime.fromtimestamp(millis / 1000, tz=UTC), usegmt=True)


def local_output(url: str, status: ProtocolStatus, body: bytes = b"", content_type: str = "",
                 truncated: str = "", ip: str | None = None, started: float | None = None) -> ProtocolOutput:
    """The output of one file/ftp request (module docstring).

    ``truncated`` is the reason the body was cut (``length``, ``disconnect``), empty when
    whole; ``status.last_modified`` (ms) becomes ``Last-Modified``; a MOVED status's first
    argument becomes ``Location``.  ``started`` (a ``time.monotonic()`` value) gives the
    response time.
    """
    code, reason = HTTP_CODES.get(status.code, (500, "Error"))
    headers: list[tuple[str, str]] = []
    if content_type:
        headers.append(("Content-Type", content_type))
    headers.append(("Content-Length", str(len(body))))
    if status.last_modified > 0:
        headers.append(("Last-Modified", http_date(status.last_modified)))
    if status.code == ProtocolStatusCode.MOVED and status.args:
        headers.append(("Location", status.args[0]))
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    exchange = HttpExchange(url=url, method="GET", request_target=target, http_version="1.1",
                            request_headers=[], status=code, reason=reason, response_headers=headers,
                            raw_body=body, date=datetime.now(UTC), ip=ip, truncated=truncated)
    content = None
    if status.code == ProtocolStatusCode.SUCCESS:
        metadata = {TRUNCATED: "true", TRUNCATED_REASON: truncated} if truncated else {}
        content = Content(url, url, body, content_type, list(headers), metadata)
    elapsed = 0 if started is None else int((time.monotonic() - started) * 1000)
    return ProtocolOutput(status, content, exchange, elapsed)


def failure(code: ProtocolStatusCode, message: str) -> ProtocolStatus:
    """A status with a one-line reason."""
    return ProtocolStatus(code, (message,))


def read_limited(stream: IO[bytes], limit: int, deadline: float | None = None,
                 chunk: int = 65536) -> tuple[bytes, str]:
    """Read ``stream`` to its end, ``limit`` bytes (<0: no limit) or the ``time.monotonic()`` ``deadline``.

    Returns ``(data, cut)``: ``cut`` is ``""`` when the stream ended, ``length`` or ``time`` when
    a limit stopped the reading.  A stream that blocks is stopped by its own timeout only: the
    deadline is checked between reads.
    """
    data = bytearray()
    read = stream.read1 if hasattr(stream, "read1") else stream.read
    while True:
        if deadline is not None and time.monotonic() >= deadline:
            return bytes(data), "time"
        want = chunk if limit < 0 else min(chunk, limit + 1 - len(data))
        if want <= 0:
            break
        block = read(want)
        if not block:
            break
        data += block
    if 0 <= limit < len(data):
        return bytes(data[:limit]), "length"
    return bytes(data), ""
