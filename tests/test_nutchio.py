"""import-nutch / export-nutch on a Nutch 1.x crawl built with the store.hadoop writers (test_nutchio_build)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from gossamer.core import load_settings
from gossamer.crawl.nutchio import hash_bytes, import_nutch
from gossamer.crawl.nutchio.seqsource import SequenceFileSource
from gossamer.store import as_place, batch_to_datums, batch_to_rows
from gossamer.store.hadoop import TEXT, MapFileReader, SequenceFileReader, SequenceFileWriter, data_files
from tests.test_nutchio_build import DATUM, SEGMENT, build_nutch_crawl

BASE = "http://127.0.0.1:9"


@pytest.fixture
def nutch(tmp_path: Path):
    return build_nutch_crawl(tmp_path / "nutch", BASE)


def _table(directory: Path) -> pa.Table:
    table = ds.dataset(directory, format="parquet").to_table()
    return table.sort_by("url")


def _records(place: Path) -> dict[str, object]:
    """Every readable record of a Nutch table directory (lenient), by key."""
    out: dict[str, object] = {}
    for file in data_files(as_place(place)):
        with SequenceFileReader(file, lenient=True) as reader:
            out.update(dict(reader))
    return out


def _raw(place: Path) -> dict[bytes, bytes]:
    out: dict[bytes, bytes] = {}
    for file in data_files(as_place(place)):
        with SequenceFileReader(file, lenient=True) as reader:
            out.update(dict(reader.raw()))
    return out


def test_import_counts_bad_records_and_readers_work(cli, nutch, tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    result = cli("import-nutch", nutch.root, "-d", crawl)
    assert result.code == 0, result.err
    assert "crawldb: 11 record(s) imported, 1 could not be" in result.out
    assert "linkdb: 2 record(s) imported, 1 could not be" in result.out
    assert "content: 2 record(s) imported, 0 could not be" in result.out
    assert f"segments: 1 ({SEGMENT})" in result.out
    assert "CrawlDatum version" in result.err and "truncated" in result.err
    parse_line = next(line for line in result.out.splitlines() if line.startswith("crawl_parse:"))
    imported, bad = int(parse_line.split()[1]), int(parse_line.split(",")[1].split()[0])
    assert bad >= nutch.bad_crawl_parse and imported + bad <= 30 and imported >= 25

    rows = dict(batch_to_datums(_table(crawl / "crawldb" / "current")))
    assert rows == nutch.crawldb  # every field and metadata value, every status
    links = dict(batch_to_rows(_table(crawl / "linkdb" / "current")))
    assert links == nutch.linkdb

    stats = cli("readdb", crawl / "crawldb", "-stats")
    assert stats.code == 0, stats.err
    assert "TOTAL urls:\t11" in stats.out
    listed = cli("readseg", "-list", "-dir", crawl / "segments")
    assert listed.code == 0 and SEGMENT in listed.out
    got = cli("readseg", "-get", crawl / "segments" / SEGMENT, f"{BASE}/old.html")
    assert got.code == 0, got.err
    assert "kiwi banana mango" in got.out and "Old kiwi page" in got.out and "HTTP/1.1 200" in got.out


def test_not_a_nutch_directory_is_one_error_line(cli, tmp_path: Path) -> None:
    (tmp_path / "empty" / "stuff").mkdir(parents=True)
    result = cli("import-nutch", tmp_path / "empty", "-d", tmp_path / "crawl")
    assert result.code == 2
    assert "not a Nutch crawl directory" in result.err and len(result.err.strip().splitlines()) == 1


def test_import_then_export_gives_the_input_records(cli, nutch, tmp_path: Path) -> None:
    crawl, out = tmp_path / "crawl", tmp_path / "out"
    assert cli("import-nutch", nutch.root, "-d", crawl).code == 0
    result = cli("export-nutch", "-d", crawl, out, "--parts", "3")
    assert result.code == 0, result.err
    assert "crawldb: 11 record(s) exported, 0 could not be" in result.out
    for table in ("crawldb", "linkdb"):
        # decoded records equal, and so are their bytes (the damaged ones are gone from both)
        assert _records(out / table / "current") == _records(nutch.root / table / "current")
        readable = _records(nutch.root / table / "current")
        expected = {key: value for key, value in _raw(nutch.root / table / "current").items()
                    if TEXT.deserialize(key) in readable}
        assert _raw(out / table / "current") == expected
        assert (out / table / "current" / "_SUCCESS").is_file()
        filled = 0
        for part in (0, 1, 2):  # Hadoop's HashPartitioner: a reader finds each key in its part
            directory = out / table / "current" / f"part-r-{part:05d}"
            keys = [key for key, _ in SequenceFileReader(directory / "data").raw()]
            filled += bool(keys)
            assert all((hash_bytes(key[1:]) & 0x7FFFFFFF) % 3 == part for key in keys)
            assert keys == sorted(keys)
            with MapFileReader(directory) as reader:
                for key in keys:
                    assert reader.get(TEXT.deserialize(key)) == readable[TEXT.deserialize(key)]
            with SequenceFileReader(directory / "data") as reader:
                assert (reader.key_class, reader.value_class) == ("org.apache.hadoop.io.Text",
                                                                   DATUM if table == "crawldb" else
                                                                   "org.apache.nutch.crawl.Inlinks")
                assert reader.compression == "NONE"
        assert filled >= (2 if table == "crawldb" else 1)
    segment_in, segment_out = nutch.root / "segments" / SEGMENT, out / "segments" / SEGMENT
    for table in ("crawl_generate", "crawl_fetch", "parse_data", "parse_text", "content"):
        assert _records(segment_out / table) == _records(segment_in / table), table
    exported_parse = _records(segment_out / "crawl_parse")
    assert set(exported_parse) < set(_records(segment_in / "crawl_parse")) | {None}
    with SequenceFileReader(segment_out / "content" / "part-r-00000" / "data") as reader:
        assert reader.compression == "RECORD" and reader.header.codec_class.endswith("DefaultCodec")


def test_export_then_import_gives_the_same_tables(cli, nutch, tmp_path: Path) -> None:
    first, out, second = tmp_path / "crawl", tmp_path / "out", tmp_path / "again"
    assert cli("import-nutch", nutch.root, "-d", first).code == 0
    assert cli("export-nutch", "-d", first, out).code == 0
    result = cli("import-nutch", out, "-d", second)
    assert result.code == 0, result.err
    assert "could not be" in result.out and ", 1 could not be" not in result.out
    for table in ("crawldb", "linkdb"):
        assert _table(second / table / "current").equals(_table(first / table / "current")), table
    for table in ("crawl_generate", "crawl_fetch", "crawl_parse", "parse_data", "parse_text"):
        a, b = _table(second / "segments" / SEGMENT / table), _table(first / "segments" / SEGMENT / table)
        assert a.equals(b), table


def test_sequence_file_splits_yield_every_record_once(tmp_path: Path) -> None:
    from gossamer.core import CrawlDatum
    from gossamer.crawl.nutchio.table_import import DatumMapper
    from gossamer.engine import TaskContext
    from gossamer.store.hadoop import from_core_datum

    path = tmp_path / "part-r-00000"
    with SequenceFileWriter(path, TEXT.java_class, DATUM, sync_interval=300) as writer:
        for i in range(500):
            writer.append(f"http://h{i % 7}.example/{i:04d}", from_core_datum(CrawlDatum(1, i, 0, 60, 1.0)))
    source = SequenceFileSource((as_place(path),), split_bytes=997)
    splits = source.splits()
    assert len(splits) > 20
    ctx = TaskContext(load_settings(None))
    urls: list[str] = []
    for split in splits:
        for batch in split.read(64):
            for out in DatumMapper()(batch, ctx):
                urls.extend(out.column("url").to_pylist())
    assert sorted(urls) == sorted(f"http://h{i % 7}.example/{i:04d}" for i in range(500))
    assert ctx.counters["converted"] == 500 and ctx.counters["bad"] == 0


def test_import_api_reports_per_table(nutch, tmp_path: Path) -> None:
    settings = load_settings(None)
    report = import_nutch(as_place(nutch.root), as_place(tmp_path / "crawl"), settings)
    assert report.converted["crawldb"] == 11 and report.bad["crawldb"] == nutch.bad_crawldb
    assert report.bad["linkdb"] == nutch.bad_linkdb
    assert report.segments == [SEGMENT]
    again = import_nutch(as_place(nutch.root), as_place(tmp_path / "crawl"), settings)
    assert any("already in" in note for note in again.notes)  # segments are never imported twice


@pytest.mark.slow
def test_imported_crawl_continues_crawl_index_search(cli, tmp_path: Path) -> None:
    import json

    from tests.fetch_server import ThreadedSite

    html = {"Content-Type": "text/html; charset=utf-8"}
    settings = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.01")
    crawl = tmp_path / "crawl"
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
        site.route("/", body=b"<html><head><title>Home</title></head><body>fresh home "
                             b"<a href='/old.html'>old</a> <a href='/new.html'>new</a></body></html>", headers=html)
        site.route("/old.html", body=b"<html><body>changed</body></html>", headers=html)
        site.route("/new.html", body=b"<html><head><title>New</title></head><body>papaya pages</body></html>",
                   headers=html)
        base = site.url("/").rstrip("/")
        nutch = build_nutch_crawl(tmp_path / "nutch", base)
        assert cli("import-nutch", nutch.root, "-d", crawl).code == 0
        result = cli("crawl", "-d", crawl, "-r", "2", *settings)
        assert result.code == 0, result.err
    assert cli("invertlinks", crawl / "linkdb", "-dir", crawl / "segments").code == 0
    indexed = cli("index", crawl / "crawldb", "-linkdb", crawl / "linkdb", "-dir", crawl / "segments")
    assert indexed.code == 0, indexed.err
    kiwi = cli("search", "-d", crawl, "banana", "--json")  # only in the imported segment's parse_text
    assert kiwi.code == 0, kiwi.err
    assert [hit["url"] for hit in json.loads(kiwi.out)["hits"]] == [f"{base}/old.html"]
    papaya = cli("search", "-d", crawl, "papaya", "--json")  # fetched by the continued crawl
    assert [hit["url"] for hit in json.loads(papaya.out)["hits"]] == [f"{base}/new.html"]
    stats = cli("readdb", crawl / "crawldb", "-stats")
    assert "TOTAL urls:\t12" in stats.out  # 11 imported + new.html


def test_hadoop_reads_an_exported_crawldb(cli, nutch, tmp_path: Path) -> None:
    """Hadoop's own MapFile.Reader finds every exported key, and SequenceFile.Reader's raw values are ours.

    Nutch's classes are not on the JVM: ``WritableName`` maps the CrawlDatum class name to
    BytesWritable so the readers open the files; only keys and raw value bytes are compared.
    """
    from tests.hadoop_jvm import HadoopJvm, unavailable_reason

    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    crawl, out = tmp_path / "crawl", tmp_path / "out"
    assert cli("import-nutch", nutch.root, "-d", crawl).code == 0
    assert cli("export-nutch", "-d", crawl, out, "--parts", "3").code == 0
    with HadoopJvm() as hadoop:
        io = hadoop.jvm.org.apache.hadoop.io
        io.WritableName.addName(hadoop.java_class("org.apache.hadoop.io.BytesWritable"), DATUM)
        for part in (0, 1, 2):  # 3, 4, 4 records
            directory = out / "crawldb" / "current" / f"part-r-{part:05d}"
            ours = _raw(directory)
            assert ours
            reader = io.MapFile.Reader(hadoop.path(directory), hadoop.conf,
                                       hadoop.gateway.new_array(io.SequenceFile.Reader.Option, 0))
            try:
                for key in ours:
                    assert reader.seek(io.Text(TEXT.deserialize(key)))
                assert not reader.seek(io.Text("http://absent.invalid/"))
            finally:
                reader.close()
            options = hadoop.gateway.new_array(io.SequenceFile.Reader.Option, 1)
            options[0] = io.SequenceFile.Reader.file(hadoop.path(directory / "data"))
            data = io.SequenceFile.Reader(hadoop.conf, options)
            theirs: dict[bytes, bytes] = {}
            try:
                key_buffer, value_bytes = io.DataOutputBuffer(), data.createValueBytes()
                while data.nextRawKey(key_buffer) >= 0:
                    data.nextRawValue(value_bytes)
                    value_buffer = io.DataOutputBuffer()
                    value_bytes.writeUncompressedBytes(value_buffer)
                    theirs[bytes(key_buffer.getData())[:key_buffer.getLength()]] = \
                        bytes(value_buffer.getData())[:value_buffer.getLength()]
                    key_buffer.reset()
            finally:
                data.close()
            assert theirs == ours


def test_export_part_is_in_text_order_for_non_ascii_urls(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from gossamer.core import CrawlDatum
    from gossamer.crawl.nutchio.table_export import write_part
    from gossamer.engine import NullReporter
    from gossamer.store import datums_to_batch

    urls = ["http://a/é", "http://a/~", "http://a/z", "http://a/Z", "http://a/\U0001f600"]
    (tmp_path / "scatter" / "0").mkdir(parents=True)
    batch = datums_to_batch([(url, CrawlDatum(1, 5, 0, 60, 1.0)) for url in urls])
    pq.write_table(pa.Table.from_batches([batch]), tmp_path / "scatter" / "0" / "from-00000.parquet")
    tally = write_part("crawldb", tmp_path / "scatter", 0, tmp_path / "out", load_settings(None), 64 << 20,
                       NullReporter())
    assert tally.converted["crawldb"] == 5 and not tally.bad
    keys = [key for key, _ in SequenceFileReader(tmp_path / "out" / "part-r-00000" / "data")]
    assert keys == sorted(urls, key=lambda url: url.encode("utf-8"))


def test_an_export_part_larger_than_the_memory_budget_is_sorted_by_spilling(tmp_path: Path) -> None:
    import random

    import pyarrow.parquet as pq

    from gossamer.core import CrawlDatum
    from gossamer.crawl.nutchio.table_export import write_part
    from gossamer.engine import NullReporter
    from gossamer.store import datums_to_batch

    urls = [f"http://h{i % 97}.example/{random.Random(i).random()}" for i in range(60_000)]
    (tmp_path / "scatter" / "0").mkdir(parents=True)
    for n in range(3):  # three scattered inputs, each unsorted
        rows = [(url, CrawlDatum(1, 5, 0, 60, 1.0)) for url in urls[n::3]]
        table = pa.Table.from_batches([datums_to_batch(rows)])
        pq.write_table(table, tmp_path / "scatter" / "0" / f"from-{n:05d}.parquet")
    tally = write_part("crawldb", tmp_path / "scatter", 0, tmp_path / "out", load_settings(None), 1 << 20,
                       NullReporter())
    assert tally.converted["crawldb"] == len(urls)
    keys = [key for key, _ in SequenceFileReader(tmp_path / "out" / "part-r-00000" / "data")]
    assert keys == sorted(urls, key=lambda url: url.encode("utf-8"))
