"""Nutch 1.x segment and linkdb records: Content, ParseData, ParseText, Outlink, Inlink, Inlinks.

Layouts (``Text`` = vint length + UTF-8; ``Metadata`` = int nKeys + per key (Text name,
int nValues, nValues × Text))::

    Content    int −1 | Text url | Text base | int n + n bytes | Text contentType | Metadata
    ParseData  byte 5 | ParseStatus | Text title | int n + n × Outlink | Metadata contentMeta |
               Metadata parseMeta
    ParseText  byte 2 | Text text
    Outlink    Text toUrl | Text anchor | boolean hasMeta | [MapWritable]   (Nutch ≥ 1.8)
    Inlink     Text fromUrl | Text anchor
    Inlinks    int n | n × Inlink

Older forms read (and written back in the current form, as Nutch does): a ``Content``
starting with a non-negative int n is Nutch 0.8's ``CompressedWritable`` — n bytes of zlib
data holding byte version (0, 1 or 2) + url, base, content, contentType, metadata as above;
``ParseText`` version 1 holds a gzip'd string (compressed byte array).  ``ParseData`` before
version 5 used the old ``UTF8`` strings and is refused, as Nutch 1.x refuses it.
Outlink metadata that is empty is written as ``hasMeta = false`` (as Java does).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

from gossamer.store.hadoop.nutch_common import json_bytes, read_compressed_string, write_text
from gossamer.store.hadoop.nutch_crawldatum import MAP_WRITABLE_CLASS
from gossamer.store.hadoop.nutch_status import PARSE_STATUS, NutchParseStatus
from gossamer.store.hadoop.primitives import Cursor, Output
from gossamer.store.hadoop.writable import WritableCodec, WritableRegistry
from gossamer.store.hadoop.writables_compound import NutchMetadataCodec, read_version, write_version

CONTENT_CLASS = "org.apache.nutch.protocol.Content"
PARSE_DATA_CLASS = "org.apache.nutch.parse.ParseData"
PARSE_TEXT_CLASS = "org.apache.nutch.parse.ParseText"
OUTLINK_CLASS = "org.apache.nutch.parse.Outlink"
INLINK_CLASS = "org.apache.nutch.crawl.Inlink"
INLINKS_CLASS = "org.apache.nutch.crawl.Inlinks"

METADATA = NutchMetadataCodec()


@dataclass(slots=True)
class NutchOutlink:
    """An ``Outlink``; ``metadata`` is the decoded ``MapWritable`` or ``None``."""

    to_url: str
    anchor: str = ""
    metadata: dict[Any, Any] | None = None


@dataclass(slots=True)
class NutchInlink:
    """An ``Inlink`` (linkdb)."""

    from_url: str
    anchor: str = ""


@dataclass(slots=True)
class NutchContent:
    """A ``Content``; ``version`` is −1 or the inner version of an old compressed record (not compared)."""

    url: str
    base: str
    content: bytes
    content_type: str
    metadata: dict[str, list[str]] = field(default_factory=dict)
    version: int = field(default=-1, compare=False)


@dataclass(slots=True)
class NutchParseData:
    """A ``ParseData`` (version 5)."""

    status: NutchParseStatus
    title: str = ""
    outlinks: list[NutchOutlink] = field(default_factory=list)
    content_meta: dict[str, list[str]] = field(default_factory=dict)
    parse_meta: dict[str, list[str]] = field(default_factory=dict)


def _count(cursor: Cursor, what: str) -> int:
    start = cursor.pos
    count = cursor.read_int()
    if count < 0:
        raise cursor.error(f"a non-negative {what} count, found {count}", start)
    return count


class OutlinkCodec(WritableCodec):
    """``org.apache.nutch.parse.Outlink`` (with the metadata flag of Nutch ≥ 1.8)."""

    java_class = OUTLINK_CLASS

    def __init__(self, registry: WritableRegistry) -> None:
        self.registry = registry

    def read(self, cursor: Cursor) -> NutchOutlink:
        to_url = cursor.read_text()
        anchor = cursor.read_text()
        metadata = self.registry.get(MAP_WRITABLE_CLASS).read(cursor) if cursor.read_boolean() else None
        return NutchOutlink(to_url, anchor, metadata)

    def write(self, out: Output, value: NutchOutlink) -> None:
        write_text(out, value.to_url, "Outlink toUrl")
        write_text(out, value.anchor, "Outlink anchor")
        out.write_boolean(bool(value.metadata))
        if value.metadata:
            self.registry.get(MAP_WRITABLE_CLASS).write(out, value.metadata)

    def to_json(self, value: NutchOutlink) -> dict[str, Any]:
        meta = None if value.metadata is None else self.registry.get(MAP_WRITABLE_CLASS).to_json(value.metadata)
        return {"to_url": value.to_url, "anchor": value.anchor, "metadata": meta}


class InlinkCodec(WritableCodec):
    """``org.apache.nutch.crawl.Inlink``."""

    java_class = INLINK_CLASS

    def read(self, cursor: Cursor) -> NutchInlink:
        return NutchInlink(cursor.read_text(), cursor.read_text())

    def write(self, out: Output, value: NutchInlink) -> None:
        write_text(out, value.from_url, "Inlink fromUrl")
        write_text(out, value.anchor, "Inlink anchor")

    def to_json(self, value: NutchInlink) -> dict[str, Any]:
        return {"from_url": value.from_url, "anchor": value.anchor}


INLINK = InlinkCodec()


class InlinksCodec(WritableCodec):
    """``org.apache.nutch.crawl.Inlinks``: a ``list`` of :class:`NutchInlink` in file order."""

    java_class = INLINKS_CLASS

    def read(self, cursor: Cursor) -> list[NutchInlink]:
        return [INLINK.read(cursor) for _ in range(_count(cursor, "Inlinks"))]

    def write(self, out: Output, value: list[NutchInlink]) -> None:
        out.write_int(len(value))
        for inlink in value:
            INLINK.write(out, inlink)

    def to_json(self, value: list[NutchInlink]) -> dict[str, Any]:
        return {"inlinks": [INLINK.to_json(inlink) for inlink in value]}


class ContentCodec(WritableCodec):
    """``org.apache.nutch.protocol.Content``: the version −1 form, and Nutch 0.8's compressed form on read."""

    java_class = CONTENT_CLASS

    def read(self, cursor: Cursor) -> NutchContent:
        start = cursor.pos
        size_or_version = cursor.read_int()
        if size_or_version >= 0:
            return self._read_compressed(cursor, size_or_version)
        if size_or_version != -1:
            raise cursor.error(f"Content version -1 (or a compressed size), found {size_or_version}", start)
        return self._read_fields(cursor, -1)

    @staticmethod
    def _read_fields(cursor: Cursor, version: int) -> NutchContent:
        url = cursor.read_text()
        base = cursor.read_text()
        data = cursor.read_bytes(_count(cursor, "Content byte"), "Content bytes")
        content_type = cursor.read_text()
        return NutchContent(url, base, data, content_type, METADATA.read(cursor), version)

    def _read_compressed(self, cursor: Cursor, size: int) -> NutchContent:
        start = cursor.pos
        packed = cursor.read_bytes(size, "compressed Content")
        try:
            inner = zlib.decompress(packed)
        except zlib.error as exc:
            raise cursor.error(f"zlib data of a compressed Content ({exc})", start) from None
        inner_cursor = Cursor(inner, name=f"{cursor.name} (Content inflated from byte {cursor.base + start})")
        version = read_version(inner_cursor, (0, 1, 2), "compressed Content")
        content = self._read_fields(inner_cursor, version)
        if inner_cursor.pos != inner_cursor.end:
            raise inner_cursor.error(f"end of the compressed Content, found {inner_cursor.remaining()} more bytes")
        return content

    def write(self, out: Output, value: NutchContent) -> None:
        out.write_int(-1)
        write_text(out, value.url, "Content url")
        write_text(out, value.base, "Content base")
        out.write_int(len(value.content))
        out.write(value.content)
        write_text(out, value.content_type, "Content contentType")
        METADATA.write(out, value.metadata)

    def to_json(self, value: NutchContent) -> dict[str, Any]:
        return {"url": value.url, "base": value.base, "content_type": value.content_type,
                "metadata": value.metadata, "content": json_bytes(value.content)}


class ParseTextCodec(WritableCodec):
    """``org.apache.nutch.parse.ParseText``: the text as ``str``; reads versions 1 (gzip) and 2, writes 2."""

    java_class = PARSE_TEXT_CLASS

    def read(self, cursor: Cursor) -> str:
        version = read_version(cursor, (1, 2), "ParseText")
        if version == 1:
            return read_compressed_string(cursor, "ParseText text") or ""
        return cursor.read_text()

    def write(self, out: Output, value: str) -> None:
        write_version(out, 2)
        write_text(out, value, "ParseText text")

    def to_json(self, value: str) -> dict[str, Any]:
        return {"text": value}


class ParseDataCodec(WritableCodec):
    """``org.apache.nutch.parse.ParseData`` version 5."""

    java_class = PARSE_DATA_CLASS

    def __init__(self, registry: WritableRegistry) -> None:
        self.outlink = OutlinkCodec(registry)

    def read(self, cursor: Cursor) -> NutchParseData:
        read_version(cursor, (5,), "ParseData")
        status = PARSE_STATUS.read(cursor)
        title = cursor.read_text()
        outlinks = [self.outlink.read(cursor) for _ in range(_count(cursor, "ParseData outlink"))]
        return NutchParseData(status, title, outlinks, METADATA.read(cursor), METADATA.read(cursor))

    def write(self, out: Output, value: NutchParseData) -> None:
        write_version(out, 5)
        PARSE_STATUS.write(out, value.status)
        write_text(out, value.title, "ParseData title")
        out.write_int(len(value.outlinks))
        for outlink in value.outlinks:
            self.outlink.write(out, outlink)
        METADATA.write(out, value.content_meta)
        METADATA.write(out, value.parse_meta)

    def to_json(self, value: NutchParseData) -> dict[str, Any]:
        return {"status": PARSE_STATUS.to_json(value.status), "title": value.title,
                "outlinks": [self.outlink.to_json(link) for link in value.outlinks],
                "content_meta": value.content_meta, "parse_meta": value.parse_meta}
