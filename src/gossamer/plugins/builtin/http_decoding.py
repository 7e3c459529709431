"""Incremental ``Content-Encoding`` decoding with a cap on the decoded size (a bomb costs at most the cap).

Used by plugin ``protocol-http`` for pages and for robots.txt: both read bodies as
transferred and decode them here, chunk by chunk.  :class:`CappedBody` is a page body as both
clients (lean and aiohttp) collect it: raw bytes under ``http.content.limit``, decoded under its cap.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import brotli

ENCODINGS = ("gzip", "x-gzip", "deflate", "br")
"""Content-Encodings decoded; anything else passes through unchanged."""


class ContentDecoder:
    """Incremental Content-Encoding decoder whose output never exceeds ``cap`` bytes in total."""

    def __init__(self, encoding: str, cap: int) -> None:
        self.encoding = encoding
        self.cap = cap
        self.size = 0
        self.full = False
        self._zlib: zlib._Decompress | None = None
        self._brotli: brotli.Decompressor | None = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = None  # zlib-wrapped or raw: decided on the first bytes
        elif encoding == "br":
            self._brotli = brotli.Decompressor()
        self._first = True

    def feed(self, data: bytes) -> bytes:
        """Decoded bytes of ``data`` (raises zlib.error / brotli.error on corrupt input)."""
        if self.full or not data:
            return b""
        room = self.cap - self.size
        if self.encoding == "deflate" and self._first:
            self._first = False
            wrapped = len(data) >= 2 and (data[0] & 0x0F) == 8 and ((data[0] << 8) | data[1]) % 31 == 0
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        if self._zlib is not None:
            out = self._zlib.decompress(data, room + 1)
        elif self._brotli is not None:
            out = self._brotli.process(data, output_buffer_limit=room + 1)
        else:
            out = data
        if len(out) > room:
            out = out[:room]
            self.full = True
        self.size += len(out)
        return out


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """``http.content.limit`` (raw bytes, < 0: none), the decoded cap and ``http.partial.truncated``."""

    content_limit: int
    decoded_limit: int
    partial_truncated: bool


class CappedBody:
    """A body as it arrives: the raw parts under ``http.content.limit``, the decoded output under its cap.

    An identity body is capped at the smaller of the two and *is* its decoded content (``identity``:
    nothing is decoded or copied).  ``truncated`` turns ``length`` at a cap; ``error`` holds a
    decoding error (the raw bytes are still kept).
    """

    __slots__ = ("decoded", "decoder", "encoding", "error", "identity", "limit", "parts", "size", "truncated")

    def __init__(self, encoding: str, limits: BodyLimits) -> None:
        self.encoding = encoding
        identity = self.identity = encoding not in ENCODINGS or encoding == "identity"
        self.decoder = None if identity else ContentDecoder(encoding, limits.decoded_limit)
        caps = [c for c in (limits.content_limit, limits.decoded_limit if identity else -1) if c >= 0]
        self.limit = min(caps) if caps else -1
        self.parts: list[bytes | bytearray] = []
        self.decoded = bytearray()
        self.size, self.truncated, self.error = 0, "", ""

    def feed(self, chunk: bytes | bytearray) -> bool:
        """Keep ``chunk`` (cut at the cap); True when reading must stop (a cap was reached)."""
        if 0 <= self.limit < self.size + len(chunk):
            chunk = chunk[:self.limit - self.size]
            self.truncated = "length"
        self.parts.append(chunk)
        self.size += len(chunk)
        decoder = self.decoder
        if decoder is not None and not self.error:
            try:
                self.decoded += decoder.feed(chunk)
            except (zlib.error, brotli.error) as exc:
                self.error = f"{self.encoding}: {exc}"
            if decoder.full:
                self.truncated = "length"
        return bool(self.truncated)


    def raw(self) -> bytes:
        """The raw body kept (one copy at most)."""
        parts = self.parts
        return parts[0] if len(parts) == 1 and isinstance(parts[0], bytes) else b"".join(parts)

    def content(self, raw: bytes) -> bytes:
        """The decoded body (``raw`` itself for an identity body)."""
        return raw if self.identity else bytes(self.decoded)
