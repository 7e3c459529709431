"""Nutch 0.4 segment records (``net.nutch.*``): Page, FetchListEntry, FetcherOutput, FetcherContent, FetcherText.

Strings are the old ``UTF8`` (unsigned short length + bytes); a compressed byte array is int
n (−1 = null) + n bytes of gzip (see :mod:`.nutch_common`).  Layouts, as the seed lays them
out, with one correction (below)::

    Page            byte 4 | UTF8 url | 16 bytes MD5 | long nextFetch | byte retries |
                    byte fetchInterval (days) | int numOutlinks | float score | float nextScore
    FetchListEntry  byte 2 | byte fetch (1 = fetch) | Page | int n | n × UTF8 anchor
    Outlink         UTF8 url | UTF8 anchor
    FetcherOutput   byte 3 | FetchListEntry | 16 bytes MD5 | byte status | UTF8 title |
                    int n | n × Outlink | long fetchDate                      (0.4)
                    byte 4 | FetchListEntry | 16 bytes MD5 | byte status | long fetchDate  (0.5)
    FetcherContent  byte 1 | compressed byte array (the raw content)
    FetcherText     byte 1 | compressed byte array (the text, UTF-8)

The correction: the seed's Page omits ``int numOutlinks``, which ``Page`` has written since
its version 3 (between the fetch interval and the score); a version-4 Page without it would
be 4 bytes short.  Older versions are read as Nutch 0.x reads them and written back in the
version they were read with: Page v1 (no numOutlinks, score, nextScore), v2 (+ score), v3
(+ numOutlinks); FetchListEntry v1 (no anchors); FetcherOutput v1 (no fetchDate), v2–v3
(title and outlinks).  FetcherOutput status bytes (0.5): 0 retry, 1 success, 2 not found,
4 can't parse.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.javastrings import decode_text
from gossamer.store.hadoop.nutch_common import (
    check_int,
    json_bytes,
    read_compressed,
    utf8_bytes,
    write_compressed,
    write_float32,
    write_utf8,
)
from gossamer.store.hadoop.primitives import Cursor, Output
from gossamer.store.hadoop.writable import WritableCodec
from gossamer.store.hadoop.writables_compound import read_version, write_version

PAGE_CLASS = "net.nutch.db.Page"
FETCH_LIST_ENTRY_CLASS = "net.nutch.pagedb.FetchListEntry"
FETCHER_OUTPUT_CLASS = "net.nutch.fetcher.FetcherOutput"
FETCHER_CONTENT_CLASS = "net.nutch.fetcher.FetcherContent"
FETCHER_TEXT_CLASS = "net.nutch.fetcher.FetcherText"
LEGACY_OUTLINK_CLASS = "net.nutch.fetcher.Outlink"
LEGACY_OUTLINK_ALIASES = ("net.nutch.parse.Outlink",)


def _md5(cursor: Cursor) -> bytes:
    return cursor.read_bytes(16, "MD5 hash")


def _write_md5(out: Output, value: bytes, what: str) -> None:
    if len(value) != 16:
        raise HadoopFormatError(f"{what}: an MD5 hash of 16 bytes, found {len(value)}")
    out.write(value)


def _count(cursor: Cursor, what: str) -> int:
    start = cursor.pos
    count = cursor.read_int()
    if count < 0:
        raise cursor.error(f"a non-negative {what} count, found {count}", start)
    return count


@dataclass(slots=True)
class LegacyPage:
    """A webdb ``Page``; ``fetch_interval`` is in days; ``version`` (1–4) selects the fields written."""

    url: str
    md5: bytes
    next_fetch: int = 0
    retries: int = 0
    fetch_interval: int = 30
    num_outlinks: int = 0
    score: float = 1.0
    next_score: float = 1.0
    version: int = 4


@dataclass(slots=True)
class FetchListEntry:
    """A fetchlist entry: whether to fetch, the page, the anchors of links to it."""

    fetch: bool
    page: LegacyPage
    anchors: list[str] = field(default_factory=list)
    version: int = 2


@dataclass(frozen=True, slots=True)
class LegacyOutlink:
    """An outlink of Nutch 0.4/0.5: URL and anchor (old ``UTF8`` strings)."""

    url: str
    anchor: str = ""


@dataclass(slots=True)
class FetcherOutput:
    """The fetcher's record of one URL; ``title``/``outlinks`` exist in versions ≤ 3 only."""

    entry: FetchListEntry
    md5: bytes
    status: int
    fetch_date: int = 0
    title: str = ""
    outlinks: list[LegacyOutlink] = field(default_factory=list)
    version: int = 4


@dataclass(slots=True)
class Compressed:
    """The payload of a compressed byte array (``None`` = null) and the gzip bytes it was read from.

    ``stored`` takes no part in equality; it is written back when it still holds ``data``.
    """

    data: bytes | None
    stored: bytes | None = field(default=None, compare=False, repr=False)


class PageCodec(WritableCodec):
    java_class = PAGE_CLASS

    def read(self, cursor: Cursor) -> LegacyPage:
        version = read_version(cursor, (1, 2, 3, 4), "Page")
        page = LegacyPage(cursor.read_utf8_class(), _md5(cursor), cursor.read_long(), cursor.read_byte(),
                          cursor.read_byte(), version=version)
        page.num_outlinks = cursor.read_int() if version > 2 else 0
        page.score = cursor.read_float() if version > 1 else 1.0
        page.next_score = cursor.read_float() if version > 3 else 1.0
        return page

    def write(self, out: Output, value: LegacyPage) -> None:
        if value.version not in (1, 2, 3, 4):
            raise HadoopFormatError(f"Page version 1..4, found {value.version}")
        write_version(out, value.version)
        write_utf8(out, value.url, "Page url")
        _write_md5(out, value.md5, "Page md5")
        out.write_long(check_int(value.next_fetch, 64, "Page nextFetch"))
        out.write_byte(check_int(value.retries, 8, "Page retries"))
        out.write_byte(check_int(value.fetch_interval, 8, "Page fetchInterval"))
        if value.version > 2:
            out.write_int(check_int(value.num_outlinks, 32, "Page numOutlinks"))
        if value.version > 1:
            write_float32(out, value.score, "Page score")
        if value.version > 3:
            write_float32(out, value.next_score, "Page nextScore")

    def to_json(self, value: LegacyPage) -> dict[str, Any]:
        return {"url": value.url, "md5": value.md5.hex(), "next_fetch": value.next_fetch,
                "retries": value.retries, "fetch_interval_days": value.fetch_interval,
                "num_outlinks": value.num_outlinks, "score": value.score, "next_score": value.next_score}


PAGE = PageCodec()


class FetchListEntryCodec(WritableCodec):
    java_class = FETCH_LIST_ENTRY_CLASS

    def read(self, cursor: Cursor) -> FetchListEntry:
        version = read_version(cursor, (1, 2), "FetchListEntry")
        fetch = cursor.read_byte() != 0
        page = PAGE.read(cursor)
        anchors = [cursor.read_utf8_class() for _ in range(_count(cursor, "anchor"))] if version > 1 else []
        return FetchListEntry(fetch, page, anchors, version)

    def write(self, out: Output, value: FetchListEntry) -> None:
        if value.version not in (1, 2):
            raise HadoopFormatError(f"FetchListEntry version 1..2, found {value.version}")
        write_version(out, value.version)
        out.write_byte(1 if value.fetch else 0)
        PAGE.write(out, value.page)
        if value.version > 1:
            out.write_int(len(value.anchors))
            for anchor in value.anchors:
                write_utf8(out, anchor, "FetchListEntry anchor")
        elif value.anchors:
            raise HadoopFormatError("FetchListEntry version 1 has no anchors")

    def to_json(self, value: FetchListEntry) -> dict[str, Any]:
        return {"fetch": value.fetch, "page": PAGE.to_json(value.page), "anchors": list(value.anchors)}


FETCH_LIST_ENTRY = FetchListEntryCodec()


class LegacyOutlinkCodec(WritableCodec):
    java_class = LEGACY_OUTLINK_CLASS

    def read(self, cursor: Cursor) -> LegacyOutlink:
        return LegacyOutlink(cursor.read_utf8_class(), cursor.read_utf8_class())

    def write(self, out: Output, value: LegacyOutlink) -> None:
        write_utf8(out, value.url, "Outlink url")
        write_utf8(out, value.anchor, "Outlink anchor")

    def to_json(self, value: LegacyOutlink) -> dict[str, Any]:
        return {"url": value.url, "anchor": value.anchor}


LEGACY_OUTLINK = LegacyOutlinkCodec()


def read_outlinks(cursor: Cursor) -> list[LegacyOutlink]:
    """The outlink list: int n + n × Outlink."""
    return [LEGACY_OUTLINK.read(cursor) for _ in range(_count(cursor, "outlink"))]


def write_outlinks(out: Output, outlinks: list[LegacyOutlink]) -> None:
    out.write_int(len(outlinks))
    for outlink in outlinks:
        LEGACY_OUTLINK.write(out, outlink)


class FetcherOutputCodec(WritableCodec):
    """``FetcherOutput`` versions 1–4 (0.4 writes 3, 0.5 writes 4); written in the value's version."""

    java_class = FETCHER_OUTPUT_CLASS

    def read(self, cursor: Cursor) -> FetcherOutput:
        version = read_version(cursor, (1, 2, 3, 4), "FetcherOutput")
        entry = FETCH_LIST_ENTRY.read(cursor)
        md5 = _md5(cursor)
        status = cursor.read_byte()
        title, outlinks = "", []
        if version < 4:
            title = cursor.read_utf8_class()
            outlinks = read_outlinks(cursor)
        fetch_date = cursor.read_long() if version > 1 else 0
        return FetcherOutput(entry, md5, status, fetch_date, title, outlinks, version)

    def write(self, out: Output, value: FetcherOutput) -> None:
        if value.version not in (1, 2, 3, 4):
            raise HadoopFormatError(f"FetcherOutput version 1..4, found {value.version}")
        write_version(out, value.version)
        FETCH_LIST_ENTRY.write(out, value.entry)
        _write_md5(out, value.md5, "FetcherOutput md5")
        out.write_byte(check_int(value.status, 8, "FetcherOutput status"))
        if value.version < 4:
            write_utf8(out, value.title, "FetcherOutput title")
            write_outlinks(out, value.outlinks)
        if value.version > 1:
            out.write_long(check_int(value.fetch_date, 64, "FetcherOutput fetchDate"))

    def to_json(self, value: FetcherOutput) -> dict[str, Any]:
        result = {"version": value.version, "entry": FETCH_LIST_ENTRY.to_json(value.entry),
                  "md5": value.md5.hex(), "status": value.status, "fetch_date": value.fetch_date}
        if value.version < 4:
            result["title"] = value.title
            result["outlinks"] = [LEGACY_OUTLINK.to_json(link) for link in value.outlinks]
        return result


class CompressedRecordCodec(WritableCodec):
    """A version byte (1) + one compressed byte array: FetcherContent (bytes) and FetcherText (UTF-8 text).

    The value is :class:`Compressed` (``data`` the raw bytes; for text, the UTF-8 bytes —
    :func:`compressed_text` and :func:`text_compressed` convert).
    """

    def __init__(self, java_class: str, text: bool) -> None:
        self.java_class = java_class
        self.text = text

    def read(self, cursor: Cursor) -> Compressed:
        read_version(cursor, (1,), self.java_class.rsplit(".", 1)[-1])
        data, stored = read_compressed(cursor, self.java_class.rsplit(".", 1)[-1])
        return Compressed(data, stored)

    def write(self, out: Output, value: Compressed) -> None:
        write_version(out, 1)
        write_compressed(out, value.data, value.stored)

    def to_json(self, value: Compressed) -> dict[str, Any]:
        if self.text:
            return {"text": compressed_text(value)}
        return {"content": json_bytes(value.data)}


def compressed_text(value: Compressed) -> str | None:
    """The text held by a FetcherText/ParseText payload (UTF-8; undecodable bytes kept as surrogate escapes)."""
    return None if value.data is None else decode_text(value.data)


def text_compressed(text: str | None) -> Compressed:
    """A :class:`Compressed` payload holding ``text`` as UTF-8."""
    return Compressed(None if text is None else utf8_bytes(text))


FETCHER_OUTPUT = FetcherOutputCodec()
FETCHER_CONTENT = CompressedRecordCodec(FETCHER_CONTENT_CLASS, text=False)
FETCHER_TEXT = CompressedRecordCodec(FETCHER_TEXT_CLASS, text=True)
