"""Pieces shared by Nutch's record layouts: gzip'd byte arrays, string arrays, range checks, JSON helpers.

* **compressed byte array** (``WritableUtils.writeCompressedByteArray``, Nutch 0.4 onwards):
  int n + n bytes of one gzip member; n = −1 means ``null``.  Java's ``GZIPOutputStream``
  writes the fixed 10-byte header ``1f 8b 08 00 00000000 00 00`` (no name, mtime 0, OS 0
  in the JDKs of Nutch 0.x), deflate data at the default level (6) and the CRC-32/size
  trailer.  :func:`java_gzip` writes the same; :func:`write_compressed` writes back the gzip
  bytes a record was read with when they still hold its payload (their CRC-32 and size
  match), so a record read from a file is written back byte for byte.
* **compressed string** — a compressed byte array of UTF-8 (``readCompressedString``).
* **string array** (``WritableUtils.writeStringArray``) — int n (−1 = ``null``) + n ×
  ``writeString`` (int length + UTF-8, −1 = ``null``); the compressed variant has n ×
  compressed string.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.javastrings import decode_text, encode_text
from gossamer.store.hadoop.primitives import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, Cursor, Output

JAVA_GZIP_HEADER = bytes.fromhex("1f8b0800000000000000")
"""The header ``java.util.zip.GZIPOutputStream`` writes (Java 1.4–15: OS byte 0)."""

_TRAILER = struct.Struct("<II")
_FLOAT = struct.Struct(">f")


def java_gzip(data: bytes) -> bytes:
    """``data`` as Java's ``GZIPOutputStream`` writes it (header above, deflate level 6, CRC-32, size)."""
    deflater = zlib.compressobj(6, zlib.DEFLATED, -15, 8)
    body = deflater.compress(data) + deflater.flush()
    return JAVA_GZIP_HEADER + body + _TRAILER.pack(zlib.crc32(data), len(data) & 0xFFFFFFFF)


def gzip_holds(stored: bytes, data: bytes) -> bool:
    """True when the gzip member ``stored`` ends with the CRC-32 and size of ``data``."""
    if len(stored) < 18:
        return False
    crc, size = _TRAILER.unpack_from(stored, len(stored) - 8)
    return crc == zlib.crc32(data) and size == len(data) & 0xFFFFFFFF


def gunzip(cursor: Cursor, stored: bytes, start: int, what: str) -> bytes:
    """The payload of the gzip data ``stored`` (read at ``start``); a bad stream is a :class:`HadoopFormatError`."""
    try:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        data = inflater.decompress(stored) + inflater.flush()
        if not inflater.eof:
            raise zlib.error("incomplete gzip stream")
    except zlib.error as exc:
        raise cursor.error(f"gzip data of {what} ({exc})", start) from None
    return data


def read_compressed(cursor: Cursor, what: str) -> tuple[bytes | None, bytes | None]:
    """A compressed byte array: ``(payload, gzip bytes as stored)``, both ``None`` for a null array."""
    start = cursor.pos
    size = cursor.read_int()
    if size == -1:
        return None, None
    if size < 0:
        raise cursor.error(f"a compressed {what} length (or -1), found {size}", start)
    body_start = cursor.pos
    stored = cursor.read_bytes(size, f"compressed {what}")
    return gunzip(cursor, stored, body_start, what), stored


def write_compressed(out: Output, data: bytes | None, stored: bytes | None = None) -> None:
    """A compressed byte array of ``data``: ``stored`` verbatim when it holds ``data``, else :func:`java_gzip`."""
    if data is None:
        out.write_int(-1)
        return
    packed = stored if stored is not None and gzip_holds(stored, data) else java_gzip(data)
    out.write_int(len(packed))
    out.write(packed)


def read_compressed_string(cursor: Cursor, what: str) -> str | None:
    """``WritableUtils.readCompressedString``: a compressed byte array of UTF-8."""
    data, _ = read_compressed(cursor, what)
    return None if data is None else decode_text(data)


def read_string_array(cursor: Cursor, what: str, *, compressed: bool = False) -> list[str | None] | None:
    """``readStringArray`` (or ``readCompressedStringArray``): int n (−1 = null) + n strings."""
    start = cursor.pos
    count = cursor.read_int()
    if count == -1:
        return None
    if count < 0:
        raise cursor.error(f"a {what} length (or -1), found {count}", start)
    if compressed:
        return [read_compressed_string(cursor, what) for _ in range(count)]
    return [cursor.read_string() for _ in range(count)]


def write_string_array(out: Output, values: list[str | None] | tuple[str | None, ...] | None) -> None:
    """``writeStringArray`` of ``values`` (``None`` writes −1)."""
    if values is None:
        out.write_int(-1)
        return
    out.write_int(len(values))
    for value in values:
        out.write_string(value)


def check_int(value: int, bits: int, what: str) -> int:
    """``value`` if it fits a signed Java integer of ``bits`` bits, else :class:`HadoopFormatError`."""
    low, high = {8: (-128, 127), 16: (-32768, 32767), 32: (INT_MIN, INT_MAX), 64: (LONG_MIN, LONG_MAX)}[bits]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise HadoopFormatError(f"{what}: an integer {low}..{high}, found {value!r}")
    return value


def write_float32(out: Output, value: float, what: str) -> None:
    """A Java ``float`` (values beyond float32's range are refused, not turned into infinity)."""
    try:
        out.write(_FLOAT.pack(value))
    except (OverflowError, struct.error):
        raise HadoopFormatError(f"{what}: a value in float32 range, found {value!r}") from None


def write_text(out: Output, value: str, what: str) -> None:
    """``Text.writeString`` of a required string (``None`` is refused, as Java would throw)."""
    if not isinstance(value, str):
        raise HadoopFormatError(f"{what}: a string, found {value!r}")
    out.write_text(value)


def write_utf8(out: Output, value: str, what: str) -> None:
    """The old ``UTF8.writeString`` of a required string."""
    if not isinstance(value, str):
        raise HadoopFormatError(f"{what}: a string, found {value!r}")
    out.write_utf8_class(value)


def json_bytes(value: bytes | None) -> Any:
    """Raw bytes as ``{"base64": …}`` (``None`` stays ``None``)."""
    return None if value is None else {"base64": base64.b64encode(value).decode("ascii")}


def utf8_bytes(text: str) -> bytes:
    """The UTF-8 bytes Java's ``String.getBytes("UTF-8")`` gives for a decoded ``text``."""
    return encode_text(text)
