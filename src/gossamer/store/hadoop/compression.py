"""Hadoop's compression codecs by class name, each a pair of whole-buffer functions.

A SequenceFile names its codec class in the header and compresses each value (RECORD) or
each of a block's four buffers (BLOCK) as one independent stream:

* ``DefaultCodec`` / ``DeflateCodec`` — a zlib stream (RFC 1950);
* ``GzipCodec`` — a gzip member (RFC 1952); several members are read one after another; written
  like Hadoop's built-in Java gzip: the 10-byte header ``1f 8b 08 00 00000000 00 00`` (no
  name, mtime 0, no extra flags, OS byte 0 — zlib's own gzip header says OS 3), raw deflate at
  level 6 (Java's ``Deflater`` default, as zlib's), CRC-32 and size, little-endian;
* ``BZip2Codec`` — a bzip2 stream starting ``BZh`` (Hadoop writes the ``BZ`` magic itself,
  then ``CBZip2OutputStream``'s ``h9``…; a stream without ``BZ`` is read too);
* ``SnappyCodec`` / ``Lz4Codec`` — Hadoop's ``BlockCompressorStream`` framing around raw
  snappy / raw LZ4 block data: per block an int uncompressed length, then (int compressed
  length, compressed bytes) chunks until that many bytes came out; an input longer than the
  stream's maximum input is one block of several chunks; an empty input is just int 0;
* ``ZStandardCodec`` — zstd frames.

Snappy, LZ4 and zstd come from ``cramjam``.  :func:`compression_codec` finds a codec by class
name; :func:`register_compression_codec` adds one.
"""

from __future__ import annotations

import bz2
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import cramjam

from gossamer.store.hadoop.errors import HadoopFormatError

COMPRESS = "org.apache.hadoop.io.compress."
_INT = struct.Struct(">i")


@dataclass(frozen=True)
class CompressionCodec:
    """A Hadoop compression codec: its class name and whole-buffer ``compress`` / ``decompress``."""

    java_class: str
    compress: Callable[[bytes], bytes]
    decompress: Callable[[bytes], bytes]


def _zlib_decompress(data: bytes) -> bytes:
    return zlib.decompress(data)


GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
"""The gzip member header Hadoop's ``BuiltInGzipCompressor`` writes (OS byte 0, where zlib writes 3)."""
_GZIP_TRAILER = struct.Struct("<II")


def _gzip_compress(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = packer.compress(data) + packer.flush()
    return GZIP_HEADER + body + _GZIP_TRAILER.pack(zlib.crc32(data), len(data) & 0xFFFFFFFF)


def _gzip_decompress(data: bytes) -> bytes:
    parts = []
    rest = bytes(data)
    while rest:
        unpacker = zlib.decompressobj(31)
        parts.append(unpacker.decompress(rest))
        if not unpacker.eof:
            raise zlib.error("truncated gzip member")
        rest = unpacker.unused_data
    return b"".join(parts)


def _bzip2_decompress(data: bytes) -> bytes:
    raw = bytes(data)
    if not raw:
        return b""
    return bz2.decompress(raw if raw.startswith(b"BZ") else b"BZ" + raw)


def _block_framed(max_input: int, raw_compress: Callable[[bytes], bytes],
                  raw_decompress: Callable[[bytes, int], bytes]) -> tuple[Callable[[bytes], bytes],
                                                                           Callable[[bytes], bytes]]:
    """``(compress, decompress)`` with ``BlockCompressorStream``'s framing around raw block functions."""

    def compress(data: bytes) -> bytes:
        parts = [_INT.pack(len(data))]
        for start in range(0, len(data), max_input):
            chunk = raw_compress(data[start:start + max_input])
            parts += [_INT.pack(len(chunk)), chunk]
        return b"".join(parts)

    def decompress(data: bytes) -> bytes:
        view = memoryview(data)
        pos, parts = 0, []
        while pos < len(view):
            expected = _read_int(view, pos)
            pos += 4
            produced = 0
            while produced < expected:
                size = _read_int(view, pos)
                pos += 4
                if size < 0 or pos + size > len(view):
                    raise ValueError(f"a compressed chunk of {size} bytes inside the buffer")
                chunk = raw_decompress(bytes(view[pos:pos + size]), expected - produced)
                pos += size
                produced += len(chunk)
                parts.append(chunk)
            if produced != expected:
                raise ValueError(f"{expected} uncompressed bytes, found {produced}")
        return b"".join(parts)

    return compress, decompress


def _read_int(view: memoryview, pos: int) -> int:
    if pos + 4 > len(view):
        raise ValueError("a 4-byte length (truncated)")
    value = _INT.unpack_from(view, pos)[0]
    if value < 0:
        raise ValueError(f"a non-negative length, found {value}")
    return value


def _snappy_raw(data: bytes) -> bytes:
    return bytes(cramjam.snappy.compress_raw(data))


def _snappy_unraw(data: bytes, limit: int) -> bytes:
    out = bytes(cramjam.snappy.decompress_raw(data))
    if len(out) > limit:
        raise ValueError(f"a snappy chunk of at most {limit} bytes, found {len(out)}")
    return out


def _lz4_raw(data: bytes) -> bytes:
    return bytes(cramjam.lz4.compress_block(data, store_size=False))


def _lz4_unraw(data: bytes, limit: int) -> bytes:
    out = bytearray(limit)
    size = cramjam.lz4.decompress_block_into(data, out)
    return bytes(out[:size])


def _zstd_compress(data: bytes) -> bytes:
    return bytes(cramjam.zstd.compress(data))


def _zstd_decompress(data: bytes) -> bytes:
    return bytes(cramjam.zstd.decompress(data)) if len(data) else b""


BUFFER_SIZE = 256 * 1024
"""``io.compression.codec.snappy.buffersize`` and ``…lz4.buffersize`` defaults."""

SNAPPY_MAX_INPUT = BUFFER_SIZE - (BUFFER_SIZE // 6 + 32)
LZ4_MAX_INPUT = BUFFER_SIZE - (BUFFER_SIZE // 255 + 16)

_snappy = _block_framed(SNAPPY_MAX_INPUT, _snappy_raw, _snappy_unraw)
_lz4 = _block_framed(LZ4_MAX_INPUT, _lz4_raw, _lz4_unraw)

DEFAULT_CODEC = CompressionCodec(COMPRESS + "DefaultCodec", zlib.compress, _zlib_decompress)
_CODECS: dict[str, CompressionCodec] = {}


def register_compression_codec(codec: CompressionCodec) -> CompressionCodec:
    """Make ``codec`` known under its class name (a later registration wins)."""
    _CODECS[codec.java_class] = codec
    return codec


for _codec in (
    DEFAULT_CODEC,
    CompressionCodec(COMPRESS + "DeflateCodec", zlib.compress, _zlib_decompress),
    CompressionCodec(COMPRESS + "GzipCodec", _gzip_compress, _gzip_decompress),
    CompressionCodec(COMPRESS + "BZip2Codec", bz2.compress, _bzip2_decompress),
    CompressionCodec(COMPRESS + "SnappyCodec", *_snappy),
    CompressionCodec(COMPRESS + "Lz4Codec", *_lz4),
    CompressionCodec(COMPRESS + "ZStandardCodec", _zstd_compress, _zstd_decompress),
):
    register_compression_codec(_codec)


def compression_codec(name: str, *, file: str | None = None, offset: int | None = None) -> CompressionCodec:
    """The codec of class ``name``; short names (``SnappyCodec``) work too; :class:`HadoopFormatError` if unknown."""
    codec = _CODECS.get(name) or _CODECS.get(COMPRESS + name)
    if codec is None:
        known = ", ".join(sorted(n.rsplit(".", 1)[-1] for n in _CODECS))
        raise HadoopFormatError(f"a known compression codec, found {name!r} (known: {known})",
                                file=file, offset=offset)
    return codec


def compression_codec_names() -> list[str]:
    return sorted(_CODECS)
