"""Vectorised helpers that turn serialized values lying back to back in a buffer into Arrow arrays.

A block of a block-compressed SequenceFile holds n keys (or values) back to back; with the
n+1 ``offsets`` of their boundaries these helpers build Arrow arrays without a Python loop
per value: :func:`binary_array` (the bytes as they are), :func:`strip_prefixes` (drop each
value's own length prefix — a ``Text``'s vint, a ``BytesWritable``'s int — by one boolean
mask over the buffer), :func:`fixed_width` (big-endian numbers of one width) and
:func:`decode_vints` (a buffer of n vints, e.g. a block's key lengths).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.primitives import vint_size

VINT_SIZES = np.array([vint_size(first) for first in range(256)], dtype=np.int64)
"""Total size of a vint by its first byte (unsigned)."""


def binary_array(data: np.ndarray, offsets: np.ndarray, kind: pa.DataType | None = None) -> pa.Array:
    """``data[offsets[i]:offsets[i+1]]`` for each i as a ``binary`` (or ``kind``: ``string``) array, no copy."""
    count = len(offsets) - 1
    if count and (int(offsets[-1]) >= 1 << 31):
        big = pa.Array.from_buffers(pa.large_binary(), count,
                                    [None, pa.py_buffer(np.ascontiguousarray(offsets, dtype=np.int64)),
                                     pa.py_buffer(data)])
        return big.cast(kind or pa.binary())
    return pa.Array.from_buffers(kind or pa.binary(), count,
                                 [None, pa.py_buffer(np.ascontiguousarray(offsets, dtype=np.int32)),
                                  pa.py_buffer(data)])


def strip_prefixes(data: np.ndarray, offsets: np.ndarray, prefix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(data', offsets')`` where each value lost its first ``prefix[i]`` bytes (``prefix`` ≤ its length)."""
    starts = offsets[:-1]
    keep = np.ones(int(offsets[-1] - offsets[0]), dtype=bool)
    local = starts - offsets[0]
    for k in range(int(prefix.max()) if len(prefix) else 0):
        keep[local[prefix > k] + k] = False
    stripped = data[int(offsets[0]):int(offsets[-1])][keep]
    new_offsets = np.empty(len(offsets), dtype=np.int64)
    new_offsets[0] = 0
    np.cumsum(np.diff(offsets) - prefix, out=new_offsets[1:])
    return stripped, new_offsets


def decode_vints(data: np.ndarray, count: int, *, what: str = "lengths") -> np.ndarray:
    """The ``count`` vints that fill ``data`` exactly, as int64; :class:`HadoopFormatError` otherwise.

    One byte each is the fast case (all values 0…127 or −112…−1); otherwise the heads are
    found by pointer doubling over "next head" positions and the values assembled per width.
    """
    size = len(data)
    if size == count:
        values = data.view(np.int8).astype(np.int64)
        if (values >= -112).all():
            return values
    if count == 0:
        if size:
            raise HadoopFormatError(f"no {what}, found {size} bytes")
        return np.zeros(0, dtype=np.int64)
    widths = VINT_SIZES[data]
    following = np.minimum(np.arange(size, dtype=np.int64) + widths, size)
    heads = np.zeros(count, dtype=np.int64)
    step = np.append(following, size)  # position `size` is a sink
    index = np.arange(count, dtype=np.int64)
    bit = 0
    while (1 << bit) < count:
        mask = ((index >> bit) & 1).astype(bool)
        heads[mask] = step[heads[mask]]
        step = step[step]
        bit += 1
    if (heads >= size).any() or int(heads[-1] + widths[heads[-1]]) != size:
        raise HadoopFormatError(f"{count} vint {what} filling {size} bytes")
    head_widths = widths[heads]
    values = data[heads].view(np.int8).astype(np.int64)
    long_ones = head_widths > 1
    if long_ones.any():
        magnitude = np.zeros(count, dtype=np.uint64)
        for k in range(1, int(head_widths.max())):
            more = head_widths > k
            magnitude[more] = (magnitude[more] << np.uint64(8)) | data[heads[more] + k].astype(np.uint64)
        signed = magnitude.view(np.int64)
        negative = long_ones & (values < -120)
        values[long_ones] = signed[long_ones]
        values[negative] = ~signed[negative]
    return values


def text_prefix_sizes(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The size of each ``Text`` value's vint length prefix (values start at ``offsets[:-1]``)."""
    return VINT_SIZES[data[offsets[:-1]]]


def fixed_width(data: np.ndarray, offsets: np.ndarray, dtype: str) -> np.ndarray | None:
    """The values as numbers of big-endian ``dtype`` (``>i4`` …) when every value has that width, else ``None``."""
    width = np.dtype(dtype).itemsize
    if len(offsets) > 1 and not (np.diff(offsets) == width).all():
        return None
    chunk = data[int(offsets[0]):int(offsets[-1])]
    return chunk.view(np.dtype(dtype)).astype(np.dtype(dtype).newbyteorder("="))
