"""Hadoop's own Java readers and writers against Gossamer's files (issue 17, points 6 and 7); needs Java.

* Hadoop reads what Gossamer wrote: SequenceFiles of every compression × codec (ZStandardCodec only where this
  JVM has libhadoop with zstd, otherwise skipped with Hadoop's reason) and of many Writable classes; MapFiles
  (``MapFile.Reader.get`` finds every key and misses absent ones); ArrayFiles.
* Round trips: Hadoop → Gossamer → Hadoop and Gossamer → Hadoop → Gossamer give the same records, and the same
  bytes once the sync marker is the same (BZip2/Snappy: the same layout and content, see
  :data:`tests.hadoop_vectors.INEXACT_CODECS`; MapWritable through Hadoop: entries in Java's HashMap order).

One JVM for the module; every test skips with the reason when Java or PySpark is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gossamer.store.hadoop import (
    ArrayFileWriter,
    MapFileWriter,
    SequenceFileReader,
    SequenceFileWriter,
    Typed,
    compression_codec,
)
from tests.hadoop_copy import hadoop_copy
from tests.hadoop_jvm import CODECS, HadoopJvm, unavailable_reason
from tests.hadoop_vectors import INEXACT_CODECS, IO, as_json, compressed_units, read_json, registry_for
from tests.test_hadoop_jvm import assert_hadoop_map_file_gets, assert_hadoop_reads, assert_same_bytes_but_sync

TEXTS = ["", "a", "héllo wörld", "日本語", "emoji 😀 outside the BMP", "nul\x00inside", "line\r\nbreak",
         "x" * 3000]
TEXT_RECORDS = [(f"key-{i:05d}", TEXTS[i % len(TEXTS)] + (" word" * (i % 13))) for i in range(150)]
SYNC = bytes(range(16))
SMALL = {"sync_interval": 2000, "block_size": 2048}
"""Small sync interval and block size, so 150 records cross several sync markers and blocks."""

TYPES: dict[str, tuple[str, str, list[tuple[Any, Any]]]] = {
    "long-text": ("LongWritable", "Text", [(n, f"v{n}") for n in (0, 1, -1, 127, 128, -113, 2**31, -(2**63))]),
    "int-float": ("IntWritable", "FloatWritable", [(1, 0.5), (-2, -1.25), (2**31 - 1, 3.4028234663852886e38)]),
    "text-double": ("Text", "DoubleWritable", [("a", 0.1), ("b", -1e300), ("c", 5e-324)]),
    "text-bool": ("Text", "BooleanWritable", [("t", True), ("f", False)]),
    "vint-vlong": ("VIntWritable", "VLongWritable", [(n, n * 2**31) for n in (0, -112, -113, 127, 2**31 - 1)]),
    "text-bytes": ("Text", "BytesWritable", [("empty", b""), ("all", bytes(range(256)))]),
    "text-md5": ("Text", "MD5Hash", [("z", bytes(16)), ("r", bytes(range(16)))]),
    "null-null": ("NullWritable", "NullWritable", [(None, None)] * 3),
    "text-array": ("Text", "ArrayWritable", [("none", []), ("two", ["a", "ü"])]),
    "text-map": ("Text", "MapWritable", [("empty", {}), ("flat", {
        "s": "x", "n": 5, "f": 1.5, "b": True, "raw": b"\x00\xff", "none": None, "nested": {"k": "v"},
        Typed(IO + "LongWritable", 7): Typed(IO + "IntWritable", -3), "v": Typed(IO + "VIntWritable", 300)})]),
}


@pytest.fixture(scope="module")
def hadoop() -> Iterator[HadoopJvm]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"Hadoop's Java classes unavailable: {reason}")
    with HadoopJvm() as jvm:
        yield jvm


def gossamer_write(path: Path, key_class: str, value_class: str, records: list[tuple[Any, Any]],
                   **options: Any) -> None:
    registry = registry_for("Text")
    with open(path, "wb") as sink:
        writer = SequenceFileWriter(sink, IO + key_class, IO + value_class, registry=registry, **options)
        for key, value in records:
            writer.append(key, value)
        writer.close()


def json_of(key_class: str, value_class: str, records: list[tuple[Any, Any]]) -> list[list[Any]]:
    registry = registry_for("Text")
    keys, values = registry.get(IO + key_class), registry.get(IO + value_class)
    return as_json([[keys.to_json(k), values.to_json(v)] for k, v in records])


def assert_same_content(ours: bytes, theirs: bytes, codec: str | None, compression: str) -> None:
    """Byte-identical, or for :data:`INEXACT_CODECS` the same layout with equal decompressed pieces."""
    if codec not in INEXACT_CODECS:
        assert ours == theirs
        return
    header_length = ours.index(SYNC) + len(SYNC)
    our_frames, our_units = compressed_units(ours, header_length, compression == "BLOCK")
    their_frames, their_units = compressed_units(theirs, header_length, compression == "BLOCK")
    unpack = compression_codec(codec).decompress
    assert our_frames == their_frames
    assert [unpack(u) for u in our_units] == [unpack(u) for u in their_units]


CASES = [("NONE", None)] + [(c, k) for c in ("RECORD", "BLOCK") for k in CODECS]


@pytest.mark.slow
@pytest.mark.parametrize(("compression", "codec"), CASES, ids=[f"{c}-{k}" for c, k in CASES])
def test_codecs_both_ways(hadoop: HadoopJvm, tmp_path: Path, compression: str, codec: str | None) -> None:
    """Gossamer → Hadoop reads it → Hadoop copies it → Gossamer reads it and gets the same records and bytes."""
    if codec is not None:
        problem = hadoop.codec_problem(codec)
        if problem:
            pytest.skip(f"Hadoop cannot use {codec} in this JVM: {problem}")
    full_codec = f"org.apache.hadoop.io.compress.{codec}" if codec else None
    ours, theirs = tmp_path / "gossamer.seq", tmp_path / "hadoop.seq"
    metadata = {"made-by": "gossamer", "ü": "✓"}
    gossamer_write(ours, "Text", "Text", TEXT_RECORDS, compression=compression, codec=codec, metadata=metadata,
                   sync=SYNC, **SMALL)
    expected = json_of("Text", "Text", TEXT_RECORDS)
    assert_hadoop_reads(hadoop, ours, expected, {"compression": compression, "codec": full_codec,
                                                 "metadata": metadata, "sync_hex": SYNC.hex()})
    assert hadoop_copy(hadoop, ours, theirs, **SMALL) == len(TEXT_RECORDS)
    assert read_json(theirs) == expected
    sync_hex = SequenceFileReader(theirs).header.sync.hex()  # type: ignore[union-attr]
    rewritten = theirs.read_bytes().replace(bytes.fromhex(sync_hex), SYNC)
    assert_same_content(ours.read_bytes(), rewritten, full_codec, compression)
    if full_codec not in INEXACT_CODECS:
        assert_same_bytes_but_sync(ours.read_bytes(), theirs.read_bytes(), sync_hex)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_writables_both_ways(hadoop: HadoopJvm, tmp_path: Path, name: str) -> None:
    key_class, value_class, records = TYPES[name]
    ours, theirs = tmp_path / "gossamer.seq", tmp_path / "hadoop.seq"
    gossamer_write(ours, key_class, value_class, records, sync=SYNC)
    expected = json_of(key_class, value_class, records)
    assert_hadoop_reads(hadoop, ours, expected, {"value_class": IO + value_class})
    hadoop_copy(hadoop, ours, theirs)
    assert read_json(theirs, registry_for("Text")) == expected
    if value_class != "MapWritable":  # Hadoop writes a MapWritable's entries in its HashMap's order
        assert_same_bytes_but_sync(ours.read_bytes(), theirs.read_bytes(),
                                   SequenceFileReader(theirs).header.sync.hex())  # type: ignore[union-attr]


def python_values(name: str) -> list[tuple[Any, Any]]:
    """TYPES' records in the form tests.hadoop_jvm's writer takes (Typed → (short class, value) tuples)."""
    def plain(value: Any) -> Any:
        if isinstance(value, Typed):
            return (value.java_class.removeprefix(IO), value.value)
        if isinstance(value, dict):
            return {plain(k): plain(v) for k, v in value.items()}
        return value
    return [(plain(k), plain(v)) for k, v in TYPES[name][2]]


@pytest.mark.parametrize("name", sorted(TYPES))
def test_hadoop_to_gossamer_to_hadoop(hadoop: HadoopJvm, tmp_path: Path, name: str) -> None:
    key_class, value_class, _ = TYPES[name]
    theirs, ours = tmp_path / "hadoop.seq", tmp_path / "gossamer.seq"
    hadoop.write_sequence_file(theirs, key_class, value_class, python_values(name), "BLOCK", "DefaultCodec")
    hadoop_read = hadoop.read_sequence_file(theirs)
    with SequenceFileReader(theirs, registry=registry_for("Text")) as reader:
        header, records = reader.header, list(reader)
    gossamer_write(ours, key_class, value_class, records, compression="BLOCK", sync=header.sync)
    assert ours.read_bytes() == theirs.read_bytes()
    assert as_json(hadoop.read_sequence_file(ours)) == as_json(hadoop_read)


@pytest.mark.slow
@pytest.mark.parametrize(("compression", "codec", "interval"),
                         [("NONE", None, 128), ("BLOCK", "DefaultCodec", 5), ("RECORD", "GzipCodec", 7)])
def test_hadoop_map_file_reader_gets_every_key(hadoop: HadoopJvm, tmp_path: Path, compression: str,
                                               codec: str | None, interval: int) -> None:
    records = sorted((f"k{i:04d}", f"value {i}") for i in range(0, 600, 2))
    with MapFileWriter(tmp_path / "m", IO + "Text", IO + "Text", compression=compression, codec=codec,
                       index_interval=interval, block_size=1024) as writer:
        for key, value in records:
            writer.append(key, value)
    lookups: dict[Any, Any] = dict(records[::3]) | {records[-1][0]: records[-1][1]}
    lookups |= {"k0001": None, "k0599": None, "a": None, "zzz": None, "": None}
    assert_hadoop_map_file_gets(hadoop, tmp_path / "m", lookups)
    assert as_json(hadoop.read_map_file(tmp_path / "m")) == as_json(records)


def test_hadoop_reads_gossamer_array_file(hadoop: HadoopJvm, tmp_path: Path) -> None:
    values = [TEXTS[i % len(TEXTS)] + str(i) for i in range(300)]
    with ArrayFileWriter(tmp_path / "a", IO + "Text") as writer:
        for value in values:
            writer.append(value)
    assert hadoop.read_array_file(tmp_path / "a") == values
    for number in (0, 127, 128, 299):
        assert hadoop.map_file_lookup(tmp_path / "a", number) == (True, values[number])
    assert hadoop.map_file_lookup(tmp_path / "a", 300) == (False, None)
