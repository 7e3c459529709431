"""Writables as codecs: :class:`WritableCodec` (read, write, JSON, Arrow, order) and the class-name registry.

A Writable class of Java is represented by one codec object that turns its serialized bytes
into a plain Python value and back.  :class:`WritableRegistry` maps Java class names
(``org.apache.hadoop.io.Text``, Nutch 0.x's ``net.nutch.io.UTF8``, …) to codecs;
:data:`~gossamer.store.hadoop.registry.DEFAULT_REGISTRY` knows the Hadoop and Nutch ones and a
third-party Writable is added with :meth:`WritableRegistry.register`.

Contract of a codec:

* ``read(cursor)`` consumes exactly the bytes ``write`` produced and returns the value;
* ``write(out, value)`` appends the Java serialization of ``value``;
* ``to_json(value)`` — the ``readseq`` rendering (strings, numbers, booleans, ``null``,
  ``{"base64": …}`` for raw bytes, objects for maps and records);
* ``sort_key(value)`` — a Python value ordered like Java's comparator for the class
  (MapFile keys), or :class:`HadoopFormatError` when the class has no order;
* ``arrow_column(data, offsets)`` — the values serialized back to back in ``data``
  (``offsets`` has n+1 entries) as one Arrow array.  The default decodes value by value
  into the serialized bytes as ``binary``; codecs with a vectorised decoding override it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from gossamer.store.hadoop.arrowcols import binary_array
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import Cursor, Output


@dataclass(frozen=True)
class Typed:
    """A value tagged with its Java class, where the class cannot be inferred (``MapWritable`` entries)."""

    java_class: str
    value: Any


class WritableCodec:
    """How one Java Writable class is read and written (see the module docstring for the contract)."""

    java_class: str = ""
    """The class name written in file headers and ``MapWritable`` class tables."""

    def read(self, cursor: Cursor) -> Any:
        raise NotImplementedError(self.java_class)

    def write(self, out: Output, value: Any) -> None:
        raise NotImplementedError(self.java_class)

    def to_json(self, value: Any) -> Any:
        return value

    def sort_key(self, value: Any) -> Any:
        raise HadoopFormatError(f"{self.java_class} has no key order (it cannot be a MapFile key)")

    def arrow_type(self) -> pa.DataType:
        """The Arrow type :meth:`arrow_column` returns."""
        return pa.binary()

    def arrow_column(self, data: np.ndarray, offsets: np.ndarray) -> pa.Array:
        """Serialized values (``data[offsets[i]:offsets[i+1]]``) as an Arrow array (default: the raw bytes)."""
        return binary_array(data, offsets)

    def serialize(self, value: Any) -> bytes:
        """``value``'s serialized bytes."""
        out = Output()
        self.write(out, value)
        return out.getvalue()

    def deserialize(self, data: bytes | memoryview, *, name: str = "<bytes>", base: int = 0) -> Any:
        """The value serialized in all of ``data`` (trailing bytes are an error)."""
        cursor = Cursor(data, name=name, base=base)
        value = self.read(cursor)
        if cursor.pos != cursor.end:
            raise cursor.error(f"end of {self.java_class} value, found {cursor.end - cursor.pos} more bytes")
        return value

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.java_class}>"


class WritableRegistry:
    """Java class name → :class:`WritableCodec`; a codec may be known under several names (aliases)."""

    def __init__(self) -> None:
        self._codecs: dict[str, WritableCodec] = {}

    def register(self, codec: WritableCodec, aliases: Iterable[str] = ()) -> WritableCodec:
        """Make ``codec`` known under its ``java_class`` and every alias (a later registration wins)."""
        for name in (codec.java_class, *aliases):
            self._codecs[name] = codec
        return codec

    def __contains__(self, name: object) -> bool:
        return name in self._codecs

    def names(self) -> list[str]:
        return sorted(self._codecs)

    def get(self, name: str, *, file: str | None = None, offset: int | None = None) -> WritableCodec:
        """The codec of class ``name``; :class:`HadoopFormatError` (placed at ``file``/``offset``) if unknown."""
        codec = self._codecs.get(name)
        if codec is None:
            raise HadoopFormatError(f"a known Writable class, found {name!r} (register a codec for it)",
                                    file=file, offset=offset)
        return codec

    def copy(self) -> WritableRegistry:
        """A registry with the same entries, to extend without changing this one."""
        other = WritableRegistry()
        other._codecs.update(self._codecs)
        return other
