"""SequenceFile of gossamer.store.hadoop: the seed's layout, versions 1-6, every compression and codec, sync
markers, deterministic bytes, splits, streaming, Arrow batches."""

from __future__ import annotations

import io
import zlib
from pathlib import Path

import pytest

from gossamer.store import LocalPlace
from gossamer.store.hadoop import (
    BLOCK,
    NONE,
    RECORD,
    SequenceFileReader,
    SequenceFileWriter,
    compression_codec,
    compression_codec_names,
)
from gossamer.store.hadoop.seqfile_header import SequenceFileHeader, header_bytes

IO = "org.apache.hadoop.io."
TEXT, LONG, BYTES = IO + "Text", IO + "LongWritable", IO + "BytesWritable"
SYNC = bytes(range(16))
CODECS = ["DefaultCodec", "GzipCodec", "BZip2Codec", "SnappyCodec", "Lz4Codec", "ZStandardCodec"]

# the seed's example (000_0bba6177ebe0f91e.txt): a Nutch 0.x SequenceFile of long -> long, one pair 640 -> 672411
SEED_HEX = ("53 45 51 01 00 04 6c 6f 6e 67 00 04 6c 6f 6e 67"
            " 00 00 00 10 00 00 00 08 00 00 00 00 00 00 02 80 00 00 00 00 00 0a 42 9b")


def _write(records: list[tuple[object, object]], key: str = TEXT, value: str = TEXT, **options: object) -> bytes:
    sink = io.BytesIO()
    with SequenceFileWriter(sink, key, value, sync=SYNC, **options) as writer:
        for k, v in records:
            writer.append(k, v)
    return sink.getvalue()


def _texts(count: int, width: int = 40) -> list[tuple[str, str]]:
    return [(f"http://example.com/{i:06d}", "v" * (i % width)) for i in range(count)]


def test_the_seeds_hex_example_reads_and_writes_byte_for_byte() -> None:
    data = bytes.fromhex(SEED_HEX)
    reader = SequenceFileReader(data)
    assert (reader.header.version, reader.key_class, reader.value_class) == (1, "long", "long")
    assert reader.header.sync is None
    assert list(reader) == [(640, 672411)]
    assert _write([(640, 672411)], "long", "long", version=1) == data


def test_a_small_version_6_file_has_exactly_hadoops_layout() -> None:
    data = _write([("a", "b")], metadata={"z": "1", "a": "2"})
    expected = (b"SEQ\x06" + b"\x19" + TEXT.encode() + b"\x19" + TEXT.encode() + b"\x00\x00"
                + bytes.fromhex("00000002") + b"\x01a\x012" + b"\x01z\x011" + SYNC
                + bytes.fromhex("00000004" "00000002") + b"\x01a" + b"\x01b")
    assert data == expected


def test_record_compression_compresses_the_value_alone() -> None:
    data = _write([("k", "value")], compression=RECORD)
    header = header_bytes(SequenceFileHeader(6, TEXT, TEXT, RECORD, IO + "compress.DefaultCodec", {}, SYNC))
    body = data[len(header):]
    packed = zlib.compress(b"\x05value")
    assert body == len(packed + b"\x01k").to_bytes(4, "big") + b"\x00\x00\x00\x02" + b"\x01k" + packed


def test_block_layout_is_sync_count_and_four_compressed_buffers() -> None:
    data = _write([("a", "xy"), ("bc", "")], compression=BLOCK)
    header = header_bytes(SequenceFileHeader(6, TEXT, TEXT, BLOCK, IO + "compress.DefaultCodec", {}, SYNC))
    body = data[len(header):]
    expected = b"\xff\xff\xff\xff" + SYNC + b"\x02"
    for plain in (b"\x02\x03", b"\x01a\x02bc", b"\x03\x01", b"\x02xy\x00"):
        packed = zlib.compress(plain)
        expected += bytes([len(packed)]) + packed
    assert body == expected


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6])
def test_every_version_round_trips(version: int) -> None:
    records = _texts(50) if version >= 4 else [(i, i * 7) for i in range(50)]
    key = TEXT if version >= 4 else LONG
    data = _write(records, key, key, version=version, sync_interval=200)
    assert data[:4] == b"SEQ" + bytes([version])
    reader = SequenceFileReader(data)
    assert reader.header.version == version
    assert list(reader) == records
    if version >= 3:
        compressed = _write(records, key, key, version=version, compression=RECORD)
        assert list(SequenceFileReader(compressed)) == records


def test_old_versions_refuse_what_they_cannot_hold() -> None:
    from gossamer.store.hadoop import HadoopFormatError

    with pytest.raises(HadoopFormatError, match="block compression"):
        _write([], version=3, compression=BLOCK)
    with pytest.raises(HadoopFormatError, match="metadata"):
        _write([], version=5, metadata={"a": "b"})
    with pytest.raises(HadoopFormatError, match="DefaultCodec"):
        _write([], version=4, compression=RECORD, codec="GzipCodec")


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("compression", [RECORD, BLOCK])
def test_every_codec_round_trips(compression: str, codec: str) -> None:
    records = _texts(600, 300) + [("empty", "")]
    data = _write(records, compression=compression, codec=codec, block_size=5000)
    reader = SequenceFileReader(data)
    assert reader.header.codec_class == f"{IO}compress.{codec}"
    assert list(reader) == records
    assert [r for b in SequenceFileReader(data).batches() for r in zip(*b.to_pydict().values(), strict=True)] == records


def test_codec_registry_names_and_hadoop_framing() -> None:
    assert {name.rsplit(".", 1)[-1] for name in compression_codec_names()} >= set(CODECS)
    snappy = compression_codec("SnappyCodec")
    framed = snappy.compress(b"abc" * 10)
    assert framed[:4] == (30).to_bytes(4, "big")
    assert int.from_bytes(framed[4:8], "big") == len(framed) - 8
    assert snappy.compress(b"") == b"\x00\x00\x00\x00"
    big = bytes(range(256)) * 2000  # longer than one BlockCompressorStream chunk: one block, several chunks
    for name in ("SnappyCodec", "Lz4Codec"):
        codec = compression_codec(name)
        assert codec.decompress(codec.compress(big)) == big
        assert codec.decompress(codec.compress(b"") + codec.compress(b"xy")) == b"xy"
    bzip = compression_codec("BZip2Codec")
    assert bzip.compress(b"x")[:3] == b"BZh"
    assert bzip.decompress(bzip.compress(b"x")[2:]) == b"x"  # a stream without Hadoop's "BZ" magic
    gzip = compression_codec("GzipCodec")
    assert gzip.decompress(gzip.compress(b"a") + gzip.compress(b"b")) == b"ab"


def test_given_sync_marker_makes_the_bytes_deterministic() -> None:
    records = _texts(300)
    for compression in (NONE, RECORD, BLOCK):
        assert _write(records, compression=compression) == _write(records, compression=compression)
    first = SequenceFileWriter(io.BytesIO(), TEXT, TEXT).header.sync
    assert first != SequenceFileWriter(io.BytesIO(), TEXT, TEXT).header.sync


def _sync_offsets(data: bytes) -> list[int]:
    marker = b"\xff\xff\xff\xff" + SYNC
    found, at = [], data.find(marker)
    while at >= 0:
        found.append(at)
        at = data.find(marker, at + 1)
    return found


def _record_starts(data: bytes, header_end: int) -> list[tuple[int, bool]]:
    """``(offset, is sync)`` of every record and sync marker of a NONE/RECORD file."""
    found, pos = [], header_end
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big", signed=True)
        found.append((pos, length == -1))
        pos += 20 if length == -1 else 8 + length
    return found


def test_sync_markers_appear_at_hadoops_interval() -> None:
    records = _texts(3000)
    data = _write(records)
    header_end = SequenceFileReader(data).header.length
    entries = _record_starts(data, header_end)
    assert _sync_offsets(data) == [pos for pos, is_sync in entries if is_sync]
    last_sync_end = 0
    for (pos, is_sync), (before, _) in zip(entries[1:], entries, strict=False):
        # a marker comes before the first record at or past (end of the last marker) + 102400, and only there
        due = pos >= last_sync_end + 102400
        if is_sync:
            assert due and before < last_sync_end + 102400 or before == header_end
            last_sync_end = pos + 20
        elif due:
            pytest.fail(f"no sync marker before the record at {pos}")
    assert len(_sync_offsets(data)) == len(data) // 102400
    assert list(SequenceFileReader(data)) == records


def test_a_record_after_a_sync_marker_is_read_like_any_other() -> None:
    records = _texts(400)
    data = _write(records, sync_interval=500)
    assert len(_sync_offsets(data)) > 10
    assert list(SequenceFileReader(data)) == records


@pytest.mark.parametrize("compression", [NONE, RECORD, BLOCK])
def test_splitting_anywhere_yields_every_record_exactly_once(compression: str) -> None:
    records = _texts(800, 60)
    data = _write(records, compression=compression, sync_interval=700, block_size=900)
    for step in (1000, 1777, 4096, len(data) // 3 + 1, len(data)):
        got = []
        for start in range(0, len(data), step):
            with SequenceFileReader(data, start=start, end=start + step) as reader:
                got += list(reader)
        assert got == records, step


def test_split_starting_inside_the_header_does_not_repeat_the_first_records() -> None:
    records = _texts(200)
    data = _write(records, sync_interval=300)
    first = list(SequenceFileReader(data, start=0, end=10))
    second = list(SequenceFileReader(data, start=10, end=len(data)))
    assert first + second == records and first


def test_version_1_files_cannot_be_split_so_later_splits_are_empty() -> None:
    data = _write([(1, 2), (3, 4)], LONG, LONG, version=1)
    assert list(SequenceFileReader(data, start=0, end=5)) == [(1, 2), (3, 4)]
    assert list(SequenceFileReader(data, start=5)) == []


class _TrickleStream(io.RawIOBase):
    """A non-seekable stream that hands out at most 7 bytes per read and remembers the largest request."""

    def __init__(self, data: bytes) -> None:
        self._data, self._pos, self.largest = data, 0, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        self.largest = max(self.largest, size)
        chunk = self._data[self._pos:self._pos + min(size, 7)]
        self._pos += len(chunk)
        return chunk


@pytest.mark.parametrize("compression", [NONE, BLOCK])
def test_streams_in_bounded_memory_from_a_stream_that_cannot_seek(compression: str) -> None:
    records = _texts(500, 30)
    data = _write(records, compression=compression, block_size=2000, sync_interval=1000)
    stream = _TrickleStream(data)
    reader = SequenceFileReader(stream, chunk=256)
    assert list(reader) == records
    assert stream.largest <= 4096  # the header probe; then 256 bytes (or one record) at a time
    split = SequenceFileReader(_TrickleStream(data), chunk=256, start=len(data) // 2)
    tail = list(split)
    assert tail and tail == records[-len(tail):]


def test_reads_a_local_file_a_place_and_a_pyarrow_file(tmp_path: Path) -> None:
    import pyarrow as pa

    records = _texts(100)
    path = tmp_path / "part-00000"
    path.write_bytes(_write(records, compression=BLOCK))
    assert list(SequenceFileReader(path)) == records
    assert list(SequenceFileReader(LocalPlace(path))) == records
    assert list(SequenceFileReader(str(path))) == records
    with pa.OSFile(str(path)) as native:
        assert list(SequenceFileReader(native, name="native")) == records


def test_writes_to_a_path_and_a_place(tmp_path: Path) -> None:
    for target in (tmp_path / "a", LocalPlace(tmp_path / "b")):
        with SequenceFileWriter(target, TEXT, LONG, sync=SYNC) as writer:
            writer.append("k", 1)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    assert list(SequenceFileReader(tmp_path / "b")) == [("k", 1)]


@pytest.mark.parametrize("compression", [NONE, RECORD, BLOCK])
def test_raw_mode_gives_the_serialized_bytes(compression: str) -> None:
    data = _write([("k", b"\x01\x02")], TEXT, BYTES, compression=compression)
    assert list(SequenceFileReader(data).raw()) == [(b"\x01k", b"\x00\x00\x00\x02\x01\x02")]
    batch = next(SequenceFileReader(data).batches(raw=True))
    assert batch.to_pydict() == {"key": [b"\x01k"], "value": [b"\x00\x00\x00\x02\x01\x02"]}


def test_raw_records_copy_between_files_without_decoding() -> None:
    data = _write(_texts(50), compression=BLOCK)
    sink = io.BytesIO()
    with SequenceFileWriter(sink, "org.example.Unknown", "org.example.Other", sync=SYNC) as writer:
        for key, value in SequenceFileReader(data).raw():
            writer.append_raw(key, value)
    assert [k for k, _ in SequenceFileReader(sink.getvalue()).raw()] == [k for k, _ in SequenceFileReader(data).raw()]


def test_batches_of_a_block_file_are_typed_columns() -> None:
    import pyarrow as pa

    records = [(f"k{i}", b"x" * i) for i in range(300)]
    data = _write(records, TEXT, BYTES, compression=BLOCK, block_size=1000)
    batches = list(SequenceFileReader(data).batches())
    assert len(batches) > 3
    assert batches[0].schema == pa.schema([("key", pa.string()), ("value", pa.binary())])
    table = pa.Table.from_batches(batches)
    assert table.column("key").to_pylist() == [k for k, _ in records]
    assert table.column("value").to_pylist() == [v for _, v in records]
    numbers = _write([(i, float(i)) for i in range(10)], LONG, IO + "DoubleWritable")
    batch = next(SequenceFileReader(numbers).batches(size=4))
    assert batch.num_rows == 4 and batch.column("value").type == pa.float64()


def test_long_lengths_in_a_block_use_the_general_vint_path() -> None:
    records = [(f"k{i}" * (i % 90), "v" * (i * 37 % 5000)) for i in range(400)]
    data = _write(records, compression=BLOCK, codec="SnappyCodec")
    assert list(SequenceFileReader(data)) == records
    rows = [r for b in SequenceFileReader(data).batches() for r in zip(*b.to_pydict().values(), strict=True)]
    assert rows == records
