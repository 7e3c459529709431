"""Nutch 1.x records → Gossamer core records → Nutch: equal records and, for CrawlDatum, equal bytes."""

from __future__ import annotations

import json
import math
import random
import struct

import pytest

from gossamer.core import Content, CrawlDatum, CrawlStatus, ParseStatusCode, ProtocolStatus, ProtocolStatusCode
from gossamer.store.hadoop import HadoopFormatError, Typed, WritableMap
from gossamer.store.hadoop.nutch_convert import (
    MULTI_KEY,
    PARSE_STATUS_KEY,
    from_core_content,
    from_core_datum,
    from_core_inlinks,
    from_core_parse_data,
    from_core_parse_text,
    from_core_protocol_status,
    to_core_content,
    to_core_datum,
    to_core_inlinks,
    to_core_parse_data,
    to_core_parse_text,
    to_core_protocol_status,
)
from gossamer.store.hadoop.nutch_crawldatum import NutchCrawlDatum
from gossamer.store.hadoop.nutch_metadata_map import TYPES_KEY, map_to_strings, strings_to_map
from gossamer.store.hadoop.nutch_registry import nutch_registry
from gossamer.store.hadoop.nutch_segment_records import NutchContent, NutchInlink, NutchOutlink, NutchParseData
from gossamer.store.hadoop.nutch_status import NutchParseStatus, NutchProtocolStatus

REG = nutch_registry()
DATUM = REG.get("org.apache.nutch.crawl.CrawlDatum")
PARSE_DATA = REG.get("org.apache.nutch.parse.ParseData")
CONTENT = REG.get("org.apache.nutch.protocol.Content")
IO = "org.apache.hadoop.io."
PST = "org.apache.nutch.protocol.ProtocolStatus"
NAN_PAYLOAD = struct.unpack(">f", bytes.fromhex("7fc00001"))[0]

TYPED_VALUES = [
    ("Text", "plain"), ("Text", "ünïcödé ✓ 𝄞"), ("Text", ""), ("Text", "1700000000000"),
    ("LongWritable", 1_700_000_000_000), ("LongWritable", -(2**63)), ("IntWritable", 15), ("VIntWritable", -7),
    ("VLongWritable", 2**40), ("FloatWritable", 0.1), ("FloatWritable", float("inf")),
    ("FloatWritable", NAN_PAYLOAD), ("DoubleWritable", 1 / 3), ("BooleanWritable", True),
    ("BooleanWritable", False), ("NullWritable", None), ("BytesWritable", b"\x00\xff raw"), ("MD5Hash", bytes(16)),
]
STATUSES = [NutchProtocolStatus(1), NutchProtocolStatus(12, 5, ["http://example.com/, with comma"]),
            NutchProtocolStatus(16, 0, []), NutchProtocolStatus(16, 0, ["a", None]), NutchProtocolStatus(99, -1, [""])]


def _full(name: str) -> str:
    return name if "." in name else IO + name


def random_metadata(rng: random.Random) -> WritableMap | None:
    choice = rng.random()
    if choice < 0.15:
        return None
    meta = WritableMap()
    for index in range(rng.randint(0, 6)):
        kind = rng.random()
        if kind < 0.5:
            cls, value = rng.choice(TYPED_VALUES)
            key = rng.choice(["_ngt_", "_rs_", "fixedInterval", "Content-Type", "ключ", f"k{index}"])
        elif kind < 0.7:
            cls, value, key = PST, rng.choice(STATUSES), rng.choice(["_pst_", f"p{index}"])
        elif kind < 0.8:
            inner = WritableMap({"x": 1})
            inner.classes["x"] = (IO + "Text", IO + "IntWritable")
            cls, value, key = "MapWritable", inner, f"nested{index}"
        else:
            cls, value, key = "Text", f"v{index}", index  # an IntWritable key
        if key in meta:
            continue
        meta[key] = value
        meta.classes[key] = (IO + ("IntWritable" if isinstance(key, int) else "Text"), _full(cls))
    if rng.random() < 0.2:
        meta.custom = [PST, "org.apache.nutch.crawl.CrawlDatum"][: rng.randint(1, 2)]
    return meta


def random_datum(rng: random.Random, status: int) -> NutchCrawlDatum:
    signature = rng.choice([None, bytes(rng.randrange(256) for _ in range(16)), bytes([1]) * 200])
    score = struct.unpack(">f", struct.pack(">f", rng.uniform(-5, 5)))[0]
    return NutchCrawlDatum(status, rng.randrange(-(2**40), 2**42), rng.randint(-128, 127),
                           rng.randrange(0, 2**31), score, rng.randrange(0, 2**42), signature, random_metadata(rng))


@pytest.mark.parametrize("status", [int(code) for code in CrawlStatus])
def test_crawldatum_round_trip_through_gossamer_is_byte_exact(status: int) -> None:
    rng = random.Random(status)
    for _ in range(40):
        data = DATUM.serialize(random_datum(rng, status))
        nutch = DATUM.deserialize(data)
        core = to_core_datum(nutch, REG)
        assert isinstance(core, CrawlDatum) and all(isinstance(v, str) for v in core.metadata.values())
        back = from_core_datum(core, REG)
        assert DATUM.serialize(back) == data
        if not any(isinstance(v, float) and math.isnan(v) for v in (nutch.metadata or {}).values()):
            assert back == nutch


def test_text_forms_are_natural_and_need_no_types_key() -> None:
    meta = WritableMap({"_ngt_": 1_700_000_000_000, "_pst_": NutchProtocolStatus(12, 0, ["http://x/"]),
                        "fixedInterval": 0.1, "_rs_": 15, "Content-Type": "text/html"})
    for key, cls in (("_ngt_", "LongWritable"), ("_pst_", PST), ("fixedInterval", "FloatWritable"),
                     ("_rs_", "IntWritable"), ("Content-Type", "Text")):
        meta.classes[key] = (IO + "Text", _full(cls))
    strings = map_to_strings(meta, REG)
    assert strings == {"_ngt_": "1700000000000", "_pst_": "moved(12), lastModified=0: http://x/",
                       "fixedInterval": "0.1", "_rs_": "15", "Content-Type": "text/html"}
    assert strings["_pst_"] == ProtocolStatus(ProtocolStatusCode.MOVED, ("http://x/",)).to_text()


def test_gossamer_metadata_exports_with_nutch_classes() -> None:
    core = CrawlDatum(status=CrawlStatus.DB_FETCHED, metadata={
        "_ngt_": "123", "_pst_": ProtocolStatus(ProtocolStatusCode.SUCCESS).to_text(), "fixedInterval": "86400.0",
        "note": "x", "_rs_": "soon"})
    nutch = from_core_datum(core, REG)
    assert nutch.metadata.classes["_ngt_"][1] == IO + "LongWritable" and nutch.metadata["_ngt_"] == 123
    assert nutch.metadata["_pst_"] == NutchProtocolStatus(1, 0, None)
    assert nutch.metadata.classes["fixedInterval"][1] == IO + "FloatWritable"
    assert nutch.metadata.classes["_rs_"][1] == IO + "Text"  # unparsable default-typed value stays Text
    again = to_core_datum(DATUM.deserialize(DATUM.serialize(nutch)), REG)
    assert {k: v for k, v in again.metadata.items() if k != TYPES_KEY} == core.metadata
    assert from_core_datum(CrawlDatum(), REG).metadata is None


def test_unmappable_metadata_is_an_error() -> None:
    with pytest.raises(HadoopFormatError, match="reserved"):
        map_to_strings({TYPES_KEY: "x"}, REG)
    clash = WritableMap({"1": "a", 1: "b"})
    clash.classes[1] = (IO + "IntWritable", IO + "Text")
    with pytest.raises(HadoopFormatError, match="twice"):
        map_to_strings(clash, REG)
    with pytest.raises(HadoopFormatError, match="LongWritable"):
        strings_to_map({"k": "x", TYPES_KEY: '{"entries":{"k":{"v":"org.apache.hadoop.io.LongWritable"}}}'}, REG)
    assert map_to_strings({"t": Typed(IO + "IntWritable", 3)}, REG) == {
        "t": "3", TYPES_KEY: '{"entries":{"t":{"v":"org.apache.hadoop.io.IntWritable"}}}'}


def test_protocol_status_conversion() -> None:
    status = NutchProtocolStatus(12, 9, ["http://example.com/"])
    core = to_core_protocol_status(status)
    assert core == ProtocolStatus(ProtocolStatusCode.MOVED, ("http://example.com/",), 9)
    assert from_core_protocol_status(core) == status
    assert from_core_protocol_status(to_core_protocol_status(NutchProtocolStatus(1))) == NutchProtocolStatus(1)
    with pytest.raises(HadoopFormatError, match="known ProtocolStatus code"):
        to_core_protocol_status(NutchProtocolStatus(99))


CONTENTS = [
    NutchContent("http://example.com/", "http://example.com/", b"<html>\xff", "text/html",
                 {"Server": ["nginx"], "Set-Cookie": ["a=1", "b=2"], "nutch.segment.name": ["20240101000000"],
                  "_fst_": ["33"], "nutch.crawl.score": ["1.0", "2.0"]}),
    NutchContent("http://例え.jp/", "http://例え.jp/ü", b"", "", {}),
]


@pytest.mark.parametrize("content", CONTENTS)
def test_content_round_trip(content: NutchContent) -> None:
    nutch = CONTENT.deserialize(CONTENT.serialize(content))
    core = to_core_content(nutch)
    assert isinstance(core, Content)
    assert from_core_content(core) == nutch


def test_content_split_into_headers_and_metadata() -> None:
    core = to_core_content(CONTENTS[0])
    assert core.metadata == {"nutch.segment.name": "20240101000000", "_fst_": "33"}
    assert core.headers == [("Server", "nginx"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
                            ("nutch.crawl.score", "1.0"), ("nutch.crawl.score", "2.0")]


PARSES = [
    NutchParseData(NutchParseStatus(1), "Title ✓", [NutchOutlink("http://a/", "A"), NutchOutlink("http://b/")],
                   {"lang": ["en"]}, {"robots": ["noindex", "nofollow"]}),
    NutchParseData(NutchParseStatus(2, 200, ["java.io.IOException: x"]), "", [], {}, {}),
    NutchParseData(NutchParseStatus(2, 0, ["boom"]), "", [], {}, {}),
    NutchParseData(NutchParseStatus(0, 0, [""]), "t", [], {}, {}),
    NutchParseData(NutchParseStatus(7, 1, ["a", None]), "t", [], {}, {}),
]


@pytest.mark.parametrize("parse", PARSES)
def test_parse_data_round_trip(parse: NutchParseData) -> None:
    outlink_meta = WritableMap({"rel": "nofollow", "w": 2})
    outlink_meta.classes.update({"rel": (IO + "Text", IO + "Text"), "w": (IO + "Text", IO + "IntWritable")})
    parse.outlinks.append(NutchOutlink("http://c/", "ç", outlink_meta))
    data = PARSE_DATA.serialize(parse)
    nutch = PARSE_DATA.deserialize(data)
    back = from_core_parse_data(to_core_parse_data(nutch, REG), REG)
    assert back == nutch and PARSE_DATA.serialize(back) == data


def test_parse_data_reserved_keys() -> None:
    core = to_core_parse_data(PARSES[0], REG)
    assert core.status == ParseStatusCode.SUCCESS and core.parse_metadata["robots"] == "noindex"
    assert json.loads(core.parse_metadata[MULTI_KEY]) == {"robots": ["noindex", "nofollow"]}
    assert PARSE_STATUS_KEY not in core.parse_metadata
    failed = to_core_parse_data(PARSES[1], REG)
    assert failed.status_message == "java.io.IOException: x" and PARSE_STATUS_KEY in failed.parse_metadata
    simple = to_core_parse_data(PARSES[2], REG)
    assert simple.status == ParseStatusCode.FAILED and simple.parse_metadata == {}


def test_inlinks_and_parse_text() -> None:
    inlinks = [NutchInlink("http://a/", "x"), NutchInlink("http://ü/", "")]
    assert from_core_inlinks(to_core_inlinks(inlinks)) == inlinks
    assert from_core_parse_text(to_core_parse_text("tëxt")) == "tëxt"


def test_damaged_reserved_keys_are_errors() -> None:
    with pytest.raises(HadoopFormatError, match="_nutch_types_"):
        strings_to_map({"k": "v", TYPES_KEY: "{not json"}, REG)
    with pytest.raises(HadoopFormatError, match="JSON object"):
        strings_to_map({"k": "v", TYPES_KEY: "[1]"}, REG)
    broken = to_core_parse_data(PARSES[0], REG)
    broken.parse_metadata[MULTI_KEY] = "{"
    with pytest.raises(HadoopFormatError, match=MULTI_KEY):
        from_core_parse_data(broken, REG)
