"""Nutch 1.x ``ProtocolStatus`` and ``ParseStatus``: codecs and their values.

``org.apache.nutch.protocol.ProtocolStatus`` (version 2)::

    byte version (2) | byte code | long lastModified | string array args

``org.apache.nutch.parse.ParseStatus`` (version 2)::

    byte version (2) | byte majorCode | short minorCode | string array args

A string array is int n (−1 = ``null``) + n × (int length + UTF-8, −1 = ``null``).  Version 1
of both (Nutch 0.7–0.8) differs only in the args: a *compressed* string array (each string a
gzip'd byte array); it is read, and written back as version 2, as Nutch does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gossamer.store.hadoop.nutch_common import check_int, read_string_array, write_string_array
from gossamer.store.hadoop.primitives import Cursor, Output
from gossamer.store.hadoop.writable import WritableCodec
from gossamer.store.hadoop.writables_compound import read_version, write_version

PROTOCOL_STATUS_CLASS = "org.apache.nutch.protocol.ProtocolStatus"
PARSE_STATUS_CLASS = "org.apache.nutch.parse.ParseStatus"

PROTOCOL_STATUS_NAMES = {
    1: "success", 2: "failed", 10: "proto_not_found", 11: "gone", 12: "moved", 13: "temp_moved",
    14: "notfound", 15: "retry", 16: "exception", 17: "access_denied", 18: "robots_denied",
    19: "redir_exceeded", 20: "notfetching", 21: "notmodified", 22: "wouldblock", 23: "blocked",
}
"""Nutch's names of the protocol status codes (``ProtocolStatus.getName``)."""

PARSE_STATUS_NAMES = {0: "notparsed", 1: "success", 2: "failed"}
"""Nutch's names of the major parse status codes."""


@dataclass(slots=True)
class NutchProtocolStatus:
    """A ``ProtocolStatus``: ``code`` (a signed byte), ``last_modified`` (ms), ``args`` (``None`` = null array)."""

    code: int
    last_modified: int = 0
    args: list[str | None] | None = None

    @property
    def name(self) -> str:
        return PROTOCOL_STATUS_NAMES.get(self.code, "unknown")


@dataclass(slots=True)
class NutchParseStatus:
    """A ``ParseStatus``: ``major`` (signed byte: 0 notparsed, 1 success, 2 failed), ``minor`` (short), ``args``."""

    major: int = 0
    minor: int = 0
    args: list[str | None] | None = None

    @property
    def name(self) -> str:
        return PARSE_STATUS_NAMES.get(self.major, "unknown")


class ProtocolStatusCodec(WritableCodec):
    """``org.apache.nutch.protocol.ProtocolStatus``: reads versions 1 and 2, writes 2."""

    java_class = PROTOCOL_STATUS_CLASS

    def read(self, cursor: Cursor) -> NutchProtocolStatus:
        version = read_version(cursor, (1, 2), "ProtocolStatus")
        code = cursor.read_byte()
        last_modified = cursor.read_long()
        args = read_string_array(cursor, "ProtocolStatus args", compressed=version == 1)
        return NutchProtocolStatus(code, last_modified, args)

    def write(self, out: Output, value: NutchProtocolStatus) -> None:
        write_version(out, 2)
        out.write_byte(check_int(value.code, 8, "ProtocolStatus code"))
        out.write_long(check_int(value.last_modified, 64, "ProtocolStatus lastModified"))
        write_string_array(out, value.args)

    def to_json(self, value: NutchProtocolStatus) -> dict[str, Any]:
        return {"code": value.code, "name": value.name, "last_modified": value.last_modified,
                "args": None if value.args is None else list(value.args)}


class ParseStatusCodec(WritableCodec):
    """``org.apache.nutch.parse.ParseStatus``: reads versions 1 and 2, writes 2."""

    java_class = PARSE_STATUS_CLASS

    def read(self, cursor: Cursor) -> NutchParseStatus:
        version = read_version(cursor, (1, 2), "ParseStatus")
        major = cursor.read_byte()
        minor = cursor.read_short()
        args = read_string_array(cursor, "ParseStatus args", compressed=version == 1)
        return NutchParseStatus(major, minor, args)

    def write(self, out: Output, value: NutchParseStatus) -> None:
        write_version(out, 2)
        out.write_byte(check_int(value.major, 8, "ParseStatus majorCode"))
        out.write_short(check_int(value.minor, 16, "ParseStatus minorCode"))
        write_string_array(out, value.args)

    def to_json(self, value: NutchParseStatus) -> dict[str, Any]:
        return {"major": value.major, "name": value.name, "minor": value.minor,
                "args": None if value.args is None else list(value.args)}


PROTOCOL_STATUS = ProtocolStatusCodec()
PARSE_STATUS = ParseStatusCodec()
