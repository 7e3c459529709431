"""Java ``DataInput``/``DataOutput`` and Hadoop ``WritableUtils`` primitives: :class:`Cursor` and :class:`Output`.

Everything is big-endian, as Java writes it.  Variable-length integers follow
``WritableUtils.writeVLong`` exactly: a value in −112…127 is one byte; otherwise a first
byte −113…−120 (positive) or −121…−128 (negative, the magnitude is ``~value``) says how
many big-endian bytes (1…8) follow.  Strings:

* ``Text`` — vint byte length + UTF-8 (:meth:`Cursor.read_text`);
* old ``UTF8`` — unsigned short byte length + bytes, at most 0xffff/3 = 21845 UTF-16 units
  when written (:meth:`Output.write_utf8_class`; Java's ``UTF8.write`` truncates longer
  strings, here they are refused);
* ``writeUTF`` — unsigned short length + modified UTF-8;
* ``WritableUtils.writeString`` — int length + UTF-8, −1 for ``null``.

A :class:`Cursor` reads a bytes-like buffer from a position; running past its end raises
:class:`~gossamer.store.hadoop.errors.HadoopFormatError` naming the file and the absolute
offset (``base`` + position).
"""

from __future__ import annotations

import struct

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.javastrings import (
    decode_cesu,
    decode_modified_utf8,
    decode_text,
    encode_cesu,
    encode_modified_utf8,
    encode_text,
    utf16_length,
)

UTF8_MAX_UNITS = 0xFFFF // 3
"""The old ``UTF8`` class's limit (21845 UTF-16 units, so three bytes each fit an unsigned short)."""

_SHORT = struct.Struct(">h")
_USHORT = struct.Struct(">H")
_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")
_FLOAT = struct.Struct(">f")
_DOUBLE = struct.Struct(">d")

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1


def vint_size(first: int) -> int:
    """Total bytes of the vint whose first byte is ``first`` (0…255 or −128…127)."""
    signed = first - 256 if first > 127 else first
    if signed >= -112:
        return 1
    return (-119 - signed) if signed < -120 else (-111 - signed)


def encode_vlong(value: int) -> bytes:
    """``WritableUtils.writeVLong`` bytes of ``value`` (a signed 64-bit integer)."""
    if -112 <= value <= 127:
        return bytes((value & 0xFF,))
    if not LONG_MIN <= value <= LONG_MAX:
        raise HadoopFormatError(f"vlong out of range: {value}")
    base = -112
    if value < 0:
        value, base = ~value, -120
    size = (value.bit_length() + 7) // 8
    return bytes(((base - size) & 0xFF,)) + value.to_bytes(size, "big")


def decode_vlong(data: bytes | bytearray | memoryview, pos: int) -> tuple[int, int]:
    """``(value, next position)`` of the vlong at ``data[pos]``; ``IndexError`` if it runs past the end."""
    first = data[pos]
    if first < 128 or first >= 144:  # -112..127
        return (first - 256 if first > 127 else first), pos + 1
    size = vint_size(first)
    end = pos + size
    if end > len(data):
        raise IndexError(pos)
    magnitude = int.from_bytes(data[pos + 1:end], "big")
    return (~magnitude if first < 136 else magnitude), end


class Cursor:
    """A reading position in a bytes-like buffer; ``name`` and ``base`` place errors in the file."""

    __slots__ = ("base", "data", "end", "name", "pos")

    def __init__(self, data: bytes | bytearray | memoryview, pos: int = 0, end: int | None = None,
                 *, name: str = "<bytes>", base: int = 0) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end
        self.name = name
        self.base = base

    def error(self, expected: str, pos: int | None = None) -> HadoopFormatError:
        """A :class:`HadoopFormatError` at ``pos`` (default: here) saying what was ``expected``."""
        return HadoopFormatError(expected, file=self.name, offset=self.base + (self.pos if pos is None else pos))

    def remaining(self) -> int:
        return self.end - self.pos

    def _take(self, size: int, what: str) -> int:
        pos = self.pos
        if size < 0:
            raise self.error(f"non-negative length of {what}, found {size}")
        if pos + size > self.end:
            raise self.error(f"{size} bytes of {what}, found {self.end - pos} (truncated)")
        self.pos = pos + size
        return pos

    def read_bytes(self, size: int, what: str = "data") -> bytes:
        start = self._take(size, what)
        return bytes(self.data[start:start + size])

    def read_byte(self) -> int:
        """A signed byte (−128…127)."""
        value = self.data[self._take(1, "byte")]
        return value - 256 if value > 127 else value

    def read_ubyte(self) -> int:
        return self.data[self._take(1, "byte")]

    def read_boolean(self) -> bool:
        return self.data[self._take(1, "boolean")] != 0

    def read_short(self) -> int:
        return _SHORT.unpack_from(self.data, self._take(2, "short"))[0]

    def read_ushort(self) -> int:
        return _USHORT.unpack_from(self.data, self._take(2, "unsigned short"))[0]

    def read_int(self) -> int:
        return _INT.unpack_from(self.data, self._take(4, "int"))[0]

    def read_long(self) -> int:
        return _LONG.unpack_from(self.data, self._take(8, "long"))[0]

    def read_float(self) -> float:
        return _FLOAT.unpack_from(self.data, self._take(4, "float"))[0]

    def read_double(self) -> float:
        return _DOUBLE.unpack_from(self.data, self._take(8, "double"))[0]

    def read_vlong(self) -> int:
        if self.pos >= self.end:
            raise self.error("a vint (truncated)")
        first = self.data[self.pos]
        size = vint_size(first)
        start = self._take(size, "vint")
        if size == 1:
            return first - 256 if first > 127 else first
        magnitude = int.from_bytes(self.data[start + 1:start + size], "big")
        return ~magnitude if first < 136 else magnitude

    def read_vint(self) -> int:
        start = self.pos
        value = self.read_vlong()
        if not INT_MIN <= value <= INT_MAX:
            raise self.error(f"a vint in int range, found {value}", start)
        return value

    def read_text(self) -> str:
        """A ``Text``: vint length + UTF-8."""
        size = self.read_vint()
        start = self._take(size, "Text")
        return decode_text(self.data[start:start + size])

    def read_utf8_class(self) -> str:
        """An old ``UTF8``: unsigned short length + bytes."""
        size = self.read_ushort()
        start = self._take(size, "UTF8 string")
        return decode_cesu(self.data[start:start + size])

    def read_java_utf(self) -> str:
        """``DataInput.readUTF``: unsigned short length + modified UTF-8."""
        size = self.read_ushort()
        start = self._take(size, "modified UTF-8 string")
        try:
            return decode_modified_utf8(self.data[start:start + size])
        except UnicodeDecodeError as exc:
            raise self.error(f"modified UTF-8 ({exc.reason})", start) from None

    def read_string(self) -> str | None:
        """``WritableUtils.readString``: int length + UTF-8, −1 for ``null``."""
        size = self.read_int()
        if size == -1:
            return None
        start = self._take(size, "string")
        return decode_text(self.data[start:start + size])


class Output:
    """A growing ``bytearray`` with Java ``DataOutput`` writes (big-endian)."""

    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = bytearray()

    def __len__(self) -> int:
        return len(self.buf)

    def getvalue(self) -> bytes:
        return bytes(self.buf)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.buf += data

    def write_byte(self, value: int) -> None:
        if not -128 <= value <= 255:
            raise HadoopFormatError(f"a byte value, found {value}")
        self.buf.append(value & 0xFF)

    def write_boolean(self, value: bool) -> None:
        self.buf.append(1 if value else 0)

    def write_short(self, value: int) -> None:
        self.buf += _SHORT.pack(value)

    def write_ushort(self, value: int) -> None:
        self.buf += _USHORT.pack(value)

    def write_int(self, value: int) -> None:
        self.buf += _INT.pack(value)

    def write_long(self, value: int) -> None:
        self.buf += _LONG.pack(value)

    def write_float(self, value: float) -> None:
        self.buf += _FLOAT.pack(value)

    def write_double(self, value: float) -> None:
        self.buf += _DOUBLE.pack(value)

    def write_vlong(self, value: int) -> None:
        self.buf += encode_vlong(value)

    def write_vint(self, value: int) -> None:
        if not INT_MIN <= value <= INT_MAX:
            raise HadoopFormatError(f"a vint in int range, found {value}")
        self.buf += encode_vlong(value)

    def write_text(self, text: str) -> None:
        data = encode_text(text)
        self.buf += encode_vlong(len(data))
        self.buf += data

    def write_utf8_class(self, text: str) -> None:
        """An old ``UTF8``; more than 21845 UTF-16 units is refused (Java would truncate)."""
        units = utf16_length(text)
        if units > UTF8_MAX_UNITS:
            raise HadoopFormatError(f"a UTF8 string of at most {UTF8_MAX_UNITS} characters, found {units}")
        data = encode_cesu(text)
        self.buf += _USHORT.pack(len(data))
        self.buf += data

    def write_java_utf(self, text: str) -> None:
        data = encode_modified_utf8(text)
        if len(data) > 0xFFFF:
            raise HadoopFormatError(f"a writeUTF string of at most 65535 bytes, found {len(data)}")
        self.buf += _USHORT.pack(len(data))
        self.buf += data

    def write_string(self, text: str | None) -> None:
        if text is None:
            self.buf += _INT.pack(-1)
            return
        data = encode_text(text)
        self.buf += _INT.pack(len(data))
        self.buf += data
