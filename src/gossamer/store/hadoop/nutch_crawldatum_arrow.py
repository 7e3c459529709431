"""Whole blocks of Nutch CrawlDatum values (version 7) as one Arrow struct array, without a loop per record.

A block of a block-compressed SequenceFile of ``Text → CrawlDatum`` holds its values back to
back.  Version 7 puts every fixed field at a fixed offset (see :mod:`.nutch_crawldatum`), so
numpy gathers each field for all records at once: version @0, status @1, fetchTime @2,
retries @10, fetchInterval @11, score @15, modifiedTime @19, sigLen @27, signature @28, then
the ``hasMeta`` flag and the ``MapWritable`` bytes to the end of the value.  The metadata stays
serialized (a ``binary`` column, null when absent): decoding it is per record and only a reader
that needs it pays (:func:`decode_metadata`).  A block with any other version, or a value
whose lengths do not add up, raises :class:`~gossamer.store.hadoop.errors.HadoopFormatError`
(callers fall back to per-record reading).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from gossamer.store.hadoop.arrowcols import binary_array
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import Cursor
from gossamer.store.hadoop.writable import WritableCodec

FIXED = 28
"""Bytes before the signature in a version 7 value."""

CRAWL_DATUM_ARROW = pa.struct([
    pa.field("version", pa.int8()), pa.field("status", pa.uint8()), pa.field("fetch_time", pa.int64()),
    pa.field("retries", pa.int8()), pa.field("fetch_interval", pa.int32()), pa.field("score", pa.float32()),
    pa.field("modified_time", pa.int64()), pa.field("signature", pa.binary()),
    pa.field("metadata", pa.binary()),
])
"""The Arrow type of a decoded block; ``metadata`` holds the serialized ``MapWritable`` or null."""


def _field(data: np.ndarray, starts: np.ndarray, at: int, dtype: str) -> np.ndarray:
    width = np.dtype(dtype).itemsize
    gathered = data[(starts + at)[:, None] + np.arange(width)]
    return np.ascontiguousarray(gathered).view(dtype).ravel()


def _slices(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bytes ``data[starts[i]:ends[i]]`` back to back, with their offsets."""
    lengths = ends - starts
    offsets = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    index = np.repeat(starts - offsets[:-1], lengths) + np.arange(int(offsets[-1]), dtype=np.int64)
    return data[index], offsets


def crawl_datum_column(data: np.ndarray, offsets: np.ndarray) -> pa.StructArray:
    """The values ``data[offsets[i]:offsets[i+1]]`` (CrawlDatum v7 each) as a :data:`CRAWL_DATUM_ARROW` array."""
    offsets = offsets.astype(np.int64, copy=False)
    starts, ends = offsets[:-1], offsets[1:]
    count = len(starts)
    if count == 0:
        return pa.array([], CRAWL_DATUM_ARROW)
    if ((ends - starts) < FIXED + 1).any():
        raise HadoopFormatError("CrawlDatum values of at least 29 bytes (version 7)")
    version = data[starts].view(np.int8)
    if (version != 7).any():
        raise HadoopFormatError("CrawlDatum version 7 in every value of the block")
    sig_len = data[starts + 27].astype(np.int64)
    sig_end = starts + FIXED + sig_len
    if (sig_end >= ends).any():
        raise HadoopFormatError("a CrawlDatum signature that ends before the value")
    has_meta = data[sig_end]
    meta_start = sig_end + 1
    if ((has_meta == 0) & (meta_start != ends)).any() or (has_meta > 1).any():
        raise HadoopFormatError("CrawlDatum hasMeta 0 at the end of the value, or 1 before its metadata")
    sig_bytes, sig_offsets = _slices(data, starts + FIXED, sig_end)
    signature = binary_array(sig_bytes, sig_offsets)
    meta_bytes, meta_offsets = _slices(data, meta_start, ends)
    metadata = binary_array(meta_bytes, meta_offsets)
    null_sig = pa.array(sig_len == 0)
    arrays = [
        pa.array(version), pa.array(data[starts + 1]), pa.array(_field(data, starts, 2, ">i8").astype(np.int64)),
        pa.array(data[starts + 10].view(np.int8)), pa.array(_field(data, starts, 11, ">i4").astype(np.int32)),
        pa.array(_field(data, starts, 15, ">f4").astype(np.float32)),
        pa.array(_field(data, starts, 19, ">i8").astype(np.int64)),
        pa.compute.if_else(null_sig, pa.scalar(None, pa.binary()), signature),
        pa.compute.if_else(pa.array(has_meta == 0), pa.scalar(None, pa.binary()), metadata),
    ]
    return pa.StructArray.from_arrays(arrays, fields=list(CRAWL_DATUM_ARROW))


def decode_metadata(serialized: bytes | None, map_codec: WritableCodec) -> dict[Any, Any] | None:
    """The metadata of one row of :func:`crawl_datum_column` (``None`` stays ``None``)."""
    if serialized is None:
        return None
    return map_codec.read(Cursor(serialized, name="<CrawlDatum metadata>"))
