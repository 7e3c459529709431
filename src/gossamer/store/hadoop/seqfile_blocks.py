"""One block of a block-compressed SequenceFile: :func:`read_block` and its Arrow form :func:`block_batch`.

After the sync escape and marker a block is: vint n | vint size + compressed key lengths (n
vints) | vint size + compressed keys | vint size + compressed value lengths | vint size +
compressed values.  :class:`Block` holds the four buffers decompressed, as numpy arrays with
the n+1 boundaries of the keys and of the values, so a whole block becomes Arrow columns
without a Python loop per record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from gossamer.store.hadoop.arrowcols import binary_array, decode_vints, strip_prefixes, text_prefix_sizes
from gossamer.store.hadoop.compression import CompressionCodec
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import INT_MAX, Cursor, vint_size
from gossamer.store.hadoop.source import ByteSource
from gossamer.store.hadoop.writable import WritableCodec
from gossamer.store.hadoop.writables_basic import TextCodec


@dataclass
class Block:
    """A decompressed block; ``offset`` is where its sync escape starts."""

    offset: int
    count: int
    keys: np.ndarray
    key_offsets: np.ndarray
    values: np.ndarray
    value_offsets: np.ndarray

    def raw_key(self, index: int) -> bytes:
        return self.keys[self.key_offsets[index]:self.key_offsets[index + 1]].tobytes()

    def raw_value(self, index: int) -> bytes:
        return self.values[self.value_offsets[index]:self.value_offsets[index + 1]].tobytes()


def read_source_vint(source: ByteSource, what: str) -> int:
    """A vint at the source's position (consumed)."""
    if not source.ensure(1) or not source.ensure(vint_size(source.buf[source.i])):
        raise source.error(f"a vint ({what}), found end of file (truncated)")
    cursor = Cursor(source.buf, source.i, name=source.name, base=source.base)
    value = cursor.read_vint()
    source.i = cursor.pos
    return value


def decompress(codec: CompressionCodec, data: bytes, source_name: str, offset: int, what: str) -> bytes:
    """``codec.decompress(data)``; any failure becomes one :class:`HadoopFormatError` at ``offset``."""
    try:
        return codec.decompress(data)
    except Exception as exc:  # zlib.error, OSError, ValueError, cramjam errors: all mean "not this codec's stream"
        name = codec.java_class.rsplit(".", 1)[-1]
        raise HadoopFormatError(f"a {name} stream of {what} ({exc})", file=source_name, offset=offset) from None


def read_block(source: ByteSource, codec: CompressionCodec, offset: int, count: int) -> Block:
    """The rest of the block whose sync marker and record ``count`` were just read (``offset``: its escape)."""
    count_at = source.pos
    buffers = []
    for what in ("key lengths", "keys", "value lengths", "values"):
        size_at = source.pos
        size = read_source_vint(source, f"size of {what}")
        if not 0 <= size <= INT_MAX:
            raise source.error(f"a non-negative size of {what}, found {size}", size_at)
        start = source.take(size, what)
        data = decompress(codec, source.buf[start:start + size], source.name, size_at, what)
        buffers.append(np.frombuffer(data, dtype=np.uint8))
    key_lengths = _lengths(buffers[0], count, source, count_at, "key lengths")
    value_lengths = _lengths(buffers[2], count, source, count_at, "value lengths")
    key_offsets = _offsets(key_lengths)
    value_offsets = _offsets(value_lengths)
    if key_offsets[-1] != len(buffers[1]) or value_offsets[-1] != len(buffers[3]):
        raise source.error(f"keys of {key_offsets[-1]} and values of {value_offsets[-1]} bytes as their lengths "
                           f"say, found {len(buffers[1])} and {len(buffers[3])}", count_at)
    return Block(offset, count, buffers[1], key_offsets, buffers[3], value_offsets)


def _lengths(data: np.ndarray, count: int, source: ByteSource, at: int, what: str) -> np.ndarray:
    try:
        lengths = decode_vints(data, count, what=what)
    except HadoopFormatError as exc:
        raise source.error(exc.reason, at) from None
    if (lengths < 0).any():
        raise source.error(f"non-negative {what}", at)
    return lengths


def _offsets(lengths: np.ndarray) -> np.ndarray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def fast_values(codec: WritableCodec, data: np.ndarray, offsets: np.ndarray) -> list[Any] | None:
    """The decoded values of a block buffer through Arrow, or None where only value-by-value decoding is exact.

    Only ``Text`` takes this path, and only when the whole buffer is well-formed UTF-8 with matching vint
    lengths: then each string equals what ``TextCodec.read`` returns. Anything else (another class, a bad
    length, bytes that are not UTF-8, which ``read`` keeps as surrogate escapes) gives None.
    """
    if type(codec) is not TextCodec or len(offsets) < 2:
        return None
    prefix = text_prefix_sizes(data, offsets)
    lengths = np.diff(offsets)
    if (prefix > lengths).any():
        return None
    width = int(prefix.max())
    grid = offsets[:-1, None] + np.arange(width)[None, :]
    heads = data[grid[np.arange(width)[None, :] < prefix[:, None]]]  # every vint prefix, row after row
    try:
        declared = decode_vints(heads, len(prefix))
    except HadoopFormatError:
        return None
    if not (declared == lengths - prefix).all():
        return None
    stripped, new_offsets = strip_prefixes(data, offsets, prefix)
    try:
        return binary_array(stripped, new_offsets).cast(pa.string()).to_pylist()
    except pa.ArrowInvalid:
        return None


def block_batch(block: Block, key_codec: WritableCodec | None, value_codec: WritableCodec | None,
                source_name: str) -> pa.RecordBatch:
    """The block as a ``RecordBatch`` of ``key`` and ``value``; a codec of ``None`` keeps raw bytes."""
    try:
        keys = (key_codec.arrow_column(block.keys, block.key_offsets) if key_codec
                else binary_array(block.keys, block.key_offsets))
        values = (value_codec.arrow_column(block.values, block.value_offsets) if value_codec
                  else binary_array(block.values, block.value_offsets))
    except HadoopFormatError as exc:
        raise HadoopFormatError(f"{exc.reason} (in the block)", file=source_name, offset=block.offset) from None
    return pa.RecordBatch.from_arrays([keys, values], names=["key", "value"])
