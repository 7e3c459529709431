"""Nutch 0.5 segment records: ``net.nutch.protocol.Content``, ``net.nutch.parse.ParseText``, ``ParseData``.

As the seed lays them out (``UTF8`` = unsigned short length + bytes; compressed byte array
= int n (−1 = null) + n bytes of gzip; ``Properties`` = int n + n × (UTF8 key, UTF8 value))::

    Content    byte 1 | UTF8 url | UTF8 base | compressed byte array content |
               UTF8 contentType | Properties metadata
    ParseText  byte 1 | compressed byte array text (UTF-8)
    ParseData  byte 1 | UTF8 title | int n | n × Outlink (UTF8 url, UTF8 anchor) | Properties metadata

All three are ``VersionedWritable``: any version byte other than 1 is refused.  The
0.5 FetcherOutput (version 4) is in :mod:`.nutch_legacy`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gossamer.store.hadoop.nutch_common import json_bytes, read_compressed, write_compressed, write_utf8
from gossamer.store.hadoop.nutch_legacy import (
    LEGACY_OUTLINK,
    Compressed,
    CompressedRecordCodec,
    LegacyOutlink,
    read_outlinks,
    write_outlinks,
)
from gossamer.store.hadoop.primitives import Cursor, Output
from gossamer.store.hadoop.writable import WritableCodec
from gossamer.store.hadoop.writables_compound import PropertiesCodec, read_version, write_version

LEGACY_CONTENT_CLASS = "net.nutch.protocol.Content"
LEGACY_PARSE_TEXT_CLASS = "net.nutch.parse.ParseText"
LEGACY_PARSE_DATA_CLASS = "net.nutch.parse.ParseData"

PROPERTIES = PropertiesCodec()


@dataclass(slots=True)
class LegacyContent:
    """A 0.5 ``Content``; ``stored`` is the gzip the content was read from (not compared)."""

    url: str
    base: str
    content: bytes | None
    content_type: str
    metadata: dict[str, str] = field(default_factory=dict)
    stored: bytes | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class LegacyParseData:
    """A 0.5 ``ParseData``."""

    title: str
    outlinks: list[LegacyOutlink] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)


class LegacyContentCodec(WritableCodec):
    java_class = LEGACY_CONTENT_CLASS

    def read(self, cursor: Cursor) -> LegacyContent:
        read_version(cursor, (1,), "Content")
        url = cursor.read_utf8_class()
        base = cursor.read_utf8_class()
        content, stored = read_compressed(cursor, "Content content")
        content_type = cursor.read_utf8_class()
        return LegacyContent(url, base, content, content_type, PROPERTIES.read(cursor), stored)

    def write(self, out: Output, value: LegacyContent) -> None:
        write_version(out, 1)
        write_utf8(out, value.url, "Content url")
        write_utf8(out, value.base, "Content base")
        write_compressed(out, value.content, value.stored)
        write_utf8(out, value.content_type, "Content contentType")
        PROPERTIES.write(out, value.metadata)

    def to_json(self, value: LegacyContent) -> dict[str, Any]:
        return {"url": value.url, "base": value.base, "content_type": value.content_type,
                "metadata": dict(value.metadata), "content": json_bytes(value.content)}


class LegacyParseDataCodec(WritableCodec):
    java_class = LEGACY_PARSE_DATA_CLASS

    def read(self, cursor: Cursor) -> LegacyParseData:
        read_version(cursor, (1,), "ParseData")
        title = cursor.read_utf8_class()
        outlinks = read_outlinks(cursor)
        return LegacyParseData(title, outlinks, PROPERTIES.read(cursor))

    def write(self, out: Output, value: LegacyParseData) -> None:
        write_version(out, 1)
        write_utf8(out, value.title, "ParseData title")
        write_outlinks(out, value.outlinks)
        PROPERTIES.write(out, value.metadata)

    def to_json(self, value: LegacyParseData) -> dict[str, Any]:
        return {"title": value.title, "outlinks": [LEGACY_OUTLINK.to_json(link) for link in value.outlinks],
                "metadata": dict(value.metadata)}


LEGACY_CONTENT = LegacyContentCodec()
LEGACY_PARSE_DATA = LegacyParseDataCodec()
LEGACY_PARSE_TEXT = CompressedRecordCodec(LEGACY_PARSE_TEXT_CLASS, text=True)
"""0.5 ParseText: same layout as FetcherText; the value is a :class:`Compressed` of UTF-8."""

__all__ = ["LEGACY_CONTENT", "LEGACY_PARSE_DATA", "LEGACY_PARSE_TEXT", "Compressed", "LegacyContent",
           "LegacyParseData"]
