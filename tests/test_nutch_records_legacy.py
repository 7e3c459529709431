"""Nutch 0.4/0.5 record codecs on bytes built by hand from the seed's layouts."""

from __future__ import annotations

import gzip

import pytest

from gossamer.store.hadoop import HadoopFormatError
from gossamer.store.hadoop.nutch_common import java_gzip
from gossamer.store.hadoop.nutch_legacy import (
    Compressed,
    FetcherOutput,
    FetchListEntry,
    LegacyOutlink,
    LegacyPage,
    compressed_text,
    text_compressed,
)
from gossamer.store.hadoop.nutch_legacy05 import LegacyContent, LegacyParseData
from gossamer.store.hadoop.nutch_registry import nutch_registry
from tests.test_nutch_records import T, h

REG = nutch_registry()
PAGE = REG.get("net.nutch.db.Page")
ENTRY = REG.get("net.nutch.pagedb.FetchListEntry")
OUTPUT = REG.get("net.nutch.fetcher.FetcherOutput")
FETCHER_CONTENT = REG.get("net.nutch.fetcher.FetcherContent")
FETCHER_TEXT = REG.get("net.nutch.fetcher.FetcherText")
CONTENT = REG.get("net.nutch.protocol.Content")
PARSE_TEXT = REG.get("net.nutch.parse.ParseText")
PARSE_DATA = REG.get("net.nutch.parse.ParseData")

MD5 = bytes(range(0xA0, 0xB0))
# Java's GZIPOutputStream of b"hello": fixed header, deflate level 6, CRC-32 and size (little-endian)
GZ_HELLO = "1f 8b 08 00 00 00 00 00 00 00  cb 48 cd c9 c9 07 00  86 a6 10 36 05 00 00 00"
GZ_HTML = "1f 8b 08 00 00 00 00 00 00 00  b3 29 b0 cb c8 b4 d1 2f b0 03 00  65 d2 37 6d 09 00 00 00"

PAGE_V4 = h(f'04 00 13 "http://example.com/" {MD5.hex()} {T} 00 1e 00 00 00 05 3f 80 00 00 3f 00 00 00')
PAGE_VALUE = LegacyPage("http://example.com/", MD5, 1_700_000_000_000, 0, 30, 5, 1.0, 0.5)
ENTRY_V2 = h("02 01") + PAGE_V4 + h('00 00 00 02 00 04 "home" 00 03 "top"')
ENTRY_VALUE = FetchListEntry(True, PAGE_VALUE, ["home", "top"])
OUTPUT_V3 = h("03") + ENTRY_V2 + h(f'{MD5.hex()} 01 00 05 "Title" 00 00 00 01 '
                                   f'00 13 "http://example.org/" 00 04 "next" {T}')
OUTPUT_V4 = h("04") + ENTRY_V2 + h(f"{MD5.hex()} 01 {T}")


def test_page_and_fetch_list_entry() -> None:
    assert PAGE.deserialize(PAGE_V4) == PAGE_VALUE
    assert PAGE.serialize(PAGE_VALUE) == PAGE_V4
    assert ENTRY.deserialize(ENTRY_V2) == ENTRY_VALUE
    assert ENTRY.serialize(ENTRY_VALUE) == ENTRY_V2
    assert ENTRY.to_json(ENTRY_VALUE)["page"]["md5"] == MD5.hex()


@pytest.mark.parametrize(("data", "expected"), [
    (h(f'01 00 01 "u" {MD5.hex()} {T} 02 07'), LegacyPage("u", MD5, 1_700_000_000_000, 2, 7, 0, 1.0, 1.0, 1)),
    (h(f'02 00 01 "u" {MD5.hex()} {T} 02 07 40 20 00 00'), LegacyPage("u", MD5, 1_700_000_000_000, 2, 7, 0, 2.5,
                                                                       1.0, 2)),
    (h(f'03 00 01 "u" {MD5.hex()} {T} 02 07 00 00 00 09 40 20 00 00'),
     LegacyPage("u", MD5, 1_700_000_000_000, 2, 7, 9, 2.5, 1.0, 3)),
])
def test_older_pages_read_and_written_in_their_version(data: bytes, expected: LegacyPage) -> None:
    assert PAGE.deserialize(data) == expected
    assert PAGE.serialize(expected) == data


def test_fetcher_output_v3_and_v4() -> None:
    v3 = OUTPUT.deserialize(OUTPUT_V3)
    assert v3 == FetcherOutput(ENTRY_VALUE, MD5, 1, 1_700_000_000_000, "Title",
                               [LegacyOutlink("http://example.org/", "next")], 3)
    assert OUTPUT.serialize(v3) == OUTPUT_V3
    v4 = OUTPUT.deserialize(OUTPUT_V4)
    assert v4 == FetcherOutput(ENTRY_VALUE, MD5, 1, 1_700_000_000_000, version=4)
    assert OUTPUT.serialize(v4) == OUTPUT_V4
    assert "title" in OUTPUT.to_json(v3) and "title" not in OUTPUT.to_json(v4)


def test_fetcher_content_and_text_gzip() -> None:
    data = h(f"01 00 00 00 19 {GZ_HELLO}")
    content = FETCHER_CONTENT.deserialize(data)
    assert content == Compressed(b"hello")
    assert FETCHER_CONTENT.serialize(content) == data
    assert FETCHER_CONTENT.serialize(Compressed(b"hello")) == data  # fresh: written as Java writes it
    assert java_gzip(b"hello") == h(GZ_HELLO)
    assert FETCHER_CONTENT.to_json(content) == {"content": {"base64": "aGVsbG8="}}
    text = FETCHER_TEXT.deserialize(data)
    assert compressed_text(text) == "hello" and FETCHER_TEXT.to_json(text) == {"text": "hello"}
    assert FETCHER_TEXT.serialize(text_compressed("hello")) == data
    assert FETCHER_CONTENT.serialize(Compressed(None)) == h("01 ff ff ff ff")
    assert FETCHER_CONTENT.deserialize(h("01 ff ff ff ff")) == Compressed(None)


def test_foreign_gzip_bytes_are_written_back_verbatim_unless_changed() -> None:
    foreign = gzip.compress("héllo wörld".encode(), mtime=1234)
    data = b"\x01" + len(foreign).to_bytes(4, "big") + foreign
    value = FETCHER_TEXT.deserialize(data)
    assert compressed_text(value) == "héllo wörld"
    assert FETCHER_TEXT.serialize(value) == data
    value.data = b"changed"
    assert FETCHER_TEXT.serialize(value) == b"\x01" + len(java_gzip(b"changed")).to_bytes(4, "big") + java_gzip(
        b"changed")


CONTENT_V1 = h(f'01 00 12 "http://example.com" 00 12 "http://example.com" 00 00 00 1d {GZ_HTML} '
               '00 09 "text/html" 00 00 00 01 00 06 "Server" 00 05 "nginx"')


def test_content_v1() -> None:
    content = CONTENT.deserialize(CONTENT_V1)
    assert content == LegacyContent("http://example.com", "http://example.com", b"<p>hi</p>", "text/html",
                                    {"Server": "nginx"})
    assert CONTENT.serialize(content) == CONTENT_V1
    assert CONTENT.to_json(content)["metadata"] == {"Server": "nginx"}


def test_parse_text_and_parse_data_v1() -> None:
    text = h(f"01 00 00 00 19 {GZ_HELLO}")
    assert compressed_text(PARSE_TEXT.deserialize(text)) == "hello"
    assert PARSE_TEXT.serialize(text_compressed("hello")) == text
    data = h('01 00 05 "Title" 00 00 00 01 00 13 "http://example.org/" 00 04 "next" '
             '00 00 00 01 00 04 "lang" 00 02 "en"')
    parse = PARSE_DATA.deserialize(data)
    assert parse == LegacyParseData("Title", [LegacyOutlink("http://example.org/", "next")], {"lang": "en"})
    assert PARSE_DATA.serialize(parse) == data


def test_non_ascii_utf8_strings() -> None:
    page = LegacyPage("http://例え.jp/é", MD5)
    assert PAGE.deserialize(PAGE.serialize(page)) == page
    assert PAGE.serialize(page)[1:3] == len("http://例え.jp/é".encode()).to_bytes(2, "big")


@pytest.mark.parametrize(("codec", "data"), [
    (PAGE, PAGE_V4), (ENTRY, ENTRY_V2), (OUTPUT, OUTPUT_V3), (OUTPUT, OUTPUT_V4),
    (FETCHER_CONTENT, h(f"01 00 00 00 19 {GZ_HELLO}")), (CONTENT, CONTENT_V1),
])
def test_truncations_and_versions_are_errors_with_offsets(codec, data: bytes) -> None:  # type: ignore[no-untyped-def]
    for cut in range(len(data)):
        with pytest.raises(HadoopFormatError) as info:
            codec.deserialize(data[:cut], base=10)
        assert info.value.offset is not None and 10 <= info.value.offset <= 10 + len(data)
    with pytest.raises(HadoopFormatError, match="version") as info:
        codec.deserialize(b"\x09" + data[1:], base=10)
    assert info.value.offset == 10


def test_corrupt_gzip_and_bad_lengths() -> None:
    with pytest.raises(HadoopFormatError, match="gzip data") as info:
        FETCHER_CONTENT.deserialize(h("01 00 00 00 03 01 02 03"))
    assert info.value.offset == 5
    truncated = h(GZ_HELLO)[:-3]
    with pytest.raises(HadoopFormatError, match="gzip data"):
        FETCHER_CONTENT.deserialize(b"\x01" + len(truncated).to_bytes(4, "big") + truncated)
    with pytest.raises(HadoopFormatError, match="length \\(or -1\\), found -2") as info:
        FETCHER_CONTENT.deserialize(h("01 ff ff ff fe"))
    assert info.value.offset == 1
    with pytest.raises(HadoopFormatError, match="anchor count"):
        ENTRY.deserialize(h("02 01") + PAGE_V4 + h("ff ff ff ff"))


def test_write_refuses_bad_values() -> None:
    with pytest.raises(HadoopFormatError, match="16 bytes"):
        PAGE.serialize(LegacyPage("u", b"short"))
    with pytest.raises(HadoopFormatError, match="fetchInterval"):
        PAGE.serialize(LegacyPage("u", MD5, fetch_interval=300))
    with pytest.raises(HadoopFormatError, match="at most 21845"):
        PAGE.serialize(LegacyPage("u" * 30000, MD5))
