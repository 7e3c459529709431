"""The SequenceFile header, every version 1…6: :class:`SequenceFileHeader`, :func:`read_header`, :func:`header_bytes`.

Layout (fields appear from the version noted)::

    'S' 'E' 'Q' version                       4 bytes
    key class, value class                    UTF8 (version < 4) or Text (version >= 4)
    compressed?                               boolean (version >= 3)
    block compressed?                         boolean (version >= 4)
    codec class                               Text, if compressed (version >= 5; before: zlib)
    metadata                                  int n + n x (Text, Text), sorted (version >= 6)
    sync marker                               16 bytes (version >= 2)

Version 1 is the Nutch 0.x layout of the seed (``SEQ\\001`` + two UTF8 class names; no
sync markers, no compression).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gossamer.store.hadoop.compression import DEFAULT_CODEC
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.javastrings import encode_text
from gossamer.store.hadoop.primitives import Cursor, Output
from gossamer.store.hadoop.source import ByteSource

MAGIC = b"SEQ"
CURRENT_VERSION = 6
SYNC_SIZE = 16
SYNC_ESCAPE = -1
NONE, RECORD, BLOCK = "NONE", "RECORD", "BLOCK"
COMPRESSIONS = (NONE, RECORD, BLOCK)
_MAX_HEADER = 1 << 24


@dataclass
class SequenceFileHeader:
    """What a SequenceFile says about itself; ``length`` is the offset of its first record."""

    version: int
    key_class: str
    value_class: str
    compression: str = NONE
    codec_class: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    sync: bytes | None = None
    length: int = 0

    def check(self) -> None:
        """:class:`HadoopFormatError` unless the fields fit the version (what a writer must refuse)."""
        problems = []
        if not 1 <= self.version <= CURRENT_VERSION:
            problems.append(f"version 1..{CURRENT_VERSION}, found {self.version}")
        if self.compression not in COMPRESSIONS:
            problems.append(f"compression NONE/RECORD/BLOCK, found {self.compression!r}")
        if self.compression != NONE and self.version < 3:
            problems.append(f"no compression before version 3 (version {self.version})")
        if self.compression == BLOCK and self.version < 4:
            problems.append(f"no block compression before version 4 (version {self.version})")
        if self.codec_class not in (None, DEFAULT_CODEC.java_class) and self.version < 5:
            problems.append(f"no codec other than DefaultCodec before version 5 (version {self.version})")
        if self.metadata and self.version < 6:
            problems.append(f"no metadata before version 6 (version {self.version})")
        if (self.sync is None) != (self.version < 2) or (self.sync is not None and len(self.sync) != SYNC_SIZE):
            problems.append("a 16-byte sync marker from version 2 on, none before")
        if problems:
            raise HadoopFormatError("; ".join(problems))


def header_bytes(header: SequenceFileHeader) -> bytes:
    """The serialized header."""
    header.check()
    out = Output()
    out.write(MAGIC)
    out.write_byte(header.version)
    for name in (header.key_class, header.value_class):
        if header.version < 4:
            out.write_utf8_class(name)
        else:
            out.write_text(name)
    if header.version >= 3:
        out.write_boolean(header.compression != NONE)
    if header.version >= 4:
        out.write_boolean(header.compression == BLOCK)
    if header.compression != NONE and header.version >= 5:
        out.write_text(header.codec_class or DEFAULT_CODEC.java_class)
    if header.version >= 6:
        out.write_int(len(header.metadata))
        for key in sorted(header.metadata, key=encode_text):
            out.write_text(key)
            out.write_text(header.metadata[key])
    if header.sync is not None:
        out.write(header.sync)
    return out.getvalue()


def read_header(source: ByteSource) -> SequenceFileHeader:
    """Parse the header at the source's start; :class:`HadoopFormatError` for a wrong magic, version or truncation.

    The source is read a few KiB at a time until the header fits (at most 16 MiB).
    """
    probe = 4096
    while True:
        complete = not source.ensure(probe)
        try:
            return _parse_header(source)
        except HadoopFormatError:
            if complete or probe >= _MAX_HEADER:
                raise
            probe *= 4


def _parse_header(source: ByteSource) -> SequenceFileHeader:
    window = source.buf
    cursor = Cursor(window, source.i, name=source.name, base=source.base)
    if len(window) - source.i < 4:
        raise cursor.error("a SequenceFile header ('SEQ' + version), found end of file (truncated)")
    magic = bytes(window[source.i:source.i + 3])
    if magic != MAGIC:
        raise cursor.error(f"'SEQ' magic of a SequenceFile, found {magic!r}")
    cursor.pos += 3
    version = cursor.read_ubyte()
    if not 1 <= version <= CURRENT_VERSION:
        raise cursor.error(f"SequenceFile version 1..{CURRENT_VERSION}, found {version}", cursor.pos - 1)
    if version < 4:
        key_class, value_class = cursor.read_utf8_class(), cursor.read_utf8_class()
    else:
        key_class, value_class = cursor.read_text(), cursor.read_text()
    compressed = cursor.read_boolean() if version >= 3 else False
    block = cursor.read_boolean() if version >= 4 else False
    codec_class = None
    if compressed:
        codec_class = cursor.read_text() if version >= 5 else DEFAULT_CODEC.java_class
    metadata = {}
    if version >= 6:
        count_at = cursor.pos
        count = cursor.read_int()
        if count < 0:
            raise cursor.error(f"a non-negative metadata count, found {count}", count_at)
        for _ in range(count):
            key = cursor.read_text()
            metadata[key] = cursor.read_text()
    sync = cursor.read_bytes(SYNC_SIZE, "sync marker") if version >= 2 else None
    compression = BLOCK if block else RECORD if compressed else NONE
    if block and not compressed:
        raise cursor.error("block compression only with compression on")
    source.i = cursor.pos
    return SequenceFileHeader(version, key_class, value_class, compression, codec_class, metadata, sync,
                              length=source.pos)
