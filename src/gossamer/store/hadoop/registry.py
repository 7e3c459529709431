"""The default class-name registry: Hadoop's Writables under their own and their older (Nutch 0.x) names.

Aliases: every simple Writable is also known as ``org.apache.nutch.io.X`` (Nutch 0.7–0.8)
and ``net.nutch.io.X`` (Nutch 0.4–0.5); the seed's SequenceFile example names its classes
``long``, read as ``LongWritable``.  :func:`new_registry` returns a fresh copy to extend.
"""

from __future__ import annotations

from gossamer.store.hadoop.writable import WritableCodec, WritableRegistry
from gossamer.store.hadoop.writables_basic import (
    BOOLEAN,
    BYTES,
    DOUBLE,
    FLOAT,
    HADOOP_IO,
    INT,
    LONG,
    MD5_HASH,
    NULL,
    TEXT,
    UTF8,
    VINT,
    VLONG,
)
from gossamer.store.hadoop.writables_compound import MapWritableCodec, NutchMetadataCodec, PropertiesCodec

OLD_PACKAGES = ("org.apache.nutch.io.", "net.nutch.io.")
"""Where Nutch kept Hadoop's io classes before Hadoop existed."""

EXTRA_ALIASES: dict[str, tuple[str, ...]] = {LONG.java_class: ("long",)}


def _aliases(codec: WritableCodec) -> list[str]:
    simple = codec.java_class.removeprefix(HADOOP_IO)
    names = [package + simple for package in OLD_PACKAGES] if codec.java_class.startswith(HADOOP_IO) else []
    return names + list(EXTRA_ALIASES.get(codec.java_class, ()))


def new_registry() -> WritableRegistry:
    """A registry with every codec of this package (a new object: registering into it changes nothing else)."""
    registry = WritableRegistry()
    for codec in (TEXT, UTF8, BYTES, MD5_HASH, NULL, INT, LONG, FLOAT, DOUBLE, BOOLEAN, VINT, VLONG,
                  MapWritableCodec(registry), PropertiesCodec(), NutchMetadataCodec()):
        registry.register(codec, _aliases(codec))
    return registry


DEFAULT_REGISTRY = new_registry()
"""The registry readers and writers use unless given another; third-party codecs may register here."""
