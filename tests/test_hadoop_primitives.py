"""Java/Hadoop primitives of gossamer.store.hadoop: vints, numbers, the four string encodings, cursor errors."""

from __future__ import annotations

import pytest

from gossamer.store.hadoop import Cursor, HadoopFormatError, Output, decode_vlong, encode_vlong
from gossamer.store.hadoop.primitives import vint_size

# (value, WritableUtils.writeVLong bytes) worked out from the encoding rule of reference §10.1
VLONGS = [
    (0, "00"), (1, "01"), (127, "7f"), (-1, "ff"), (-112, "90"),
    (128, "8f80"), (255, "8fff"), (256, "8e0100"), (-113, "8770"), (-129, "8780"), (-256, "87ff"),
    (-257, "860100"), (65536, "8d010000"), (2**31 - 1, "8c7fffffff"), (-(2**31), "847fffffff"),
    (2**63 - 1, "887fffffffffffffff"), (-(2**63), "807fffffffffffffff"),
]


@pytest.mark.parametrize(("value", "hexed"), VLONGS)
def test_vlong_bytes_are_hadoops(value: int, hexed: str) -> None:
    assert encode_vlong(value).hex() == hexed
    assert decode_vlong(bytes.fromhex(hexed), 0) == (value, len(hexed) // 2)
    assert vint_size(bytes.fromhex(hexed)[0]) == len(hexed) // 2
    out = Output()
    out.write_vlong(value)
    assert Cursor(out.getvalue()).read_vlong() == value


def test_vint_refuses_values_outside_int() -> None:
    out = Output()
    with pytest.raises(HadoopFormatError):
        out.write_vint(2**31)
    with pytest.raises(HadoopFormatError, match="int range"):
        Cursor(encode_vlong(2**31)).read_vint()
    with pytest.raises(HadoopFormatError):
        encode_vlong(2**63)


def test_numbers_are_big_endian_java() -> None:
    out = Output()
    out.write_byte(-2)
    out.write_boolean(True)
    out.write_short(-2)
    out.write_int(0x01020304)
    out.write_long(-2)
    out.write_float(1.5)
    out.write_double(-0.25)
    data = out.getvalue()
    assert data.hex() == "fe01fffe01020304fffffffffffffffe3fc00000bfd0000000000000"
    cursor = Cursor(data)
    assert [cursor.read_byte(), cursor.read_boolean(), cursor.read_short(), cursor.read_int(),
            cursor.read_long(), cursor.read_float(), cursor.read_double()] == [-2, True, -2, 0x01020304, -2, 1.5, -0.25]
    assert cursor.remaining() == 0


def test_text_is_vint_length_and_utf8() -> None:
    out = Output()
    out.write_text("hé")
    assert out.getvalue().hex() == "0368c3a9"
    long_text = "x" * 200
    out = Output()
    out.write_text(long_text)
    assert out.getvalue()[:2].hex() == "8fc8"
    assert Cursor(out.getvalue()).read_text() == long_text


def test_text_that_is_not_utf8_round_trips_byte_for_byte() -> None:
    raw = bytes.fromhex("03ff41fe")
    text = Cursor(raw).read_text()
    out = Output()
    out.write_text(text)
    assert out.getvalue() == raw


def test_old_utf8_is_short_length_and_limited_to_21845_characters() -> None:
    out = Output()
    out.write_utf8_class("long")
    assert out.getvalue() == b"\x00\x04long"
    out = Output()
    out.write_utf8_class("\u20ac" * 21845)  # 65535 bytes, the most that fits
    assert Cursor(out.getvalue()).read_utf8_class() == "\u20ac" * 21845
    with pytest.raises(HadoopFormatError, match="21845"):
        Output().write_utf8_class("a" * 21846)


def test_old_utf8_writes_astral_characters_as_surrogates_and_nul_as_zero() -> None:
    out = Output()
    out.write_utf8_class("\x00\U0001f600")
    assert out.getvalue().hex() == "0007" + "00" + "eda0bd" + "edb880"
    assert Cursor(out.getvalue()).read_utf8_class() == "\x00\U0001f600"


def test_write_utf_is_modified_utf8() -> None:
    out = Output()
    out.write_java_utf("a\x00\U0001f600")
    assert out.getvalue().hex() == "0009" + "61" + "c080" + "eda0bd" + "edb880"
    assert Cursor(out.getvalue()).read_java_utf() == "a\x00\U0001f600"
    with pytest.raises(HadoopFormatError, match="65535"):
        Output().write_java_utf("a" * 65536)


def test_write_string_is_int_length_or_minus_one() -> None:
    out = Output()
    out.write_string("ok")
    out.write_string(None)
    assert out.getvalue().hex() == "000000026f6b" + "ffffffff"
    cursor = Cursor(out.getvalue())
    assert (cursor.read_string(), cursor.read_string()) == ("ok", None)


def test_cursor_errors_name_the_file_and_absolute_offset() -> None:
    cursor = Cursor(b"\x00\x00", name="part-00000", base=100)
    with pytest.raises(HadoopFormatError) as caught:
        cursor.read_int()
    assert str(caught.value) == "part-00000: byte 100: 4 bytes of int, found 2 (truncated)"
    assert (caught.value.file, caught.value.offset) == ("part-00000", 100)
    with pytest.raises(HadoopFormatError, match="non-negative length"):
        Cursor(bytes.fromhex("ff")).read_text()
    with pytest.raises(HadoopFormatError, match="truncated"):
        Cursor(bytes.fromhex("8f")).read_vlong()
