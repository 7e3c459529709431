"""Writing SequenceFiles byte for byte as Hadoop does: :class:`SequenceFileWriter`.

* Records (NONE, RECORD): int record length (key + stored value bytes), int key length,
  key bytes, value bytes — with RECORD compression the value alone is compressed.
* Sync (version ≥ 2): before a record, when the position is at least ``sync_interval``
  (Hadoop's ``SYNC_INTERVAL`` = 5 × 1024 × 20 = 102400) past the end of the last sync (0 at
  first), int −1 and the 16-byte marker are written.  Version 1 has no sync marker.
* BLOCK: records are buffered — key lengths (vints), keys, value lengths (vints), values —
  and written as one block when keys + values reach ``block_size`` (Hadoop's
  ``io.seqfile.compress.blocksize``, 1,000,000) and at close: sync escape + marker, vint
  record count, then each buffer as vint compressed length + compressed bytes.

With a given ``sync`` marker the bytes are deterministic; otherwise the marker is random
like Hadoop's (MD5 of a unique id and the time).
"""

from __future__ import annotations

import hashlib
import os
import struct
import time
import uuid
from typing import Any, BinaryIO

from gossamer.store.hadoop.compression import DEFAULT_CODEC, compression_codec
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import Output, encode_vlong
from gossamer.store.hadoop.registry import DEFAULT_REGISTRY
from gossamer.store.hadoop.seqfile_header import (
    BLOCK,
    CURRENT_VERSION,
    NONE,
    RECORD,
    SYNC_ESCAPE,
    SequenceFileHeader,
    header_bytes,
)
from gossamer.store.hadoop.writable import WritableCodec, WritableRegistry
from gossamer.store.place import Place

SYNC_INTERVAL = 5 * 1024 * 20
"""Hadoop's ``SequenceFile.SYNC_INTERVAL`` (Hadoop 1.x/2.x wrote 100 × 20 = 2000)."""

BLOCK_SIZE = 1_000_000
"""``io.seqfile.compress.blocksize``."""

_FLUSH_AT = 1 << 20
_INT = struct.Struct(">i")
_PAIR = struct.Struct(">ii")


def new_sync_marker() -> bytes:
    """A random 16-byte marker, made the way Hadoop makes one (MD5 of a unique id and the time)."""
    return hashlib.md5(f"{uuid.uuid4()}@{time.time_ns()}".encode()).digest()


class SequenceFileWriter:
    """Appends records to a new SequenceFile at ``sink`` (a path, a place or a binary stream).

    ``key_class`` / ``value_class`` are Java class names resolved in ``registry`` (for
    :meth:`append`; :meth:`append_raw` takes bytes already serialized, so any name will do).
    ``codec`` is a compression class name (default ``DefaultCodec``, zlib).  A stream given
    as ``sink`` is not closed by :meth:`close`.
    """

    def __init__(self, sink: str | os.PathLike[str] | Place | BinaryIO, key_class: str, value_class: str, *,
                 compression: str = NONE, codec: str | None = None, metadata: dict[str, str] | None = None,
                 sync: bytes | None = None, version: int = CURRENT_VERSION,
                 registry: WritableRegistry | None = None, sync_interval: int = SYNC_INTERVAL,
                 block_size: int = BLOCK_SIZE, name: str | None = None) -> None:
        self.registry = registry or DEFAULT_REGISTRY
        compression = compression.upper()
        codec_class = None
        if compression != NONE:
            codec_class = compression_codec(codec).java_class if codec else DEFAULT_CODEC.java_class
        self.header = SequenceFileHeader(version, key_class, value_class, compression, codec_class,
                                         dict(metadata or {}), None if version < 2 else (sync or new_sync_marker()))
        head = header_bytes(self.header)
        self.codec = compression_codec(codec_class) if codec_class else None
        self.sync_interval = sync_interval
        self.block_size = block_size
        self._key_codec: WritableCodec | None = None
        self._value_codec: WritableCodec | None = None
        if isinstance(sink, Place):
            self._stream, self._owned, self.name = sink.open_output(), True, name or sink.display()
        elif isinstance(sink, str | os.PathLike):
            self._stream, self._owned, self.name = open(sink, "wb"), True, name or os.fspath(sink)  # noqa: SIM115
        else:
            self._stream, self._owned, self.name = sink, False, name or "<stream>"
        self._pending = bytearray(head)
        self._flushed = 0
        self._last_sync = 0
        self.header.length = len(head)
        self.records = 0
        self._block: list[Output] = [Output(), Output(), Output(), Output()]
        self._block_records = 0
        self.closed = False

    # -- positions ---------------------------------------------------------------------------------------------
    def tell(self) -> int:
        """Bytes written so far (buffered ones included): where the next record or block will begin."""
        return self._flushed + len(self._pending)

    # -- appending ---------------------------------------------------------------------------------------------
    def _codecs(self) -> tuple[WritableCodec, WritableCodec]:
        if self._key_codec is None or self._value_codec is None:
            self._key_codec = self.registry.get(self.header.key_class, file=self.name)
            self._value_codec = self.registry.get(self.header.value_class, file=self.name)
        return self._key_codec, self._value_codec

    def append(self, key: Any, value: Any) -> None:
        """Serialize ``key`` and ``value`` with the header's classes and append them."""
        key_codec, value_codec = self._codecs()
        self.append_raw(key_codec.serialize(key), value_codec.serialize(value))

    def append_raw(self, key: bytes, value: bytes) -> None:
        """Append one record given as serialized key and (uncompressed) value bytes."""
        if self.closed:
            raise HadoopFormatError("an open writer, found a closed one", file=self.name)
        if self.header.compression == BLOCK:
            key_lengths, keys, value_lengths, values = self._block
            key_lengths.buf += encode_vlong(len(key))
            keys.buf += key
            value_lengths.buf += encode_vlong(len(value))
            values.buf += value
            self._block_records += 1
            self.records += 1
            if len(keys.buf) + len(values.buf) >= self.block_size:
                self._write_block()
            return
        if self.header.compression == RECORD:
            value = self.codec.compress(value)  # type: ignore[union-attr]
        self._check_sync()
        pending = self._pending
        pending += _PAIR.pack(len(key) + len(value), len(key))
        pending += key
        pending += value
        self.records += 1
        if len(pending) >= _FLUSH_AT:
            self._flush()

    def _check_sync(self) -> None:
        if self.header.sync is not None and self.tell() >= self._last_sync + self.sync_interval:
            self.sync()

    def sync(self) -> None:
        """Write a sync marker now (unless one was just written); Hadoop's ``Writer.sync``."""
        if self.header.sync is not None and self.tell() != self._last_sync:
            self._pending += _INT.pack(SYNC_ESCAPE)
            self._pending += self.header.sync
            self._last_sync = self.tell()

    def _write_block(self) -> None:
        if not self._block_records:
            return
        self.sync()
        pending = self._pending
        pending += encode_vlong(self._block_records)
        for buffer in self._block:
            packed = self.codec.compress(bytes(buffer.buf))  # type: ignore[union-attr]
            pending += encode_vlong(len(packed))
            pending += packed
            buffer.buf.clear()
        self._block_records = 0
        self._flush()

    def flush_block(self) -> None:
        """In BLOCK mode, write the buffered records as a block now (a no-op otherwise)."""
        if self.header.compression == BLOCK:
            self._write_block()

    def _flush(self) -> None:
        if self._pending:
            self._stream.write(bytes(self._pending))
            self._flushed += len(self._pending)
            self._pending.clear()

    def close(self) -> None:
        """Write the last block and everything buffered; close the file if this writer opened it."""
        if self.closed:
            return
        self.flush_block()
        self._flush()
        self.closed = True
        if self._owned:
            self._stream.close()
        elif hasattr(self._stream, "flush"):
            self._stream.flush()

    def __enter__(self) -> SequenceFileWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
