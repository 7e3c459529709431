"""Hadoop's ``HashPartitioner`` on ``Text`` keys, vectorised: which ``part-r-NNNNN`` a URL belongs in.

Nutch's ``CrawlDbReader`` and ``LinkDbReader`` look a URL up only in the part that
``HashPartitioner`` names: ``(hashBytes(utf8) & 0x7fffffff) % parts`` with
``WritableComparator.hashBytes``: ``h = 1; for b in bytes: h = 31 * h + b`` in 32-bit
arithmetic, ``b`` a *signed* byte (reference §10.3).  Expanded,
``h = 31^n + Σ b_i · 31^(n-1-i)`` mod 2^32, which numpy computes for a whole column at once.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def hash_bytes(data: bytes) -> int:
    """``WritableComparator.hashBytes`` of ``data`` as a signed 32-bit int (the scalar form, for checks)."""
    h = 1
    for byte in data:
        h = (31 * h + (byte - 256 if byte > 127 else byte)) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def _powers(count: int) -> np.ndarray:
    powers = np.ones(count + 1, dtype=np.uint32)
    with np.errstate(over="ignore"):
        for i in range(1, count + 1):
            powers[i] = powers[i - 1] * np.uint32(31)
    return powers


_POWERS = [_powers(4096)]


def hash_column(urls: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``hashBytes`` of each string's UTF-8 bytes, as uint32 (bit pattern of Java's int)."""
    if isinstance(urls, pa.ChunkedArray):
        urls = urls.combine_chunks()
    urls = urls.cast(pa.large_binary())
    n = len(urls)
    offsets = np.frombuffer(urls.buffers()[1], dtype=np.int64)[urls.offset:urls.offset + n + 1]
    data = np.frombuffer(urls.buffers()[2], dtype=np.uint8) if urls.buffers()[2] is not None else np.zeros(0, np.uint8)
    start, end = int(offsets[0]), int(offsets[-1])
    body = data[start:end]
    lengths = np.diff(offsets)
    longest = int(lengths.max()) if n else 0
    if longest >= len(_POWERS[0]):
        _POWERS[0] = _powers(longest + 1)
    powers = _POWERS[0]
    signed = body.astype(np.int8).astype(np.int64).astype(np.uint32)  # two's complement bit pattern
    row = np.repeat(np.arange(n), lengths)
    position = np.arange(len(body), dtype=np.int64) - (offsets[:-1] - start)[row]
    exponent = lengths[row] - 1 - position
    with np.errstate(over="ignore"):
        terms = (signed * powers[exponent]).astype(np.uint64)
        sums = np.zeros(n, dtype=np.uint64)
        filled = lengths > 0
        if filled.any():
            starts = (offsets[:-1] - start)[filled]
            sums[filled] = np.add.reduceat(terms, starts)
        return (sums & 0xFFFFFFFF).astype(np.uint32) + powers[lengths]


def partitions(urls: pa.Array | pa.ChunkedArray, parts: int) -> np.ndarray:
    """``(hashBytes & 0x7fffffff) % parts`` for each URL (int64)."""
    return (hash_column(urls).astype(np.int64) & 0x7FFFFFFF) % parts
