"""Writable codecs of gossamer.store.hadoop: round trips, exact bytes, JSON, Arrow columns, the class registry."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pytest

from gossamer.store.hadoop import (
    BOOLEAN,
    BYTES,
    DEFAULT_REGISTRY,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    MD5_HASH,
    NULL,
    TEXT,
    UTF8,
    VINT,
    VLONG,
    ArrayWritableCodec,
    Cursor,
    HadoopFormatError,
    NutchMetadataCodec,
    Output,
    PropertiesCodec,
    Typed,
    WritableCodec,
    WritableMap,
    new_registry,
    read_version,
    write_version,
)

IO = "org.apache.hadoop.io."
CASES = [
    (TEXT, "héllo", "0668c3a96c6c6f", "héllo"),
    (UTF8, "abc", "0003616263", "abc"),
    (BYTES, b"\x00\xff", "0000000200ff", {"base64": "AP8="}),
    (MD5_HASH, bytes(range(16)), bytes(range(16)).hex(), {"md5": bytes(range(16)).hex()}),
    (NULL, None, "", None),
    (INT, -2, "fffffffe", -2),
    (LONG, 640, "0000000000000280", 640),
    (FLOAT, 0.5, "3f000000", 0.5),
    (DOUBLE, 2.0, "4000000000000000", 2.0),
    (BOOLEAN, True, "01", True),
    (VINT, 300, "8e012c", 300),
    (VLONG, -(2**40), "83ffffffffff", -(2**40)),
]


@pytest.mark.parametrize(("codec", "value", "hexed", "rendered"), CASES, ids=[c[0].java_class for c in CASES])
def test_simple_writables(codec: WritableCodec, value: object, hexed: str, rendered: object) -> None:
    data = codec.serialize(value)
    assert data.hex() == hexed
    assert codec.deserialize(data) == value
    assert codec.to_json(value) == rendered
    assert DEFAULT_REGISTRY.get(codec.java_class) is codec


def test_trailing_bytes_after_a_value_are_an_error() -> None:
    with pytest.raises(HadoopFormatError, match="end of org.apache.hadoop.io.IntWritable"):
        INT.deserialize(b"\x00\x00\x00\x01\x02")


@pytest.mark.parametrize("codec", [INT, LONG, VINT])
def test_integers_outside_the_java_type_are_refused(codec: WritableCodec) -> None:
    with pytest.raises(HadoopFormatError):
        codec.serialize(2**63)


def test_old_class_names_map_to_the_same_codecs() -> None:
    assert DEFAULT_REGISTRY.get("long") is LONG
    assert DEFAULT_REGISTRY.get("net.nutch.io.LongWritable") is LONG
    assert DEFAULT_REGISTRY.get("net.nutch.io.UTF8") is UTF8
    assert DEFAULT_REGISTRY.get("org.apache.nutch.io.MD5Hash") is MD5_HASH
    with pytest.raises(HadoopFormatError, match="org.example.Missing"):
        DEFAULT_REGISTRY.get("org.example.Missing", file="f", offset=4)


def test_a_third_party_writable_registers_without_touching_the_default() -> None:
    class Point(WritableCodec):
        java_class = "org.example.Point"

        def read(self, cursor: Cursor) -> tuple[int, int]:
            return cursor.read_int(), cursor.read_int()

        def write(self, out: Output, value: tuple[int, int]) -> None:
            out.write_int(value[0])
            out.write_int(value[1])

    registry = new_registry()
    registry.register(Point(), ["net.example.Point"])
    assert registry.get("net.example.Point").deserialize(registry.get("org.example.Point").serialize((1, 2))) == (1, 2)
    assert "org.example.Point" not in DEFAULT_REGISTRY
    assert "net.example.Point" in registry.copy() and "net.example.Point" in registry.names()
    mapping = registry.get(IO + "MapWritable")
    data = mapping.serialize({"p": Typed("org.example.Point", (3, 4))})
    assert mapping.deserialize(data) == {"p": (3, 4)}


def test_map_writable_bytes_with_fixed_ids() -> None:
    mapping = DEFAULT_REGISTRY.get(IO + "MapWritable")
    value = {"a": Typed(IO + "IntWritable", 1)}
    # no custom classes | size 1 | Text id -116 "a" | IntWritable id -123, 1
    assert mapping.serialize(value).hex() == "00" + "00000001" + "8c" + "0161" + "85" + "00000001"


def test_map_writable_custom_class_table_and_round_trip() -> None:
    mapping = DEFAULT_REGISTRY.get(IO + "MapWritable")
    value = {"s": "x", "n": 5, "f": 1.5, "b": False, "raw": b"\x01", "none": None,
             "nested": {"k": "v"}, "props": Typed("java.util.Properties", {"k": "v"})}
    data = mapping.serialize(value)
    assert data[:2].hex() == "0201"  # two custom classes (DoubleWritable has no fixed id), the first is id 1
    cursor = Cursor(data, 2)
    assert cursor.read_java_utf() == IO + "DoubleWritable"
    assert (cursor.read_byte(), cursor.read_java_utf()) == (2, "java.util.Properties")
    decoded = mapping.deserialize(data)
    assert isinstance(decoded, WritableMap)
    assert decoded == {k: (v.value if isinstance(v, Typed) else v) for k, v in value.items()}
    assert decoded.classes["n"] == (IO + "Text", IO + "LongWritable")
    assert decoded.custom == [IO + "DoubleWritable", "java.util.Properties"]
    assert mapping.serialize(decoded) == data
    assert mapping.to_json(decoded) == {"s": "x", "n": 5, "f": 1.5, "b": False, "raw": {"base64": "AQ=="},
                                        "none": None, "nested": {"k": "v"}, "props": {"k": "v"}}
    json.dumps(mapping.to_json(decoded))


def test_map_writable_unknown_id_is_an_error() -> None:
    mapping = DEFAULT_REGISTRY.get(IO + "MapWritable")
    with pytest.raises(HadoopFormatError, match="class id"):
        mapping.deserialize(bytes.fromhex("00" "00000001" "05"))
    with pytest.raises(HadoopFormatError, match="ObjectWritable"):  # a known id without a codec
        mapping.deserialize(bytes.fromhex("00" "00000001" "8a"))


def test_array_writable_per_element_class() -> None:
    codec = ArrayWritableCodec(TEXT, "org.example.TextArrayWritable")
    data = codec.serialize(["a", "bc"])
    assert data.hex() == "00000002" + "0161" + "026263"
    assert codec.deserialize(data) == ["a", "bc"]
    assert ArrayWritableCodec(BYTES).to_json([b"\x00"]) == [{"base64": "AA=="}]


def test_nutch_05_properties_are_int_count_and_utf8_pairs() -> None:
    codec = PropertiesCodec()
    data = codec.serialize({"Content-Type": "text/html"})
    assert data.hex() == "00000001" + "000c" + b"Content-Type".hex() + "0009" + b"text/html".hex()
    assert codec.deserialize(data) == {"Content-Type": "text/html"}


def test_nutch_metadata_is_names_with_value_lists() -> None:
    codec = NutchMetadataCodec()
    data = codec.serialize({"k": ["a", "b"], "empty": []})
    assert data.hex() == "00000002" + "016b" + "00000002" + "0161" + "0162" + "05" + b"empty".hex() + "00000000"
    assert codec.deserialize(data) == {"k": ["a", "b"], "empty": []}


def test_versioned_writable_version_byte() -> None:
    out = Output()
    write_version(out, 5)
    assert read_version(Cursor(out.getvalue()), {4, 5}, "ParseData") == 5
    with pytest.raises(HadoopFormatError, match="ParseData version 4/5, found 7"):
        read_version(Cursor(b"\x07"), {4, 5}, "ParseData")


def _packed(codec: WritableCodec, values: list[object]) -> tuple[np.ndarray, np.ndarray]:
    parts = [codec.serialize(v) for v in values]
    offsets = np.cumsum([0] + [len(p) for p in parts])
    return np.frombuffer(b"".join(parts), dtype=np.uint8), offsets


@pytest.mark.parametrize(("codec", "values"), [
    (TEXT, ["a", "", "é" * 100, "z" * 300]),
    (UTF8, ["a", "bé"]),
    (BYTES, [b"", b"\x00\x01", b"x" * 1000]),
    (INT, [1, -1, 2**31 - 1]),
    (LONG, [0, -(2**63)]),
    (FLOAT, [0.5, -2.0]),
    (DOUBLE, [math.pi]),
    (BOOLEAN, [True, False]),
    (VINT, [0, 1000, -5]),
    (VLONG, [2**40]),
    (NULL, [None, None]),
    (MD5_HASH, [bytes(16)]),
])
def test_arrow_columns_equal_per_value_decoding(codec: WritableCodec, values: list[object]) -> None:
    data, offsets = _packed(codec, values)
    column = codec.arrow_column(data, offsets)
    assert column.type == codec.arrow_type()
    if codec is MD5_HASH:
        assert column.to_pylist() == [codec.serialize(v) for v in values]
    else:
        assert column.to_pylist() == values


def test_arrow_text_column_refuses_inconsistent_lengths() -> None:
    data = np.frombuffer(b"\x05ab", dtype=np.uint8)
    with pytest.raises(HadoopFormatError, match="vint length"):
        TEXT.arrow_column(data, np.array([0, 3]))
    with pytest.raises(HadoopFormatError, match="int length"):
        BYTES.arrow_column(np.frombuffer(b"\x00\x00\x00\x09a", dtype=np.uint8), np.array([0, 5]))


def test_arrow_text_column_with_bytes_that_are_not_utf8_is_still_a_string_column() -> None:
    data = np.frombuffer(b"\x02\xff\x41", dtype=np.uint8)
    column = TEXT.arrow_column(data, np.array([0, 3]))
    assert column.type == pa.string()
    assert column.to_pylist() == ["\ufffdA"]
