"""Nutch records in the container layer: a 1.x crawldb MapFile, a segment SequenceFile, a 0.5 ArrayFile."""

from __future__ import annotations

from pathlib import Path

from gossamer.store.hadoop import (
    RECORD,
    ArrayFileReader,
    ArrayFileWriter,
    MapFileReader,
    MapFileWriter,
    SequenceFileReader,
    SequenceFileWriter,
    WritableMap,
)
from gossamer.store.hadoop.nutch_crawldatum import NutchCrawlDatum
from gossamer.store.hadoop.nutch_legacy import Compressed, FetcherOutput, FetchListEntry, LegacyPage
from gossamer.store.hadoop.nutch_registry import nutch_registry
from gossamer.store.hadoop.nutch_segment_records import NutchContent
from gossamer.store.hadoop.nutch_status import NutchProtocolStatus

REG = nutch_registry()
TEXT = "org.apache.hadoop.io.Text"
DATUM = "org.apache.nutch.crawl.CrawlDatum"


def _datum(index: int) -> NutchCrawlDatum:
    meta = WritableMap({"_pst_": NutchProtocolStatus(1, index), "_ngt_": index})
    meta.classes.update({"_pst_": (TEXT, "org.apache.nutch.protocol.ProtocolStatus"),
                         "_ngt_": (TEXT, "org.apache.hadoop.io.LongWritable")})
    return NutchCrawlDatum(0x02, index, 0, 2_592_000, 1.0, index, bytes(16), meta if index % 3 else None)


def test_crawldb_mapfile_record_compressed(tmp_path: Path) -> None:
    urls = sorted(f"http://example.com/{index:04d}" for index in range(300))
    with MapFileWriter(tmp_path / "part-r-00000", TEXT, DATUM, compression=RECORD, registry=REG) as writer:
        for index, url in enumerate(urls):
            writer.append(url, _datum(index))
    with MapFileReader(tmp_path / "part-r-00000", registry=REG) as reader:
        assert reader.get(urls[200]) == _datum(200)
        assert reader.get("http://missing/") is None
        assert list(reader) == [(url, _datum(index)) for index, url in enumerate(urls)]


def test_content_sequence_file(tmp_path: Path) -> None:
    path = tmp_path / "content"
    records = [(f"http://x/{n}", NutchContent(f"http://x/{n}", f"http://x/{n}", bytes([n]) * n, "text/plain",
                                              {"Server": ["a"]})) for n in range(50)]
    with SequenceFileWriter(path, TEXT, "org.apache.nutch.protocol.Content", compression=RECORD,
                            registry=REG) as writer:
        for key, value in records:
            writer.append(key, value)
    with SequenceFileReader(path, registry=REG) as reader:
        assert reader.value_class == "org.apache.nutch.protocol.Content"
        assert list(reader) == records


def test_nutch_05_array_file(tmp_path: Path) -> None:
    page = LegacyPage("http://example.com/", bytes(range(16)), 5, 0, 30, 2, 1.0, 1.0)
    outputs = [FetcherOutput(FetchListEntry(True, page, [f"a{n}"]), bytes(16), 1, n) for n in range(20)]
    with ArrayFileWriter(tmp_path / "fetcher", "net.nutch.fetcher.FetcherOutput", registry=REG,
                         version=1) as writer:
        for output in outputs:
            writer.append(output)
    with ArrayFileReader(tmp_path / "fetcher", registry=REG) as reader:
        assert reader.get(7) == outputs[7]
        assert list(reader) == outputs
    with ArrayFileWriter(tmp_path / "fetcher_text", "net.nutch.fetcher.FetcherText", registry=REG,
                         version=1) as writer:
        writer.append(Compressed("texte ü".encode()))
    with ArrayFileReader(tmp_path / "fetcher_text", registry=REG) as reader:
        assert reader.get(0) == Compressed("texte ü".encode())
