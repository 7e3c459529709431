"""Reading SequenceFiles of every version, streaming, from any offset: :class:`SequenceFileReader`.

* Input: bytes, a path, a :class:`~gossamer.store.place.Place` or a binary stream; memory
  stays bounded by one read chunk plus the largest record or block.
* Iteration: ``for key, value in reader`` decodes with the registry's codecs;
  :meth:`~SequenceFileReader.raw` gives the serialized bytes (values decompressed);
  :meth:`~SequenceFileReader.batches` gives Arrow ``RecordBatch`` es (a whole block at a time
  for BLOCK files, without a Python loop per record).
* Splits (``start``, ``end``), as Hadoop's ``SequenceFileRecordReader``: a split that does not
  start at 0 begins after the first sync marker whose escape starts at or after ``start``; a
  record belongs to the split holding the escape of the last sync marker before it (records
  before the first marker belong to the split at 0), so splitting a file anywhere yields every
  record exactly once.  Version 1 files have no markers: they cannot be split (a split not
  starting at 0 is empty).
* Bad input raises :class:`~gossamer.store.hadoop.errors.HadoopFormatError` after every good
  record before it was yielded.  With ``lenient=True`` a corrupt record or block is skipped to
  the next sync marker instead: ``skipped_records`` counts records lost (a block's count when
  it could be read, else one per damaged stretch), ``skipped_bytes`` the bytes passed over and
  ``problems`` keeps the errors.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from gossamer.store.hadoop.compression import CompressionCodec, compression_codec
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import Cursor
from gossamer.store.hadoop.registry import DEFAULT_REGISTRY
from gossamer.store.hadoop.seqfile_blocks import (
    Block,
    block_batch,
    decompress,
    fast_values,
    read_block,
    read_source_vint,
)
from gossamer.store.hadoop.seqfile_header import BLOCK, SYNC_SIZE, SequenceFileHeader, read_header
from gossamer.store.hadoop.source import CHUNK, ByteSource, Input, open_input
from gossamer.store.hadoop.writable import WritableCodec, WritableRegistry

_INT = struct.Struct(">i")
_PAIR = struct.Struct(">ii")
BATCH_RECORDS = 65536
"""Records per batch of :meth:`SequenceFileReader.batches` for files that are not block-compressed."""


class SequenceFileReader:
    """A SequenceFile opened for reading (see the module docstring for splits and leniency)."""

    def __init__(self, source: Input, *, name: str | None = None, registry: WritableRegistry | None = None,
                 start: int = 0, end: int | None = None, lenient: bool = False, chunk: int = CHUNK) -> None:
        data, self.name, self._owned = open_input(source, name)
        self._source = ByteSource(data, self.name, chunk=chunk)
        try:
            self.header: SequenceFileHeader = read_header(self._source)
            self.codec: CompressionCodec | None = (
                compression_codec(self.header.codec_class, file=self.name, offset=4)
                if self.header.codec_class else None)
        except BaseException:
            self.close()
            raise
        self.registry = registry or DEFAULT_REGISTRY
        self.end = end
        self.lenient = lenient
        self.skipped_records = 0
        self.skipped_bytes = 0
        self.problems: list[HadoopFormatError] = []
        self._anchor = 0
        self._synced = False
        self._done = False
        self._at = self.header.length
        if start > 0:
            self.sync_to(start)

    # -- header ------------------------------------------------------------------------------------------------
    @property
    def key_class(self) -> str:
        return self.header.key_class

    @property
    def value_class(self) -> str:
        return self.header.value_class

    @property
    def compression(self) -> str:
        return self.header.compression

    @property
    def metadata(self) -> dict[str, str]:
        return self.header.metadata

    @property
    def key_codec(self) -> WritableCodec:
        return self.registry.get(self.header.key_class, file=self.name, offset=4)

    @property
    def value_codec(self) -> WritableCodec:
        return self.registry.get(self.header.value_class, file=self.name, offset=4)

    # -- positioning -------------------------------------------------------------------------------------------
    def position(self) -> int:
        """Offset of the next unread byte (a record, sync marker or block boundary between reads)."""
        return self._source.pos

    def seek(self, offset: int) -> None:
        """Continue at ``offset``, which must be a record or block boundary (a MapFile index entry)."""
        self._source.seek(offset)
        self._anchor, self._synced, self._done = offset, False, False

    def sync_to(self, offset: int) -> None:
        """Continue after the first sync marker whose escape starts at or after ``offset`` (Hadoop's ``sync``)."""
        if offset <= 0:
            self.seek(self.header.length)
            return
        if self.header.sync is None:
            self._done = True
            return
        search_from = max(offset + 4, self.header.length)
        self._done = False
        try:
            self._source.seek(search_from)
        except HadoopFormatError:
            self._done = True
            return
        self._enter_marker()

    def _enter_marker(self, skipped_from: int | None = None) -> None:
        """Find the next marker from the current position and stand after it (or finish)."""
        source = self._source
        found = source.find(self.header.sync)  # type: ignore[arg-type]
        escape = source.pos - 4
        if skipped_from is not None and self.lenient and not found:
            self.skipped_bytes += max(0, source.pos - skipped_from)
        if not found or (self.end is not None and escape >= self.end):
            self._done = True
            return
        if skipped_from is not None and self.lenient:
            self.skipped_bytes += max(0, escape - skipped_from)
        source.i += SYNC_SIZE
        self._anchor, self._synced = escape, True

    def _read_sync(self, escape: int) -> None:
        source = self._source
        start = source.take(4 + SYNC_SIZE, "sync marker")
        if source.buf[start:start + 4] != b"\xff\xff\xff\xff":
            raise source.error("a sync escape (int -1) before the block", escape)
        if source.buf[start + 4:start + 4 + SYNC_SIZE] != self.header.sync:
            raise source.error("the file's 16-byte sync marker (corrupt sync)", escape + 4)
        self._anchor, self._synced = escape, True

    def _skip(self, error: HadoopFormatError, lost: int) -> None:
        """Lenient mode: note ``error``, count ``lost`` records and resync after the damaged place."""
        if not self.lenient:
            raise error
        self.problems.append(error)
        self.skipped_records += lost
        if self.header.sync is None:
            self.skipped_bytes += max(0, self._end_offset() - self._at)
            self._done = True
            return
        self._source.seek(self._at + 1)
        self._enter_marker(self._at)

    def _end_offset(self) -> int:
        source = self._source
        while source.ensure(len(source.buf) - source.i + 1):
            source.i = len(source.buf)
        return source.base + len(source.buf)

    # -- records (NONE, RECORD) --------------------------------------------------------------------------------
    def _next_record(self) -> tuple[int, bytes, bytes] | None:
        source, sync = self._source, self.header.sync
        while True:
            at = self._at = source.pos
            if not source.ensure(4):
                if source.i < len(source.buf):
                    raise source.error(f"a record length, found {len(source.buf) - source.i} bytes (truncated file)")
                return None
            length = _INT.unpack_from(source.buf, source.i)[0]
            if length == -1 and sync is not None:
                if self.end is not None and at >= self.end:
                    return None
                self._read_sync(at)
                continue
            if not source.ensure(8):
                raise source.error("a record's key length (truncated file)")
            length, key_length = _PAIR.unpack_from(source.buf, source.i)
            if length < 0 or not 0 <= key_length <= length:
                raise source.error(f"a record length >= key length >= 0, found {length} and {key_length} "
                                   "(corrupt record)")
            start = source.take(8 + length, "record") + 8
            buf = source.buf
            key = buf[start:start + key_length]
            value = buf[start + key_length:start + length]
            if self.codec is not None:
                value = decompress(self.codec, value, self.name, at, "a record's value")
            return at, key, value

    def _records(self) -> Iterator[tuple[int, bytes, bytes]]:
        while not self._done:
            try:
                record = self._next_record()
            except HadoopFormatError as exc:
                self._skip(exc, 1)
                continue
            if record is None:
                return
            yield record

    # -- blocks (BLOCK) ----------------------------------------------------------------------------------------
    def _next_block(self) -> Block | None:
        source = self._source
        at = self._at = source.pos
        if not self._synced:
            if source.at_end():
                return None
            if self.end is not None and at >= self.end:
                return None
            self._read_sync(at)
        self._synced = False
        count_at = self._at = source.pos
        count = read_source_vint(source, "record count")
        if count < 0:
            raise source.error(f"a non-negative record count, found {count}", count_at)
        try:
            return read_block(source, self.codec, self._anchor, count)  # type: ignore[arg-type]
        except HadoopFormatError as exc:
            exc.lost = count  # type: ignore[attr-defined]
            raise

    def blocks(self) -> Iterator[Block]:
        """The decompressed blocks of a BLOCK file, from the current position."""
        if self.header.compression != BLOCK:
            raise HadoopFormatError(f"a block-compressed file, found {self.header.compression}", file=self.name)
        while not self._done:
            try:
                block = self._next_block()
            except HadoopFormatError as exc:
                self._skip(exc, getattr(exc, "lost", 1))
                continue
            if block is None:
                return
            yield block

    # -- public iteration --------------------------------------------------------------------------------------
    def raw(self) -> Iterator[tuple[bytes, bytes]]:
        """``(serialized key, serialized value)`` of each record from the current position (values decompressed)."""
        if self.header.compression == BLOCK:
            for block in self.blocks():
                keys, values = block.keys.tobytes(), block.values.tobytes()
                key_offsets, value_offsets = block.key_offsets.tolist(), block.value_offsets.tolist()
                for i in range(block.count):
                    yield (keys[key_offsets[i]:key_offsets[i + 1]], values[value_offsets[i]:value_offsets[i + 1]])
            return
        for _, key, value in self._records():
            yield bytes(key), bytes(value)

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        """Decoded ``(key, value)`` of each record from the current position."""
        key_codec, value_codec = self.key_codec, self.value_codec
        if self.header.compression == BLOCK:
            yield from self._decoded_blocks(key_codec, value_codec)
            return
        for at, key, value in self._records():
            try:
                decoded = (key_codec.deserialize(key, name=self.name, base=at + 8),
                           value_codec.deserialize(value, name=self.name, base=at + 8 + len(key)))
            except HadoopFormatError as exc:
                self._at = at
                self._note_bad_value(exc, f"the record at byte {at}")
                continue
            yield decoded

    def _decoded_blocks(self, key_codec: WritableCodec, value_codec: WritableCodec) -> Iterator[tuple[Any, Any]]:
        for block in self.blocks():
            keys_fast = fast_values(key_codec, block.keys, block.key_offsets)
            values_fast = fast_values(value_codec, block.values, block.value_offsets) if keys_fast else None
            if keys_fast is not None and values_fast is not None:
                yield from zip(keys_fast, values_fast, strict=True)
                continue
            keys = Cursor(block.keys.tobytes(), name=self.name)
            values = Cursor(block.values.tobytes(), name=self.name)
            key_offsets, value_offsets = block.key_offsets.tolist(), block.value_offsets.tolist()
            for i in range(block.count):
                keys.pos, keys.end = key_offsets[i], key_offsets[i + 1]
                values.pos, values.end = value_offsets[i], value_offsets[i + 1]
                try:
                    key, value = key_codec.read(keys), value_codec.read(values)
                    if keys.pos != keys.end or values.pos != values.end:
                        raise HadoopFormatError("a key and value filling their stored lengths")
                except HadoopFormatError as exc:
                    self._note_bad_value(exc, f"record {i} of the block at byte {block.offset}")
                    continue
                yield key, value

    def _note_bad_value(self, exc: HadoopFormatError, where: str) -> None:
        error = HadoopFormatError(f"{exc.reason} (in {where})", file=self.name, offset=exc.offset
                                  if exc.file == self.name and exc.offset is not None else self._at)
        if not self.lenient:
            raise error
        self.problems.append(error)
        self.skipped_records += 1

    def batches(self, *, raw: bool = False, size: int = BATCH_RECORDS) -> Iterator[pa.RecordBatch]:
        """Arrow batches of ``key`` and ``value`` columns (codec Arrow types, or ``binary`` when ``raw``).

        A BLOCK file gives one batch per block, decoded by the codecs' vectorised
        ``arrow_column``; other files give batches of up to ``size`` records.
        """
        key_codec = None if raw else self.key_codec
        value_codec = None if raw else self.value_codec
        if self.header.compression == BLOCK:
            for block in self.blocks():
                try:
                    yield block_batch(block, key_codec, value_codec, self.name)
                except HadoopFormatError as exc:
                    self._at = block.offset
                    self._note_bad_value(exc, f"the block at byte {block.offset}")
            return
        pending: list[tuple[bytes, bytes]] = []
        for record in self.raw():
            pending.append(record)
            if len(pending) >= size:
                yield _rows_batch(pending, key_codec, value_codec, self.name)
                pending = []
        if pending:
            yield _rows_batch(pending, key_codec, value_codec, self.name)

    # -- life --------------------------------------------------------------------------------------------------
    def close(self) -> None:
        if self._owned:
            self._source.close()
            self._owned = False

    def __enter__(self) -> SequenceFileReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rows_batch(rows: list[tuple[bytes, bytes]], key_codec: WritableCodec | None,
                value_codec: WritableCodec | None, name: str) -> pa.RecordBatch:
    """Records given as serialized bytes, laid back to back and decoded like one block."""
    def column(items: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
        offsets = np.zeros(len(items) + 1, dtype=np.int64)
        np.cumsum([len(item) for item in items], out=offsets[1:])
        return np.frombuffer(b"".join(items), dtype=np.uint8), offsets

    keys, key_offsets = column([key for key, _ in rows])
    values, value_offsets = column([value for _, value in rows])
    return block_batch(Block(0, len(rows), keys, key_offsets, values, value_offsets), key_codec, value_codec, name)
