"""Codecs of container Writables: ArrayWritable, MapWritable, Nutch's Properties and Metadata; VersionedWritable.

* ``ArrayWritable`` — int n + n values of one class; the class is not in the bytes (Java
  subclasses fix it), so a codec is made per element class: ``ArrayWritableCodec(TEXT,
  "my.TextArrayWritable")``.  Value: ``list``.
* ``MapWritable`` (``AbstractMapWritable``) — byte n + n × (byte id, ``writeUTF`` class
  name) for classes outside Hadoop's fixed table (ids 1…n, in order of first use), then int
  size + size × (byte key id, key, byte value id, value).  Fixed ids: −127 ArrayWritable …
  −113 VLongWritable (:data:`MAP_CLASS_IDS`).  Value: :class:`WritableMap`, a ``dict`` that
  remembers each entry's classes; a plain ``dict`` is written with classes inferred from the
  Python types (``str`` Text, ``bool`` BooleanWritable, ``int`` LongWritable, ``float``
  DoubleWritable, ``bytes`` BytesWritable, ``None`` NullWritable, ``dict`` MapWritable) or
  given by :class:`~gossamer.store.hadoop.writable.Typed`.
* Nutch 0.5 ``java.util.Properties`` (Content and ParseData metadata) — int count + count ×
  (UTF8 key, UTF8 value).  Value: ``dict[str, str]``.
* Nutch 1.x ``Metadata`` — int nKeys + per key (Text name, int nValues, nValues × Text).
  Value: ``dict[str, list[str]]``.
* ``VersionedWritable`` — a leading version byte: :func:`read_version`, :func:`write_version`.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import Cursor, Output
from gossamer.store.hadoop.writable import Typed, WritableCodec, WritableRegistry
from gossamer.store.hadoop.writables_basic import BOOLEAN, BYTES, DOUBLE, HADOOP_IO, LONG, NULL, TEXT

MAP_CLASS_IDS: dict[int, str] = {
    -127: HADOOP_IO + "ArrayWritable",
    -126: HADOOP_IO + "BooleanWritable",
    -125: HADOOP_IO + "BytesWritable",
    -124: HADOOP_IO + "FloatWritable",
    -123: HADOOP_IO + "IntWritable",
    -122: HADOOP_IO + "LongWritable",
    -121: HADOOP_IO + "MapWritable",
    -120: HADOOP_IO + "MD5Hash",
    -119: HADOOP_IO + "NullWritable",
    -118: HADOOP_IO + "ObjectWritable",
    -117: HADOOP_IO + "SortedMapWritable",
    -116: HADOOP_IO + "Text",
    -115: HADOOP_IO + "TwoDArrayWritable",
    -114: HADOOP_IO + "VIntWritable",
    -113: HADOOP_IO + "VLongWritable",
}
"""``AbstractMapWritable``'s fixed class ids."""

_FIXED_IDS = {name: ident for ident, name in MAP_CLASS_IDS.items()}


def read_version(cursor: Cursor, accepted: Collection[int], what: str) -> int:
    """The version byte of a ``VersionedWritable``; :class:`HadoopFormatError` unless it is in ``accepted``."""
    start = cursor.pos
    version = cursor.read_ubyte()
    if version not in accepted:
        raise cursor.error(f"{what} version {'/'.join(map(str, sorted(accepted)))}, found {version}", start)
    return version


def write_version(out: Output, version: int) -> None:
    out.write_byte(version)


class ArrayWritableCodec(WritableCodec):
    """``ArrayWritable`` of ``element`` values, known as ``java_class``."""

    def __init__(self, element: WritableCodec, java_class: str = HADOOP_IO + "ArrayWritable") -> None:
        self.element = element
        self.java_class = java_class

    def read(self, cursor: Cursor) -> list[Any]:
        start = cursor.pos
        count = cursor.read_int()
        if count < 0:
            raise cursor.error(f"a non-negative ArrayWritable length, found {count}", start)
        return [self.element.read(cursor) for _ in range(count)]

    def write(self, out: Output, value: list[Any]) -> None:
        out.write_int(len(value))
        for item in value:
            self.element.write(out, item)

    def to_json(self, value: list[Any]) -> list[Any]:
        return [self.element.to_json(item) for item in value]


class WritableMap(dict):  # type: ignore[type-arg]
    """A decoded ``MapWritable``: plain keys and values, plus the Java classes of each entry.

    ``classes[key] = (key class, value class)``; ``custom`` lists the class names of the map's
    own class table in id order (so writing it again gives the same bytes).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.classes: dict[Any, tuple[str, str]] = {}
        self.custom: list[str] = []


def infer_class(value: Any) -> str:
    """The Writable class a plain Python value is written as in a ``MapWritable``."""
    if isinstance(value, Typed):
        return value.java_class
    for kind, codec in ((bool, BOOLEAN), (str, TEXT), (int, LONG), (float, DOUBLE),
                        ((bytes, bytearray, memoryview), BYTES)):
        if isinstance(value, kind):
            return codec.java_class
    if value is None:
        return NULL.java_class
    if isinstance(value, dict):
        return HADOOP_IO + "MapWritable"
    raise HadoopFormatError(f"a value with a known Writable class, found {type(value).__name__} (wrap it in Typed)")


class MapWritableCodec(WritableCodec):
    """``MapWritable``; classes are resolved through ``registry`` (which usually holds this codec too)."""

    java_class = HADOOP_IO + "MapWritable"

    def __init__(self, registry: WritableRegistry) -> None:
        self.registry = registry

    def read(self, cursor: Cursor) -> WritableMap:
        table = dict(MAP_CLASS_IDS)
        result = WritableMap()
        for _ in range(cursor.read_ubyte()):
            ident = cursor.read_byte()
            name = cursor.read_java_utf()
            table[ident] = name
            result.custom.append(name)
        start = cursor.pos
        size = cursor.read_int()
        if size < 0:
            raise cursor.error(f"a non-negative MapWritable size, found {size}", start)
        for _ in range(size):
            key_class = self._class(cursor, table)
            key = self.registry.get(key_class, file=cursor.name, offset=cursor.base + cursor.pos).read(cursor)
            value_class = self._class(cursor, table)
            value = self.registry.get(value_class, file=cursor.name, offset=cursor.base + cursor.pos).read(cursor)
            result[key] = value
            result.classes[key] = (key_class, value_class)
        return result

    @staticmethod
    def _class(cursor: Cursor, table: dict[int, str]) -> str:
        start = cursor.pos
        ident = cursor.read_byte()
        name = table.get(ident)
        if name is None:
            raise cursor.error(f"a MapWritable class id in its class table, found {ident}", start)
        return name

    def write(self, out: Output, value: dict[Any, Any]) -> None:
        known = getattr(value, "classes", {})
        entries = []
        custom: list[str] = list(getattr(value, "custom", []))
        for key, item in value.items():
            key_class, value_class = known.get(key) or (infer_class(key), infer_class(item))
            for name in (key_class, value_class):
                if name not in _FIXED_IDS and name not in custom:
                    custom.append(name)
            entries.append((key_class, key, value_class, item))
        if len(custom) > 127:
            raise HadoopFormatError(f"at most 127 custom classes in a MapWritable, found {len(custom)}")
        ids = {name: index + 1 for index, name in enumerate(custom)}
        ids.update(_FIXED_IDS)
        out.write_byte(len(custom))
        for name in custom:
            out.write_byte(ids[name])
            out.write_java_utf(name)
        out.write_int(len(entries))
        for key_class, key, value_class, item in entries:
            out.write_byte(ids[key_class])
            self.registry.get(key_class).write(out, _plain(key))
            out.write_byte(ids[value_class])
            self.registry.get(value_class).write(out, _plain(item))

    def to_json(self, value: dict[Any, Any]) -> dict[str, Any]:
        """An object: Text keys as they are, other keys as their own JSON text (``5``, ``true``, ``{"md5": …}``)."""
        known = getattr(value, "classes", {})
        rendered = {}
        for key, item in value.items():
            key_class, value_class = known.get(key) or (infer_class(key), infer_class(item))
            json_key = self.registry.get(key_class).to_json(_plain(key))
            rendered[json_key if isinstance(json_key, str) else _json_text(json_key)] = (
                self.registry.get(value_class).to_json(_plain(item)))
        return rendered


def _json_text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _plain(value: Any) -> Any:
    return value.value if isinstance(value, Typed) else value


class PropertiesCodec(WritableCodec):
    """Nutch 0.5's ``java.util.Properties`` metadata: int count + count × (UTF8 key, UTF8 value)."""

    java_class = "java.util.Properties"

    def read(self, cursor: Cursor) -> dict[str, str]:
        start = cursor.pos
        count = cursor.read_int()
        if count < 0:
            raise cursor.error(f"a non-negative property count, found {count}", start)
        result = {}
        for _ in range(count):
            key = cursor.read_utf8_class()
            result[key] = cursor.read_utf8_class()
        return result

    def write(self, out: Output, value: dict[str, str]) -> None:
        out.write_int(len(value))
        for key, item in value.items():
            out.write_utf8_class(key)
            out.write_utf8_class(item)


class NutchMetadataCodec(WritableCodec):
    """Nutch 1.x ``org.apache.nutch.metadata.Metadata``: int nKeys + (Text name, int n, n × Text)."""

    java_class = "org.apache.nutch.metadata.Metadata"

    def read(self, cursor: Cursor) -> dict[str, list[str]]:
        result: dict[str, list[str]] = {}
        for _ in range(self._count(cursor, "key")):
            name = cursor.read_text()
            result[name] = [cursor.read_text() for _ in range(self._count(cursor, "value"))]
        return result

    @staticmethod
    def _count(cursor: Cursor, what: str) -> int:
        start = cursor.pos
        count = cursor.read_int()
        if count < 0:
            raise cursor.error(f"a non-negative Metadata {what} count, found {count}", start)
        return count

    def write(self, out: Output, value: dict[str, list[str]]) -> None:
        out.write_int(len(value))
        for name, values in value.items():
            out.write_text(name)
            present = [item for item in values if item is not None]
            out.write_int(len(present))
            for item in present:
                out.write_text(item)
