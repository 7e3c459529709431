"""What plugin ``protocol-http`` makes of an answer, whichever client read it (lean or aiohttp).

:func:`status_for_http` is Nutch's status mapping (reference §4); :func:`build_output` turns
one answer (:class:`Answer`: status line, raw header fields, body as transferred and decoded,
truncation, peer) and its request into an :class:`HttpOutput` with its ``Content`` and
``HttpExchange`` (the WARC record pair); :func:`failure` and :func:`refused` are the outputs
without an answer.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import urljoin

from gossamer.core import (
    DECODING_ERROR,
    TRUNCATED,
    TRUNCATED_REASON,
    Content,
    HttpExchange,
    ProtocolStatus,
    ProtocolStatusCode,
    http_date,
)
from gossamer.plugins.api import ProtocolOutput
from gossamer.plugins.builtin.address_refusal import REFUSED_PREFIX

_NAMED = {400: ProtocolStatusCode.GONE, 401: ProtocolStatusCode.ACCESS_DENIED,
          404: ProtocolStatusCode.NOTFOUND, 410: ProtocolStatusCode.GONE}


def status_for_http(code: int, url: str, location: str | None) -> ProtocolStatus:
    """Nutch's HTTP → ProtocolStatus mapping (reference §4); redirects carry the resolved target."""
    if code == 200:
        return ProtocolStatus(ProtocolStatusCode.SUCCESS)
    if code == 304:
        return ProtocolStatus(ProtocolStatusCode.NOTMODIFIED)
    if 300 <= code < 400:
        target = urljoin(url, location or "")
        temp = code in (302, 303, 307)
        return ProtocolStatus(ProtocolStatusCode.TEMP_MOVED if temp else ProtocolStatusCode.MOVED, (target,))
    if code in _NAMED:
        return ProtocolStatus(_NAMED[code], (f"Http code={code}, url={url}",))
    return ProtocolStatus(ProtocolStatusCode.EXCEPTION, (f"Http code={code}, url={url}",))


@dataclass
class HttpOutput(ProtocolOutput):
    """A :class:`ProtocolOutput` with the response headers (names as sent; a repeated name: its first value)."""

    headers: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Request:
    """A request as sent: target, header fields in order, HTTP version, and when it started."""

    url: str
    target: str
    headers: list[tuple[str, str]]
    version: str
    started: float
    """``time.monotonic()`` at the start (for the response time)."""
    date: datetime


@dataclass(slots=True)
class Answer:
    """An answer as received: ``lookup`` finds a header's first value by its lower-cased name."""

    status: int
    reason: str
    version: str
    header_list: list[tuple[str, str]]
    lookup: Mapping[str, str]
    raw: bytes
    content: bytes
    truncated: str
    decoding_error: str
    peer: str | None


def build_output(request: Request, answer: Answer) -> HttpOutput:
    """The plugin's output for one answer (status, Content, HttpExchange, headers, response time)."""
    url, lookup = request.url, answer.lookup
    status = status_for_http(answer.status, url, lookup.get("location"))
    if status.code == ProtocolStatusCode.SUCCESS:
        modified = lookup.get("last-modified")
        when = http_date(modified) if modified else None
        if when is not None:
            status.last_modified = int(when.timestamp() * 1000)
    metadata: dict[str, str] = {}
    if answer.truncated:
        metadata[TRUNCATED] = "true"
        metadata[TRUNCATED_REASON] = answer.truncated
    if answer.decoding_error:
        metadata[DECODING_ERROR] = answer.decoding_error
    content = Content(url, url, answer.content, lookup.get("content-type", ""), answer.header_list, metadata)
    exchange = HttpExchange(
        url=url, method="GET", request_target=request.target, http_version=answer.version,
        request_headers=request.headers, status=answer.status, reason=answer.reason,
        response_headers=answer.header_list, raw_body=answer.raw, date=request.date, ip=answer.peer,
        truncated=answer.truncated, request_version=request.version)
    headers: dict[str, str] = {}
    for name, value in answer.header_list:
        headers.setdefault(name, value)
    return HttpOutput(status, content, exchange, elapsed_ms(request.started), headers)


def elapsed_ms(started: float) -> int:
    """Milliseconds since ``started`` (a ``time.monotonic()`` value)."""
    return int((time.monotonic() - started) * 1000)


def failure(exc: BaseException, started: float) -> HttpOutput:
    """EXCEPTION with the error's type and message (no answer, or one that broke off)."""
    message = type(exc).__name__ + (f": {exc}" if str(exc) else "")
    return HttpOutput(ProtocolStatus(ProtocolStatusCode.EXCEPTION, (message,)), response_ms=elapsed_ms(started))


def head_timeout(started: float) -> HttpOutput:
    """EXCEPTION: the status line and headers did not all arrive in time."""
    waited = time.monotonic() - started
    return HttpOutput(ProtocolStatus(ProtocolStatusCode.EXCEPTION, (
        f"TimeoutError: no complete response headers after {waited:.1f} s "
        "(http.timeout.headers / http.time.limit)",)), response_ms=int(waited * 1000))


def refused(reason: str) -> HttpOutput:
    """The SSRF guard said no: ACCESS_DENIED (fetch_gone in the crawldb) with the guard's reason."""
    return HttpOutput(ProtocolStatus(ProtocolStatusCode.ACCESS_DENIED, (f"{REFUSED_PREFIX}{reason}",)))
