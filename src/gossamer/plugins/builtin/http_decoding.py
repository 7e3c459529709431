"""Incremental ``Content-Encoding`` decoding with a cap on the decoded size (a bomb costs at most the cap).

Used by plugin ``protocol-http`` for pages and for robots.txt: both read bodies as
transferred and decode them here, chunk by chunk.
"""

from __future__ import annotations

import zlib

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
