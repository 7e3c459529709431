"""Bad input to gossamer.store.hadoop readers: one clear HadoopFormatError (file, offset, what was expected);
nothing good before it is lost; lenient reading skips to the next sync marker and counts what it skipped."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from gossamer.store.hadoop import BLOCK, NONE, RECORD, HadoopFormatError, SequenceFileReader, SequenceFileWriter

TEXT = "org.apache.hadoop.io.Text"
SYNC = bytes(range(100, 116))


def _file(count: int = 300, compression: str = NONE, **options: object) -> bytes:
    sink = io.BytesIO()
    with SequenceFileWriter(sink, TEXT, TEXT, sync=SYNC, compression=compression, sync_interval=600,
                            block_size=700, **options) as writer:
        for i in range(count):
            writer.append(f"key{i:05d}", "v" * (i % 20))
    return sink.getvalue()


def _records(count: int = 300) -> list[tuple[str, str]]:
    return [(f"key{i:05d}", "v" * (i % 20)) for i in range(count)]


def _read_until_error(data: bytes, **options: object) -> tuple[list[tuple[str, str]], HadoopFormatError]:
    got: list[tuple[str, str]] = []
    with pytest.raises(HadoopFormatError) as caught:
        for record in SequenceFileReader(data, name="part-00000", **options):
            got.append(record)
    return got, caught.value


def test_wrong_magic() -> None:
    with pytest.raises(HadoopFormatError) as caught:
        SequenceFileReader(b"PAR1....", name="x.seq")
    assert str(caught.value) == "x.seq: byte 0: 'SEQ' magic of a SequenceFile, found b'PAR'"


def test_unsupported_version() -> None:
    with pytest.raises(HadoopFormatError, match=r"x.seq: byte 3: SequenceFile version 1..6, found 7"):
        SequenceFileReader(b"SEQ\x07" + bytes(40), name="x.seq")


@pytest.mark.parametrize("cut", [0, 2, 4, 10, 60])
def test_truncated_header(cut: int) -> None:
    with pytest.raises(HadoopFormatError, match="truncated"):
        SequenceFileReader(_file()[:cut], name="x.seq")


def test_unknown_value_class_is_an_error_only_when_decoding() -> None:
    sink = io.BytesIO()
    with SequenceFileWriter(sink, TEXT, "org.example.Secret", sync=SYNC) as writer:
        writer.append_raw(b"\x01k", b"\x00")
    reader = SequenceFileReader(sink.getvalue(), name="x.seq")
    assert list(reader.raw()) == [(b"\x01k", b"\x00")]
    with pytest.raises(HadoopFormatError, match="x.seq: byte 4: a known Writable class, found 'org.example.Secret'"):
        list(SequenceFileReader(sink.getvalue(), name="x.seq"))


def test_unknown_codec() -> None:
    data = _file(5, RECORD).replace(b"DefaultCodec", b"MissingCodec")
    with pytest.raises(HadoopFormatError, match="a known compression codec, found 'org.apache.hadoop.io.compress."
                                                "MissingCodec'"):
        SequenceFileReader(data, name="x.seq")


@pytest.mark.parametrize("compression", [NONE, RECORD, BLOCK])
def test_truncated_body_keeps_every_record_before_the_cut(compression: str) -> None:
    data = _file(compression=compression)
    cut = len(data) - 30
    got, error = _read_until_error(data[:cut])
    assert got == _records()[:len(got)] and len(got) > 200
    assert error.file == "part-00000" and "truncated" in error.reason
    assert error.offset is not None and error.offset <= cut


def test_corrupt_record_length() -> None:
    data = bytearray(_file())
    header_end = SequenceFileReader(bytes(data)).header.length
    position = header_end  # walk to the 6th record
    for _ in range(5):
        position += 8 + int.from_bytes(data[position:position + 4], "big")
    data[position + 4:position + 8] = (10**6).to_bytes(4, "big")  # key longer than the record
    got, error = _read_until_error(bytes(data))
    assert got == _records()[:5]
    assert error.offset == position and "corrupt record" in error.reason


def test_corrupt_sync_marker() -> None:
    data = bytearray(_file())
    escape = data.find(b"\xff\xff\xff\xff" + SYNC)
    data[escape + 10] ^= 0xFF
    got, error = _read_until_error(bytes(data))
    assert got and got == _records()[:len(got)]
    assert error.offset == escape + 4 and "sync marker" in error.reason


@pytest.mark.parametrize("compression", [NONE, RECORD, BLOCK])
def test_lenient_reading_skips_to_the_next_sync_marker(compression: str) -> None:
    data = bytearray(_file(compression=compression))
    syncs = []
    at = data.find(b"\xff\xff\xff\xff" + SYNC)
    while at >= 0:
        syncs.append(at + 4)
        at = data.find(b"\xff\xff\xff\xff" + SYNC, at + 1)
    damaged = syncs[3] + 16 + 2  # just after the fourth marker: the record count / first record of that stretch
    data[damaged:damaged + 4] = b"\xfe\xfe\xfe\xfe"
    reader = SequenceFileReader(bytes(data), lenient=True)
    got = list(reader)
    expected = _records()
    assert set(got) < set(expected) and got == sorted(got)
    assert reader.skipped_records >= 1 and reader.skipped_bytes > 0
    assert len(got) + reader.skipped_records == len(expected) if compression == BLOCK else len(got) < len(expected)
    assert len(reader.problems) == 1 and reader.problems[0].offset is not None
    with pytest.raises(HadoopFormatError):
        list(SequenceFileReader(bytes(data)))


def test_lenient_reading_counts_a_value_that_does_not_decode_and_goes_on() -> None:
    sink = io.BytesIO()
    with SequenceFileWriter(sink, TEXT, TEXT, sync=SYNC) as writer:
        writer.append("a", "1")
        writer.append_raw(b"\x01b", b"\x09xx")  # a Text claiming 9 bytes, holding 2
        writer.append("c", "3")
    reader = SequenceFileReader(sink.getvalue(), lenient=True)
    assert list(reader) == [("a", "1"), ("c", "3")]
    assert reader.skipped_records == 1
    got, error = _read_until_error(sink.getvalue())
    assert got == [("a", "1")] and "(in the record at byte" in error.reason


def test_lenient_reading_of_a_truncated_file_stops_with_a_count() -> None:
    data = _file()
    reader = SequenceFileReader(data[:-7], lenient=True)
    got = list(reader)
    assert got == _records()[:-1] and reader.skipped_records == 1


def test_corrupt_compressed_block_names_the_codec(tmp_path: Path) -> None:
    data = bytearray(_file(compression=BLOCK, codec="SnappyCodec"))
    first = data.find(b"\xff\xff\xff\xff" + SYNC) + 20
    data[first + 8:first + 12] = b"\x00\x01\x02\x03"
    path = tmp_path / "bad.seq"
    path.write_bytes(bytes(data))
    with pytest.raises(HadoopFormatError) as caught:
        list(SequenceFileReader(path))
    assert str(caught.value).startswith(f"{path}: byte ")
    assert "SnappyCodec stream" in caught.value.reason or "lengths" in caught.value.reason


def test_a_lenient_split_of_a_sound_file_skips_nothing() -> None:
    data = _file(compression=BLOCK)
    reader = SequenceFileReader(data, start=len(data) // 2, lenient=True)
    got = list(reader)
    assert got and got == _records()[-len(got):]
    assert (reader.skipped_records, reader.skipped_bytes, reader.problems) == (0, 0, [])
