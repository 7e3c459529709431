"""Reading fetched pages back from a segment's WARC files for the ``parse`` job.

The fetcher stores each response as transferred (``Content-Encoding`` still applied,
see :mod:`gossamer.crawl.fetch.warc`).  :func:`read_responses` yields one
:class:`~gossamer.core.records.Content` per ``response`` record with the body
decoded as the fetcher decodes it: gzip, deflate (zlib-wrapped or raw) and br,
never more than the decoded-size cap (the smaller of ``http.content.limit`` and
``http.content.limit.decompressed`` when set); a body cut by the cap, or stored
with ``WARC-Truncated``, is flagged ``http.content.truncated``, and a body that
cannot be fully decoded keeps what was decoded and is flagged
``http.content.decoding.error``.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import brotli
from fastwarc.warc import ArchiveIterator, WarcRecordType

from gossamer.core import (
    DECODING_ERROR,
    DECOMPRESSED_LIMIT_PROPERTY,
    DEFAULT_DECOMPRESSED_LIMIT,
    TRUNCATED,
    TRUNCATED_REASON,
    WARC_RECORD_KEY,
    Content,
    Settings,
    SettingsError,
)

CHUNK = 65536


@dataclass
class Response:
    """One stored HTTP response: its HTTP status and the decoded content."""

    status: int
    content: Content


def decoded_size_cap(settings: Settings) -> int:
    """Largest decoded body kept, as the HTTP protocol computes it."""
    try:
        decompressed = settings.get_int(DECOMPRESSED_LIMIT_PROPERTY)
    except SettingsError:
        decompressed = DEFAULT_DECOMPRESSED_LIMIT
    caps = [c for c in (settings.get_int("http.content.limit"), decompressed) if c >= 0]
    return min(caps) if caps else DEFAULT_DECOMPRESSED_LIMIT


def decode_body(raw: bytes, encoding: str, cap: int) -> tuple[bytes, bool, str]:
    """``(decoded body, cut by the cap, error text)`` of a body sent with ``Content-Encoding: encoding``."""
    encoding = encoding.strip().lower()
    if encoding in ("gzip", "x-gzip"):
        decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
    elif encoding == "deflate":
        wrapped = len(raw) >= 2 and (raw[0] & 0x0F) == 8 and ((raw[0] << 8) | raw[1]) % 31 == 0
        decoder = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
    elif encoding == "br":
        return _decode_brotli(raw, cap)
    else:
        return (raw[:cap], True, "") if len(raw) > cap else (raw, False, "")
    out = bytearray()
    try:
        for start in range(0, len(raw), CHUNK):
            out += decoder.decompress(raw[start:start + CHUNK], cap + 1 - len(out))
            if len(out) > cap:
                return bytes(out[:cap]), True, ""
    except zlib.error as exc:
        return bytes(out), False, f"{encoding}: {exc}"
    return bytes(out), False, ""


def _decode_brotli(raw: bytes, cap: int) -> tuple[bytes, bool, str]:
    decoder = brotli.Decompressor()
    out = bytearray()
    try:
        for start in range(0, len(raw), CHUNK):
            out += decoder.process(raw[start:start + CHUNK], output_buffer_limit=cap + 1 - len(out))
            if len(out) > cap:
                return bytes(out[:cap]), True, ""
    except brotli.error as exc:
        return bytes(out), False, f"br: {exc}"
    return bytes(out), False, ""


def read_responses(path: Path, cap: int) -> Iterator[Response]:
    """Every HTTP response record of one WARC file, decoded (see the module docstring).

    Raises :class:`OSError` / :class:`ValueError` for a file FastWARC cannot read.
    """
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=True,
                                      auto_decode="none"):
            http = record.http_headers
            url = record.headers.get("WARC-Target-URI")
            if http is None or not url:
                continue
            raw = record.reader.read()
            body, cut, error = decode_body(raw, http.get("Content-Encoding") or "", cap)
            metadata: dict[str, str] = {WARC_RECORD_KEY: f"{path.name}:{record.stream_pos}"}
            stored_cut = record.headers.get("WARC-Truncated")
            if stored_cut or cut:
                metadata[TRUNCATED] = "true"
                metadata[TRUNCATED_REASON] = stored_cut or "length"
            if error:
                metadata[DECODING_ERROR] = error
            headers = [(str(name), str(value)) for name, value in http.astuples()]
            content = Content(url, url, body, http.get("Content-Type") or "", headers, metadata)
            yield Response(http.status_code or 0, content)
