"""The string encodings of Java and Hadoop, as pure functions over ``str`` and ``bytes``.

* **UTF-8 of ``Text``** — standard UTF-8.  Bytes that are not UTF-8 decode with
  ``surrogateescape``, so any ``Text`` read from a file is written back byte for byte.
* **modified UTF-8** (``DataOutput.writeUTF``) — U+0000 is ``C0 80``; characters above
  U+FFFF are written as their two UTF-16 surrogates, three bytes each (CESU-8).
* **the old ``UTF8`` class** (Nutch 0.x ``net.nutch.io.UTF8``, Hadoop ``UTF8``) — every
  UTF-16 unit as one to three bytes (like modified UTF-8, but U+0000 stays one zero byte).
"""

from __future__ import annotations

import re

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _split_astral(text: str) -> str:
    """``text`` with every character above U+FFFF replaced by its two UTF-16 surrogates."""

    def pair(match: re.Match[str]) -> str:
        code = ord(match.group()) - 0x10000
        return chr(0xD800 + (code >> 10)) + chr(0xDC00 + (code & 0x3FF))

    return _ASTRAL.sub(pair, text)


def _join_surrogates(text: str) -> str:
    """``text`` with each UTF-16 surrogate pair combined into one character (lone ones kept)."""
    return text.encode("utf-16-be", "surrogatepass").decode("utf-16-be", "surrogatepass")


def encode_text(text: str) -> bytes:
    """UTF-8 of a ``Text`` (undecodable bytes that were read with ``surrogateescape`` come back)."""
    return text.encode("utf-8", "surrogateescape")


def decode_text(data: bytes | memoryview) -> str:
    """A ``Text``'s bytes as ``str``; bytes that are not UTF-8 become ``surrogateescape`` characters."""
    return str(data, "utf-8", "surrogateescape")


def encode_cesu(text: str) -> bytes:
    """The old ``UTF8`` class's bytes: each UTF-16 unit as one, two or three bytes."""
    if text.isascii():
        return text.encode("ascii")
    return _split_astral(text).encode("utf-8", "surrogatepass")


def decode_cesu(data: bytes | memoryview) -> str:
    """Inverse of :func:`encode_cesu` (surrogate pairs are joined into one character)."""
    raw = bytes(data)
    if raw.isascii():
        return raw.decode("ascii")
    return _join_surrogates(raw.decode("utf-8", "surrogatepass"))


def encode_modified_utf8(text: str) -> bytes:
    """``DataOutput.writeUTF``'s bytes (without the 2-byte length)."""
    return encode_cesu(text).replace(b"\x00", b"\xc0\x80")


def decode_modified_utf8(data: bytes | memoryview) -> str:
    """Inverse of :func:`encode_modified_utf8`."""
    return decode_cesu(bytes(data).replace(b"\xc0\x80", b"\x00"))


def utf16_length(text: str) -> int:
    """The number of UTF-16 units of ``text`` (Java's ``String.length()``)."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)
