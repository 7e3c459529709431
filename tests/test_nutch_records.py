"""Nutch 1.x record codecs on hand-built bytes (reference §10): fields, byte-exact round trips, errors."""

from __future__ import annotations

import gzip
import zlib

import pytest

from gossamer.store.hadoop import HadoopFormatError
from gossamer.store.hadoop.nutch_crawldatum import NutchCrawlDatum, java_round
from gossamer.store.hadoop.nutch_registry import nutch_registry
from gossamer.store.hadoop.nutch_segment_records import NutchContent, NutchInlink, NutchOutlink
from gossamer.store.hadoop.nutch_status import NutchParseStatus, NutchProtocolStatus

REG = nutch_registry()
CRAWL_DATUM = REG.get("org.apache.nutch.crawl.CrawlDatum")
CONTENT = REG.get("org.apache.nutch.protocol.Content")
PARSE_DATA = REG.get("org.apache.nutch.parse.ParseData")
PARSE_TEXT = REG.get("org.apache.nutch.parse.ParseText")
PROTOCOL_STATUS = REG.get("org.apache.nutch.protocol.ProtocolStatus")
PARSE_STATUS = REG.get("org.apache.nutch.parse.ParseStatus")
INLINKS = REG.get("org.apache.nutch.crawl.Inlinks")
OUTLINK = REG.get("org.apache.nutch.parse.Outlink")


def h(text: str) -> bytes:
    """Bytes from spaced hex; ``"…"`` segments are ASCII."""
    out = bytearray()
    pieces = text.split('"')
    for index, piece in enumerate(pieces):
        out += piece.encode() if index % 2 else bytes.fromhex("".join(piece.split()))
    return bytes(out)


SIG = bytes(range(16))
T = "00 00 01 8b cf e5 68 00"  # 1700000000000 ms
PST = "org.apache.nutch.protocol.ProtocolStatus"

# CrawlDatum v7: fetch_success, 30 days, score 1.0, MD5 signature, metadata {_ngt_: Long, _pst_: ProtocolStatus}
DATUM_V7 = h(f"""07 21 {T} 00 00 27 8d 00 3f 80 00 00 {T}
    10 {SIG.hex()}
    01
    01 01 00 28 "{PST}"
    00 00 00 02
    8c 05 "_ngt_" 86 {T}
    8c 05 "_pst_" 01   02 01 00 00 00 00 00 00 00 00 ff ff ff ff""")

# v7 without signature or metadata: linked, interval 0, score 0.5, modified 0
DATUM_V7_BARE = h("07 43 00 00 00 00 00 00 00 2a 03 00 00 00 00 3f 00 00 00 00 00 00 00 00 00 00 00 00 00")


def test_crawldatum_v7_fields_round_trip_and_json() -> None:
    datum = CRAWL_DATUM.deserialize(DATUM_V7)
    assert (datum.status, datum.fetch_time, datum.retries, datum.fetch_interval, datum.score) == (
        0x21, 1_700_000_000_000, 0, 2_592_000, 1.0)
    assert datum.modified_time == 1_700_000_000_000 and datum.signature == SIG
    assert datum.metadata == {"_ngt_": 1_700_000_000_000, "_pst_": NutchProtocolStatus(1, 0, None)}
    assert datum.metadata.classes["_pst_"] == ("org.apache.hadoop.io.Text", PST)
    assert CRAWL_DATUM.serialize(datum) == DATUM_V7
    rendered = CRAWL_DATUM.to_json(datum)
    assert rendered["status_name"] == "fetch_success" and rendered["signature"] == SIG.hex()
    assert rendered["metadata"]["_pst_"] == {"code": 1, "name": "success", "last_modified": 0, "args": None}

    bare = CRAWL_DATUM.deserialize(DATUM_V7_BARE)
    assert bare == NutchCrawlDatum(0x43, 42, 3, 0, 0.5, 0, None, None)
    assert CRAWL_DATUM.serialize(bare) == DATUM_V7_BARE


def test_crawldatum_empty_metadata_is_written_as_absent() -> None:
    assert CRAWL_DATUM.serialize(NutchCrawlDatum(0x43, 42, 3, 0, 0.5, metadata={})) == DATUM_V7_BARE


@pytest.mark.parametrize(("data", "expected"), [
    # v1/v2: float interval, no modified time or signature, old status 2 = db_fetched
    (h(f"01 02 {T} 01 4a 1e 34 00 3f 80 00 00"), NutchCrawlDatum(0x02, 1_700_000_000_000, 1, 2_592_000, 1.0)),
    (h(f"02 06 {T} 00 47 a8 c0 40 3f 00 00 00"), NutchCrawlDatum(0x22, 1_700_000_000_000, 0, 86_401, 0.5)),
    # v3: + modified time, signature (old status 0 = signature)
    (h(f"03 00 {T} 00 45 61 06 66 00 00 00 00 {T} 02 ab cd"),
     NutchCrawlDatum(0x41, 1_700_000_000_000, 0, 3600, 0.0, 1_700_000_000_000, b"\xab\xcd")),
    # v4: + metadata flag (old status 7 = fetch_gone); unknown old status 9 → db_unfetched
    (h(f"04 07 {T} 00 40 20 00 00 00 00 00 00 {T} 00 00"), NutchCrawlDatum(0x25, 1_700_000_000_000, 0, 3, 0.0,
                                                                            1_700_000_000_000)),
    (h(f"04 09 {T} 00 40 20 00 00 00 00 00 00 {T} 00 00"), NutchCrawlDatum(0x01, 1_700_000_000_000, 0, 3, 0.0,
                                                                            1_700_000_000_000)),
    # v5: new status codes, still a float interval; metadata present
    (h(f'05 04 {T} 00 40 20 00 00 00 00 00 00 {T} 00 01 00 00 00 00 01 8c 01 "k" 8c 01 "v"'),
     NutchCrawlDatum(0x04, 1_700_000_000_000, 0, 3, 0.0, 1_700_000_000_000, None, {"k": "v"})),
    # v6: int interval
    (h(f"06 05 {T} 02 00 00 00 07 00 00 00 00 {T} 00 00"), NutchCrawlDatum(0x05, 1_700_000_000_000, 2, 7, 0.0,
                                                                            1_700_000_000_000)),
])
def test_crawldatum_older_versions(data: bytes, expected: NutchCrawlDatum) -> None:
    datum = CRAWL_DATUM.deserialize(data)
    assert datum == expected
    assert datum.version == data[0]
    again = CRAWL_DATUM.deserialize(CRAWL_DATUM.serialize(datum))
    assert again == datum and again.version == 7


def test_java_round() -> None:
    assert [java_round(x) for x in (2.5, -2.5, 0.49999997, float("nan"), 1e12, -1e12)] == [
        3, -2, 0, 0, 2**31 - 1, -(2**31)]


def test_crawldatum_long_signature_uses_unsigned_length() -> None:
    datum = NutchCrawlDatum(0x02, signature=bytes(200))
    data = CRAWL_DATUM.serialize(datum)
    assert data[27] == 200 and CRAWL_DATUM.deserialize(data) == datum
    with pytest.raises(HadoopFormatError, match="at most 255"):
        CRAWL_DATUM.serialize(NutchCrawlDatum(0x02, signature=bytes(256)))


@pytest.mark.parametrize("bad", [
    NutchCrawlDatum(0x100), NutchCrawlDatum(1, retries=200), NutchCrawlDatum(1, fetch_interval=2**31),
    NutchCrawlDatum(1, score=1e39), NutchCrawlDatum(1, fetch_time=2**63),
])
def test_crawldatum_out_of_range_values_are_refused(bad: NutchCrawlDatum) -> None:
    with pytest.raises(HadoopFormatError):
        CRAWL_DATUM.serialize(bad)


CONTENT_BYTES = h('ff ff ff ff 12 "http://example.com" 12 "http://example.com" 00 00 00 05 "hello" '
                  '09 "text/html" 00 00 00 01 06 "Server" 00 00 00 02 05 "nginx" 01 "x"')
CONTENT_VALUE = NutchContent("http://example.com", "http://example.com", b"hello", "text/html",
                             {"Server": ["nginx", "x"]})


def test_content_current_form() -> None:
    assert CONTENT.deserialize(CONTENT_BYTES) == CONTENT_VALUE
    assert CONTENT.serialize(CONTENT_VALUE) == CONTENT_BYTES
    assert CONTENT.to_json(CONTENT_VALUE)["content"] == {"base64": "aGVsbG8="}


@pytest.mark.parametrize("inner_version", [0, 1, 2])
def test_content_old_compressed_form(inner_version: int) -> None:
    inner = bytes([inner_version]) + CONTENT_BYTES[4:]
    packed = zlib.compress(inner)
    content = CONTENT.deserialize(len(packed).to_bytes(4, "big") + packed)
    assert content == CONTENT_VALUE and content.version == inner_version
    assert CONTENT.serialize(content) == CONTENT_BYTES


def test_content_errors() -> None:
    with pytest.raises(HadoopFormatError, match="Content version -1") as info:
        CONTENT.deserialize(h("ff ff ff fe"), base=500)
    assert info.value.offset == 500
    with pytest.raises(HadoopFormatError, match="zlib data") as info:
        CONTENT.deserialize(h("00 00 00 03 01 02 03"))
    assert info.value.offset == 4
    packed = zlib.compress(b"\x07")
    with pytest.raises(HadoopFormatError, match="compressed Content version"):
        CONTENT.deserialize(len(packed).to_bytes(4, "big") + packed)


PARSE_STATUS_OK = "02 01 00 00 ff ff ff ff"
PARSE_DATA_BYTES = h(f'05 {PARSE_STATUS_OK} 05 "Title" 00 00 00 02 '
                     '13 "http://example.org/" 04 "next" 00 '
                     '13 "http://example.org/" 00 01 00 00 00 00 01 8c 03 "rel" 8c 08 "nofollow" '
                     '00 00 00 01 04 "lang" 00 00 00 01 02 "en" '
                     '00 00 00 00')


def test_parse_data() -> None:
    data = PARSE_DATA.deserialize(PARSE_DATA_BYTES)
    assert data.status == NutchParseStatus(1, 0, None) and data.title == "Title"
    assert data.outlinks == [NutchOutlink("http://example.org/", "next"),
                             NutchOutlink("http://example.org/", "", {"rel": "nofollow"})]
    assert data.content_meta == {"lang": ["en"]} and data.parse_meta == {}
    assert PARSE_DATA.serialize(data) == PARSE_DATA_BYTES
    rendered = PARSE_DATA.to_json(data)
    assert rendered["status"]["name"] == "success" and rendered["outlinks"][1]["metadata"] == {"rel": "nofollow"}
    with pytest.raises(HadoopFormatError, match="ParseData version 5, found 4"):
        PARSE_DATA.deserialize(b"\x04" + PARSE_DATA_BYTES[1:])


def test_outlink_empty_metadata_written_as_absent() -> None:
    assert OUTLINK.serialize(NutchOutlink("u", "a", {})) == h('01 "u" 01 "a" 00')


def test_parse_text_versions() -> None:
    assert PARSE_TEXT.deserialize(h('02 0b "hello world"')) == "hello world"
    assert PARSE_TEXT.serialize("hello world") == h('02 0b "hello world"')
    packed = gzip.compress("héllo".encode())
    assert PARSE_TEXT.deserialize(b"\x01" + len(packed).to_bytes(4, "big") + packed) == "héllo"
    assert PARSE_TEXT.to_json("x") == {"text": "x"}


def test_protocol_status_and_parse_status() -> None:
    moved = h('02 0c 00 00 00 00 00 00 00 07 00 00 00 02 00 00 00 13 "http://example.com/" ff ff ff ff')
    status = PROTOCOL_STATUS.deserialize(moved)
    assert status == NutchProtocolStatus(12, 7, ["http://example.com/", None]) and status.name == "moved"
    assert PROTOCOL_STATUS.serialize(status) == moved
    packed = gzip.compress(b"boom")
    v1 = h("01 10 00 00 00 00 00 00 00 00 00 00 00 01") + len(packed).to_bytes(4, "big") + packed
    assert PROTOCOL_STATUS.deserialize(v1) == NutchProtocolStatus(16, 0, ["boom"])
    failed = h('02 02 00 c8 00 00 00 01 00 00 00 03 "bad"')
    assert PARSE_STATUS.deserialize(failed) == NutchParseStatus(2, 200, ["bad"])
    assert PARSE_STATUS.serialize(NutchParseStatus(2, 200, ["bad"])) == failed
    with pytest.raises(HadoopFormatError, match="ProtocolStatus version 1/2, found 3"):
        PROTOCOL_STATUS.deserialize(b"\x03" + moved[1:])
    with pytest.raises(HadoopFormatError, match="args length"):
        PARSE_STATUS.deserialize(h("02 02 00 c8 ff ff ff fe"))


def test_inlinks() -> None:
    data = h('00 00 00 02 13 "http://example.org/" 04 "link" 12 "http://example.com" 00')
    inlinks = INLINKS.deserialize(data)
    assert inlinks == [NutchInlink("http://example.org/", "link"), NutchInlink("http://example.com", "")]
    assert INLINKS.serialize(inlinks) == data
    assert INLINKS.to_json(inlinks)["inlinks"][0] == {"from_url": "http://example.org/", "anchor": "link"}
    with pytest.raises(HadoopFormatError, match="Inlinks count"):
        INLINKS.deserialize(h("ff ff ff ff"))


VECTORS = [(CRAWL_DATUM, DATUM_V7), (CRAWL_DATUM, DATUM_V7_BARE), (CONTENT, CONTENT_BYTES),
           (PARSE_DATA, PARSE_DATA_BYTES), (PARSE_TEXT, h('02 0b "hello world"'))]


@pytest.mark.parametrize(("codec", "data"), VECTORS)
def test_every_truncation_is_an_error_with_an_offset(codec, data: bytes) -> None:  # type: ignore[no-untyped-def]
    for cut in range(len(data)):
        with pytest.raises(HadoopFormatError) as info:
            codec.deserialize(data[:cut], name="part-r-00000/data", base=1000)
        assert info.value.file == "part-r-00000/data"
        assert info.value.offset is not None and 1000 <= info.value.offset <= 1000 + len(data)


def test_unknown_metadata_class_and_bad_version() -> None:
    unknown = h(f'07 21 {T} 00 00 27 8d 00 3f 80 00 00 {T} 00 01 01 01 00 03 "a.B" 00 00 00 01 8c 01 "k" 01')
    with pytest.raises(HadoopFormatError, match="'a.B'"):
        CRAWL_DATUM.deserialize(unknown)
    with pytest.raises(HadoopFormatError, match="CrawlDatum version 1/2/3/4/5/6/7, found 8") as info:
        CRAWL_DATUM.deserialize(b"\x08" + DATUM_V7[1:], base=64)
    assert info.value.offset == 64
    with pytest.raises(HadoopFormatError, match="found 0"):
        CRAWL_DATUM.deserialize(b"\x00" + DATUM_V7[1:])
