"""Blocks of CrawlDatum values decoded to Arrow at once equal the record-by-record decoding."""

from __future__ import annotations

import io
import random

import pytest

from gossamer.store.hadoop import (
    BLOCK,
    DEFAULT_REGISTRY,
    RECORD,
    HadoopFormatError,
    NutchCrawlDatum,
    SequenceFileReader,
    SequenceFileWriter,
    Typed,
)
from gossamer.store.hadoop.nutch_crawldatum_arrow import crawl_datum_column, decode_metadata

DATUM = "org.apache.nutch.crawl.CrawlDatum"
TEXT = "org.apache.hadoop.io.Text"


def _datums(count: int) -> list[tuple[str, NutchCrawlDatum]]:
    rng = random.Random(7)
    rows = []
    for i in range(count):
        signature = None if i % 3 == 0 else bytes(rng.randrange(256) for _ in range(rng.choice((16, 20, 255))))
        metadata = None if i % 4 == 0 else {"_ngt_": Typed("org.apache.hadoop.io.LongWritable", 10**12 + i),
                                            "Content-Type": "text/html", "é": f"v{i}"}
        rows.append((f"https://h{i % 17}.example/p{i}", NutchCrawlDatum(
            status=rng.choice((1, 2, 3, 0x21, 0x25, 0x43)), fetch_time=rng.randrange(-2**40, 2**40),
            retries=rng.randrange(-128, 128), fetch_interval=rng.randrange(-2**31, 2**31),
            score=rng.choice((0.0, 1.5, -2.25, 1e-30)), modified_time=rng.randrange(0, 2**50),
            signature=signature, metadata=metadata)))
    return rows


def _file(rows: list[tuple[str, NutchCrawlDatum]], compression: str) -> bytes:
    sink = io.BytesIO()
    with SequenceFileWriter(sink, TEXT, DATUM, compression=compression, codec="DefaultCodec",
                            block_size=20_000) as writer:
        for key, value in rows:
            writer.append(key, value)
    return sink.getvalue()


@pytest.mark.parametrize("compression", [BLOCK, RECORD])
def test_batches_of_crawl_datums_equal_the_records(compression: str) -> None:
    rows = _datums(1500)
    data = _file(rows, compression)
    map_codec = DEFAULT_REGISTRY.get("org.apache.hadoop.io.MapWritable")
    decoded = []
    for batch in SequenceFileReader(data).batches(size=256):
        for key, value in zip(batch.column("key").to_pylist(), batch.column("value").to_pylist(), strict=True):
            decoded.append((key, NutchCrawlDatum(
                value["status"], value["fetch_time"], value["retries"], value["fetch_interval"], value["score"],
                value["modified_time"], value["signature"], decode_metadata(value["metadata"], map_codec))))
    assert decoded == list(SequenceFileReader(data))
    assert len(decoded) == len(rows)


def test_older_versions_in_a_block_are_decoded_record_by_record() -> None:
    codec = DEFAULT_REGISTRY.get(DATUM)
    # version 5: the interval is a float, the status code is current (≥ v5)
    v5 = bytes([5, 0x02]) + (1234).to_bytes(8, "big") + bytes([0]) + bytes.fromhex("47a8c000") \
        + bytes.fromhex("3f800000") + (99).to_bytes(8, "big") + bytes([0]) + bytes([0])
    v7 = codec.serialize(NutchCrawlDatum(0x21, fetch_time=5, score=0.5))
    sink = io.BytesIO()
    with SequenceFileWriter(sink, TEXT, DATUM, compression=BLOCK, codec="DefaultCodec") as writer:
        writer.append_raw(b"\x01a", v5)
        writer.append_raw(b"\x01b", v7)
    batch = next(SequenceFileReader(sink.getvalue()).batches())
    values = batch.column("value").to_pylist()
    assert [v["version"] for v in values] == [5, 7]
    assert values[0]["fetch_interval"] == 86400 and values[0]["modified_time"] == 99
    assert values[1]["status"] == 0x21 and values[1]["score"] == 0.5


def test_a_damaged_value_is_an_error_not_a_wrong_row() -> None:
    import numpy as np

    codec = DEFAULT_REGISTRY.get(DATUM)
    good = codec.serialize(NutchCrawlDatum(2, signature=b"x" * 16))
    bad = good[:27] + bytes([200]) + good[28:]  # a signature longer than the value
    for value in (bad, good[:20], bytes([7]) + good[1:-1] + bytes([3])):
        data = np.frombuffer(value, dtype=np.uint8)
        with pytest.raises(HadoopFormatError):
            crawl_datum_column(data, np.array([0, len(value)]))
        with pytest.raises(HadoopFormatError):
            codec.arrow_column(data, np.array([0, len(value)]))


def test_import_rows_decoded_at_once_equal_the_record_by_record_conversion() -> None:
    import pyarrow as pa

    from gossamer.crawl.nutchio.table_import import crawldb_rows
    from gossamer.store import datums_to_batch
    from gossamer.store.hadoop import TEXT, to_core_datum

    rows = _datums(700)
    codec = DEFAULT_REGISTRY.get(DATUM)
    raw = pa.RecordBatch.from_pydict({"key": [TEXT.serialize(url) for url, _ in rows],
                                      "value": [codec.serialize(datum) for _, datum in rows]})
    assert crawldb_rows(raw).equals(datums_to_batch([(url, to_core_datum(datum)) for url, datum in rows]))
