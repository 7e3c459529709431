"""Codecs of Hadoop's (and Nutch 0.x's) simple Writables: strings, numbers, booleans, bytes, null, MD5.

| class | bytes | Python value | JSON |
|---|---|---|---|
| ``Text`` | vint length + UTF-8 | ``str`` | string |
| ``UTF8`` (old) | unsigned short length + bytes | ``str`` | string |
| ``BytesWritable`` | int length + bytes | ``bytes`` | ``{"base64": …}`` |
| ``MD5Hash`` | 16 bytes | ``bytes`` (16) | ``{"md5": hex}`` |
| ``NullWritable`` | nothing | ``None`` | null |
| ``IntWritable`` / ``LongWritable`` | 4 / 8 bytes | ``int`` | number |
| ``FloatWritable`` / ``DoubleWritable`` | 4 / 8 bytes IEEE | ``float`` | number |
| ``BooleanWritable`` | 1 byte | ``bool`` | true/false |
| ``VIntWritable`` / ``VLongWritable`` | vint | ``int`` | number |

Key order (MapFile): ``Text``, ``UTF8``, ``BytesWritable`` and ``MD5Hash`` by unsigned
bytes of their payload; numbers by value; booleans false before true.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import numpy as np
import pyarrow as pa

from gossamer.store.hadoop.arrowcols import binary_array, fixed_width, strip_prefixes, text_prefix_sizes
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.javastrings import encode_cesu, encode_text
from gossamer.store.hadoop.primitives import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, Cursor, Output
from gossamer.store.hadoop.writable import WritableCodec

HADOOP_IO = "org.apache.hadoop.io."


def _check_range(value: int, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise HadoopFormatError(f"an integer {low}..{high} for {what}, found {value!r}")
    return value


class TextCodec(WritableCodec):
    java_class = HADOOP_IO + "Text"

    def read(self, cursor: Cursor) -> str:
        return cursor.read_text()

    def write(self, out: Output, value: str) -> None:
        out.write_text(value)

    def sort_key(self, value: str) -> bytes:
        return encode_text(value)

    def arrow_type(self) -> pa.DataType:
        return pa.string()

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        if len(offsets) < 2:
            return pa.array([], pa.string())
        prefix = text_prefix_sizes(data, offsets)
        lengths = np.diff(offsets)
        if (prefix == 1).all():
            declared = data[offsets[:-1]].view(np.int8).astype(np.int64)
            if not (declared == lengths - 1).all():
                raise HadoopFormatError("Text values whose vint length matches their size")
        stripped, new_offsets = strip_prefixes(data, offsets, prefix)
        raw = binary_array(stripped, new_offsets)
        try:
            return raw.cast(pa.string())
        except pa.ArrowInvalid:  # not UTF-8: Arrow strings cannot carry the bytes; replace like Java's toString
            return pa.array([b.decode("utf-8", "replace") for b in raw.to_pylist()], pa.string())


class UTF8Codec(WritableCodec):
    """The old ``UTF8`` class (Nutch 0.x, Hadoop before 0.18)."""

    java_class = HADOOP_IO + "UTF8"

    def read(self, cursor: Cursor) -> str:
        return cursor.read_utf8_class()

    def write(self, out: Output, value: str) -> None:
        out.write_utf8_class(value)

    def sort_key(self, value: str) -> bytes:
        return encode_cesu(value)

    def arrow_type(self) -> pa.DataType:
        return pa.string()

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        cursor = Cursor(data.tobytes())
        values = []
        for start in offsets[:-1]:
            cursor.pos = int(start)
            values.append(cursor.read_utf8_class())
        return pa.array(values, pa.string())


class BytesCodec(WritableCodec):
    java_class = HADOOP_IO + "BytesWritable"

    def read(self, cursor: Cursor) -> bytes:
        return cursor.read_bytes(cursor.read_int(), "BytesWritable")

    def write(self, out: Output, value: bytes) -> None:
        out.write_int(len(value))
        out.write(value)

    def to_json(self, value: bytes) -> Any:
        return {"base64": base64.b64encode(value).decode("ascii")}

    def sort_key(self, value: bytes) -> bytes:
        return bytes(value)

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        if len(offsets) < 2:
            return pa.array([], pa.binary())
        lengths = np.diff(offsets)
        if (lengths < 4).any():
            raise HadoopFormatError("BytesWritable values of at least 4 bytes")
        starts = offsets[:-1]
        declared = np.zeros(len(starts), dtype=np.int64)
        for k in range(4):
            declared = (declared << 8) | data[starts + k]
        if not (declared == lengths - 4).all():
            raise HadoopFormatError("BytesWritable values whose int length matches their size")
        stripped, new_offsets = strip_prefixes(data, offsets, np.full(len(starts), 4, dtype=np.int64))
        return binary_array(stripped, new_offsets)


class MD5HashCodec(WritableCodec):
    java_class = HADOOP_IO + "MD5Hash"

    def read(self, cursor: Cursor) -> bytes:
        return cursor.read_bytes(16, "MD5Hash")

    def write(self, out: Output, value: bytes) -> None:
        if len(value) != 16:
            raise HadoopFormatError(f"an MD5Hash of 16 bytes, found {len(value)}")
        out.write(value)

    def to_json(self, value: bytes) -> dict[str, str]:
        return {"md5": bytes(value).hex()}

    def sort_key(self, value: bytes) -> bytes:
        return bytes(value)


class NullCodec(WritableCodec):
    java_class = HADOOP_IO + "NullWritable"

    def read(self, cursor: Cursor) -> None:
        return None

    def write(self, out: Output, value: None) -> None:
        if value is not None:
            raise HadoopFormatError(f"None for NullWritable, found {value!r}")

    def sort_key(self, value: None) -> int:
        return 0

    def arrow_type(self) -> pa.DataType:
        return pa.null()

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        if (np.diff(offsets) != 0).any():
            raise HadoopFormatError("NullWritable values of 0 bytes")
        return pa.nulls(len(offsets) - 1)


class _FixedCodec(WritableCodec):
    """A number of one width and big-endian ``struct`` format."""

    fmt = ">i"
    dtype = ">i4"
    arrow = pa.int32()

    def __init__(self) -> None:
        self._struct = struct.Struct(self.fmt)

    def read(self, cursor: Cursor) -> Any:
        start = cursor.pos
        size = self._struct.size
        if start + size > cursor.end:
            raise cursor.error(f"{size} bytes of {self.java_class}, found {cursor.end - start} (truncated)")
        cursor.pos = start + size
        return self._struct.unpack_from(cursor.data, start)[0]

    def write(self, out: Output, value: Any) -> None:
        out.write(self._struct.pack(self._check(value)))

    def _check(self, value: Any) -> Any:
        return value

    def sort_key(self, value: Any) -> Any:
        return value

    def arrow_type(self) -> pa.DataType:
        return self.arrow

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        numbers = fixed_width(data, offsets, self.dtype)
        if numbers is None:
            raise HadoopFormatError(f"{self.java_class} values of {self._struct.size} bytes")
        return pa.array(numbers, self.arrow)


class IntCodec(_FixedCodec):
    java_class = HADOOP_IO + "IntWritable"

    def _check(self, value: Any) -> int:
        return _check_range(value, INT_MIN, INT_MAX, self.java_class)


class LongCodec(_FixedCodec):
    java_class = HADOOP_IO + "LongWritable"
    fmt, dtype, arrow = ">q", ">i8", pa.int64()

    def _check(self, value: Any) -> int:
        return _check_range(value, LONG_MIN, LONG_MAX, self.java_class)


class FloatCodec(_FixedCodec):
    java_class = HADOOP_IO + "FloatWritable"
    fmt, dtype, arrow = ">f", ">f4", pa.float32()


class DoubleCodec(_FixedCodec):
    java_class = HADOOP_IO + "DoubleWritable"
    fmt, dtype, arrow = ">d", ">f8", pa.float64()


class BooleanCodec(_FixedCodec):
    java_class = HADOOP_IO + "BooleanWritable"
    fmt, dtype, arrow = ">?", ">u1", pa.bool_()

    def read(self, cursor: Cursor) -> bool:
        return cursor.read_boolean()

    def write(self, out: Output, value: bool) -> None:
        out.write_boolean(bool(value))

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        numbers = fixed_width(data, offsets, ">u1")
        if numbers is None:
            raise HadoopFormatError(f"{self.java_class} values of 1 byte")
        return pa.array(numbers != 0, pa.bool_())


class VIntCodec(WritableCodec):
    java_class = HADOOP_IO + "VIntWritable"

    def read(self, cursor: Cursor) -> int:
        return cursor.read_vint()

    def write(self, out: Output, value: int) -> None:
        out.write_vint(_check_range(value, INT_MIN, INT_MAX, self.java_class))

    def sort_key(self, value: int) -> int:
        return value

    def arrow_type(self) -> pa.DataType:
        return pa.int32()

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        cursor = Cursor(data.tobytes())
        cursor.pos = int(offsets[0])
        return pa.array([cursor.read_vint() for _ in range(len(offsets) - 1)], pa.int32())


class VLongCodec(VIntCodec):
    java_class = HADOOP_IO + "VLongWritable"

    def read(self, cursor: Cursor) -> int:
        return cursor.read_vlong()

    def write(self, out: Output, value: int) -> None:
        out.write_vlong(_check_range(value, LONG_MIN, LONG_MAX, self.java_class))

    def arrow_type(self) -> pa.DataType:
        return pa.int64()

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        cursor = Cursor(data.tobytes())
        cursor.pos = int(offsets[0])
        return pa.array([cursor.read_vlong() for _ in range(len(offsets) - 1)], pa.int64())


TEXT = TextCodec()
UTF8 = UTF8Codec()
BYTES = BytesCodec()
MD5_HASH = MD5HashCodec()
NULL = NullCodec()
INT = IntCodec()
LONG = LongCodec()
FLOAT = FloatCodec()
DOUBLE = DoubleCodec()
BOOLEAN = BooleanCodec()
VINT = VIntCodec()
VLONG = VLongCodec()
