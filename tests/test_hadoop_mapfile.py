"""MapFile and ArrayFile of gossamer.store.hadoop: index layout, lookups, order, iteration."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.store import LocalPlace
from gossamer.store.hadoop import (
    BLOCK,
    NONE,
    RECORD,
    ArrayFileReader,
    ArrayFileWriter,
    HadoopFormatError,
    MapFileReader,
    MapFileWriter,
    SequenceFileReader,
)

IO = "org.apache.hadoop.io."
TEXT, LONG = IO + "Text", IO + "LongWritable"


def _keys(count: int) -> list[str]:
    return [f"http://site{i:05d}.example/" for i in range(count)]


@pytest.mark.parametrize("compression", [NONE, RECORD, BLOCK])
def test_lookup_finds_every_key_and_no_missing_one(tmp_path: Path, compression: str) -> None:
    keys = _keys(1000)
    with MapFileWriter(tmp_path / "m", TEXT, TEXT, compression=compression) as writer:
        for key in keys:
            writer.append(key, key.upper())
    with MapFileReader(tmp_path / "m") as reader:
        for key in keys[::37] + [keys[0], keys[-1], keys[128], keys[127], keys[129]]:
            assert reader.get(key) == key.upper()
        for missing in ("", "a", "http://site00001.example", "http://site00001.example/x", "zzz"):
            assert reader.get(missing) is None and missing not in reader
        assert reader.get("zzz", "default") == "default"
        assert list(reader) == [(key, key.upper()) for key in keys]
        assert keys[500] in reader


def test_index_has_hadoops_entries(tmp_path: Path) -> None:
    with MapFileWriter(tmp_path / "m", TEXT, LONG, sync=bytes(16), index_sync=bytes(range(16))) as writer:
        for i, key in enumerate(_keys(300)):
            writer.append(key, i)
    index = SequenceFileReader(tmp_path / "m" / "index")
    assert (index.key_class, index.value_class, index.compression) == (TEXT, LONG, BLOCK)
    assert index.header.codec_class == IO + "compress.DefaultCodec"
    entries = list(index)
    assert [key for key, _ in entries] == [_keys(300)[i] for i in (0, 128, 256)]
    data = (tmp_path / "m" / "data").read_bytes()
    header_end = SequenceFileReader(data).header.length
    assert entries[0][1] == header_end
    for key, position in entries:  # each entry points at its record
        length, key_length = int.from_bytes(data[position:position + 4], "big"), 0
        key_length = int.from_bytes(data[position + 4:position + 8], "big")
        assert length > key_length and data[position + 9:position + 8 + key_length] == key.encode()


def test_block_data_indexes_one_entry_per_block(tmp_path: Path) -> None:
    with MapFileWriter(tmp_path / "m", TEXT, TEXT, compression=BLOCK) as writer:
        for key in _keys(2000):
            writer.append(key, "x" * 2000)  # 1,000,000 bytes of keys + values make a block: ~490 records
    positions = [pos for _, pos in SequenceFileReader(tmp_path / "m" / "index")]
    assert len(positions) == len(set(positions)) == 5
    data = (tmp_path / "m" / "data").read_bytes()
    assert all(data[pos:pos + 4] == b"\xff\xff\xff\xff" for pos in positions)  # each entry is a block's sync
    with MapFileReader(tmp_path / "m") as reader:
        for i in (0, 489, 490, 491, 1000, 1999):
            assert reader.get(_keys(2000)[i]) == "x" * 2000


def test_out_of_order_keys_are_refused_and_equal_keys_allowed(tmp_path: Path) -> None:
    with MapFileWriter(tmp_path / "m", TEXT, TEXT) as writer:
        writer.append("b", "1")
        writer.append("b", "2")
        with pytest.raises(HadoopFormatError, match="non-decreasing order"):
            writer.append("a", "3")
        writer.append("\u00e9", "4")  # é (c3 a9) sorts after b by unsigned bytes
    with MapFileReader(tmp_path / "m") as reader:
        assert reader.get("b") == "1"
    with MapFileWriter(tmp_path / "n", LONG, TEXT) as writer:
        writer.append(-5, "x")
        writer.append(10, "y")
        with pytest.raises(HadoopFormatError):
            writer.append(2, "z")


def test_duplicate_keys_across_an_index_entry_give_the_first(tmp_path: Path) -> None:
    with MapFileWriter(tmp_path / "m", TEXT, LONG, index_interval=4) as writer:
        for i in range(20):
            writer.append("same" if 2 <= i < 15 else ("a" if i < 2 else "z"), i)
    with MapFileReader(tmp_path / "m") as reader:
        assert reader.get("same") == 2
        assert reader.get("z") == 15


def test_a_key_class_without_order_cannot_key_a_mapfile(tmp_path: Path) -> None:
    with pytest.raises(HadoopFormatError, match="no key order"), \
            MapFileWriter(tmp_path / "m", IO + "MapWritable", TEXT) as writer:
        writer.append({"a": 1}, "x")


def test_array_file_numbers_values(tmp_path: Path) -> None:
    place = LocalPlace(tmp_path / "arr")
    with ArrayFileWriter(place, TEXT, compression=RECORD) as writer:
        assert [writer.append(f"value {i}") for i in range(500)] == list(range(500))
    with ArrayFileReader(place) as reader:
        assert reader.get(0) == "value 0" and reader.get(499) == "value 499" and reader.get(257) == "value 257"
        assert reader.get(500) is None and reader.get(-1) is None
        assert list(reader) == [f"value {i}" for i in range(500)]
    assert SequenceFileReader(tmp_path / "arr" / "data").key_class == LONG


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    with MapFileWriter(tmp_path / "m", TEXT, TEXT) as writer:
        writer.append("a", "b")
    (tmp_path / "m" / "index").write_bytes(b"SEQ")
    with pytest.raises(HadoopFormatError, match="index: byte 0: .*truncated"):
        MapFileReader(tmp_path / "m")
