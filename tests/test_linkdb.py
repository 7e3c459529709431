"""invertlinks / readlinkdb / mergelinkdb: link inversion rules, merging, lookups, dumps, the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.records import Content, Inlink
from gossamer.core.settings import Settings
from gossamer.crawl.linkdb import LINKDB_SCHEMA, invert_links, merge_linkdbs, read_inlinks
from gossamer.crawl.parse import PageParser, ParseOutputs, finish_parse_tables
from gossamer.store import TableVersion, open_live, part_of_url
from gossamer.store.parse_schemas import PARSE_DATA_SCHEMA
from gossamer.store.table import PartWriter, TableDescription, finish_version, part_name

from .conftest import ENV_KEEP

A, B, C = "http://a.example/", "http://b.example/", "http://c.example/"
Page = tuple[str, list[tuple[str, str]]]


def write_parse_data(segments: Path, name: str, pages: list[Page], parts: int = 1,
                     failed: tuple[str, ...] = ()) -> Path:
    """A segment holding only parse_data: one row per page (status success unless in ``failed``)."""
    directory = segments / name / "parse_data"
    directory.mkdir(parents=True)
    rows = [{"url": url, "status": 2 if url in failed else 1, "title": "", "outlinks": [
        {"url": to, "anchor": anchor} for to, anchor in links]} for url, links in pages]
    for part in range(parts):
        mine = sorted((r for r in rows if zlib.crc32(r["url"].encode()) % parts == part), key=lambda r: r["url"])
        writer = PartWriter(directory / part_name(part), PARSE_DATA_SCHEMA, 1024, "zstd")
        if mine:
            writer.write(pa.RecordBatch.from_pylist(mine, schema=PARSE_DATA_SCHEMA))
        writer.close()
    finish_version(directory, TableDescription(kind="parse_data", parts=parts, partitioner="fetch-share",
                                               rows=len(rows)))
    return segments / name


def conf(values: dict[str, object]) -> Settings:
    return Settings().with_values(values.items(), "test")


def inlinks(linkdb: Path, url: str) -> list[tuple[str, str]]:
    return [(i.from_url, i.anchor) for i in read_inlinks(linkdb, url)]


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    return tmp_path / "crawl"


def test_invert_ignores_internal_links_and_keeps_the_table_layout(crawl: Path) -> None:
    linkdb, segments = crawl / "linkdb", crawl / "segments"
    seg = write_parse_data(segments, "20260101000000", [
        (A, [(B + "x", "to b"), (A + "self", "internal"), (C, "to c"), ("mailto:x@y", "no host")]),
        (C, [(B + "x", "from c"), (A, "")]),
        (B + "broken", [(C, "from a failed page")]),
    ], failed=(B + "broken",))
    report = invert_links(linkdb, [seg], conf({"linkdb.ignore.internal.links": True}))  # Nutch's default
    assert report.done and report.total_urls == 3
    assert inlinks(linkdb, B + "x") == [(A, "to b"), (C, "from c")]
    assert inlinks(linkdb, C) == [(A, "to c")]
    assert inlinks(linkdb, A) == [(C, "")]
    assert inlinks(linkdb, A + "self") == [] and inlinks(linkdb, "mailto:x@y") == []
    assert read_inlinks(linkdb, B + "x", limit=1) == [Inlink(A, "to b")]
    assert read_inlinks(crawl / "nothing", A) == []
    c = report.counters
    assert (c["pages"], c["pages_not_parsed"], c["links"], c["links_internal"], c["inlinks"]) == (2, 1, 6, 2, 4)
    with open_live(linkdb) as version:
        assert version.description.kind == "linkdb" and version.parts == 8
        assert version.schema().equals(LINKDB_SCHEMA)
        for part in range(version.parts):
            urls = [u for b in version.iter_part(part) for u in b.column("url").to_pylist()]
            assert urls == sorted(urls) and all(part_of_url(u, 8) == part for u in urls)


def test_external_links_option_and_nothing_to_do(cli, crawl: Path) -> None:
    linkdb, segments = crawl / "linkdb", crawl / "segments"
    write_parse_data(segments, "20260101000000", [(A, [(A + "in", "inner"), (B, "outer")])])
    settings = conf({"linkdb.ignore.internal.links": False,
                                          "linkdb.ignore.external.links": True})
    invert_links(linkdb, [segments / "20260101000000"], settings)
    assert inlinks(linkdb, A + "in") == [(A, "inner")] and inlinks(linkdb, B) == []
    both = cli("invertlinks", linkdb, "-dir", segments, "-D", "linkdb.ignore.external.links=true",
               "-D", "settings.profile=nutch")
    assert both.code == 1 and "nothing to do" in both.out and "both true" in both.err
    assert inlinks(linkdb, A + "in") == [(A, "inner")]


def test_anchor_length_max_inlinks_merge_and_same_source_replacement(crawl: Path) -> None:
    linkdb, segments, target = crawl / "linkdb", crawl / "segments", "http://t.example/"
    settings = conf({"linkdb.max.anchor.length": 5, "linkdb.max.inlinks": 3})
    first = write_parse_data(segments, "20260101000000", [
        (A, [(target, "anchor from a"), ("http://only.example/", "old")]),
        (B, [(target, "b1"), (target, "b2 later on the page")]),
    ])
    invert_links(linkdb, [first], settings)
    assert inlinks(linkdb, target) == [(A, "ancho"), (B, "b2 la")]  # cut; one inlink per source (last wins)
    second = write_parse_data(segments, "20260102000000", [
        (C, [(target, "c")]), ("http://d.example/", [(target, "d")]), (B, [(target, "new b")]),
    ])
    report = invert_links(linkdb, [second], settings)
    # existing first, then new sources in input order up to 3; B's anchor replaced in place; d dropped
    assert inlinks(linkdb, target) == [(A, "ancho"), (B, "new b"), (C, "c")]
    assert inlinks(linkdb, "http://only.example/") == [(A, "old")]
    c = report.counters
    assert (c["urls_unchanged"], c["urls_updated"], c["inlinks_dropped"]) == (1, 1, 1)
    assert report.total_urls == 2
    lowered = conf({"linkdb.max.inlinks": 1})
    third = write_parse_data(segments, "20260103000000", [(C, [("http://only.example/", "c")])])
    invert_links(linkdb, [third], lowered)
    assert inlinks(linkdb, target) == [(A, "ancho")]  # a lowered cap applies to old rows too
    assert inlinks(linkdb, "http://only.example/") == [(A, "old")]


def test_normalize_filter_and_their_switches(cli, crawl: Path) -> None:
    segments = crawl / "segments"
    write_parse_data(segments, "20260101000000", [
        (A, [("HTTP://B.Example:80/a/../x", "norm"), (B + "q?x=1", "query"), (B + "logo.gif", "image")]),
        ("http://a.example/page?id=1", [(C, "from a filtered source")]),
    ])
    assert cli("invertlinks", crawl / "linkdb", "-dir", segments).code == 0
    assert inlinks(crawl / "linkdb", B + "x") == [(A, "norm")]
    assert inlinks(crawl / "linkdb", B + "q?x=1") == [] and inlinks(crawl / "linkdb", C) == []
    raw = cli("invertlinks", crawl / "raw", "-dir", segments, "-noNormalize", "-nofilter")
    assert raw.code == 0, raw.err
    assert inlinks(crawl / "raw", "HTTP://B.Example:80/a/../x") == [(A, "norm")]
    assert inlinks(crawl / "raw", B + "q?x=1") == [(A, "query")]
    assert inlinks(crawl / "raw", C) == [("http://a.example/page?id=1", "from a filtered source")]


def test_segments_without_parse_data_are_skipped(cli, crawl: Path) -> None:
    segments = crawl / "segments"
    (segments / "20260101000000" / "crawl_generate").mkdir(parents=True)
    broken = segments / "20260101000001" / "parse_data"
    broken.mkdir(parents=True)
    alone = cli("invertlinks", crawl / "linkdb", "-dir", segments)
    assert alone.code == 1 and "no parse_data" in alone.err and "_SUCCESS" in alone.err
    assert not (crawl / "linkdb" / "current").exists()
    write_parse_data(segments, "20260102000000", [(A, [(B, "b")])])
    result = cli("invertlinks", crawl / "linkdb", "-dir", segments)
    assert result.code == 0 and "1 segment(s), 2 skipped" in result.out
    assert cli("invertlinks", crawl / "linkdb", segments / "missing").code == 2
    assert cli("invertlinks", crawl / "linkdb").code == 2


def test_failed_job_leaves_the_previous_linkdb(crawl: Path) -> None:
    linkdb, segments = crawl / "linkdb", crawl / "segments"
    invert_links(linkdb, [write_parse_data(segments, "20260101000000", [(A, [(B, "b")])])], Settings())
    before = sorted(p.name for p in (linkdb / "current").iterdir())
    bad = write_parse_data(segments, "20260102000000", [(C, [(B, "c")])])
    (bad / "parse_data" / part_name(0)).write_bytes(b"not parquet at all")
    report = invert_links(linkdb, [bad], Settings())  # a part cut short is found when the table opens
    assert report.segments == [] and "part-00000.parquet is damaged" in report.skipped[0]
    (bad / "parse_data" / part_name(0)).write_bytes(b"PAR1 garbage inside whole-looking ends PAR1")
    with pytest.raises(Exception, match="(?i)parquet"):  # found only while the job reads it: the job fails
        invert_links(linkdb, [bad], Settings())
    assert sorted(p.name for p in (linkdb / "current").iterdir()) == before
    assert not list(linkdb.glob("tmp-*")) and not (linkdb / "old").exists()
    assert inlinks(linkdb, B) == [(A, "b")]


def test_real_parser_output_and_several_parts(crawl: Path) -> None:
    segment = crawl / "segments" / "20260101000000"
    segment.mkdir(parents=True)
    settings = Settings()
    parser, staging = PageParser(settings), segment / ".staging"
    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, 5, 0, 2_592_000, 1.0)
    for part in range(2):
        outputs = ParseOutputs(staging, part, settings)
        for i in range(part, 40, 2):
            url = f"http://h{i}.example/"
            html = f"<a href='http://hub.example/'>site {i}</a><a href='/local'>x</a>".encode()
            outputs.add(parser.parse(url, datum, Content(url, url, html, "text/html")))
        outputs.close()
    finish_parse_tables(staging, segment, 2)
    report = invert_links(crawl / "linkdb", [segment], conf({"store.parts": 3, "linkdb.ignore.internal.links": True}))
    assert report.total_urls == 1
    hub = read_inlinks(crawl / "linkdb", "http://hub.example/")
    assert len(hub) == 40 and {i.anchor for i in hub} == {f"site {i}" for i in range(40)}
    with TableVersion(crawl / "linkdb" / "current") as version:
        assert version.parts == 3


def test_readlinkdb_url_and_dumps(cli, crawl: Path, tmp_path: Path) -> None:
    linkdb = crawl / "linkdb"
    write_parse_data(crawl / "segments", "20260101000000", [
        (A, [(B, "to b"), (C, "to c")]), (C, [(B, "also b")])])
    assert cli("invertlinks", linkdb, "-dir", crawl / "segments").code == 0
    found = cli("readlinkdb", linkdb, "-url", B)
    assert found.code == 0 and found.out == f" fromUrl: {A} anchor: to b\n fromUrl: {C} anchor: also b\n"
    missing = cli("readlinkdb", linkdb, "-url", "http://nowhere.example/")
    assert missing.code == 1 and "no link information" in missing.out
    assert cli("readlinkdb", crawl / "none", "-url", B).code == 2
    assert cli("readlinkdb", linkdb).code == 2
    assert cli("readlinkdb", linkdb, "-dump", tmp_path / "d").code == 0
    text = "".join(p.read_text() for p in sorted((tmp_path / "d").iterdir()))
    assert f"{B}\tInlinks:\n fromUrl: {A} anchor: to b\n fromUrl: {C} anchor: also b\n\n" in text
    assert text.count("Inlinks:") == 2
    out = cli("readlinkdb", linkdb, "-dump", tmp_path / "j", "-format", "json", "-regex", r"http://b\..*")
    assert out.code == 0 and "1 URLs" in out.out
    (line,) = "".join(p.read_text() for p in (tmp_path / "j").iterdir()).splitlines()
    assert json.loads(line) == {"url": B, "inlinks": [{"fromUrl": A, "anchor": "to b"},
                                                      {"fromUrl": C, "anchor": "also b"}]}
    assert cli("readlinkdb", linkdb, "-dump", tmp_path / "j").code == 2  # not empty
    assert cli("readlinkdb", linkdb, "-dump", tmp_path / "x", "-regex", "(").code == 2


def test_mergelinkdb(cli, tmp_path: Path) -> None:
    one, two = tmp_path / "one" / "linkdb", tmp_path / "two" / "linkdb"
    invert_links(one, [write_parse_data(tmp_path / "one" / "segments", "20260101000000", [
        (A, [(B, "old a"), (C, "a to c")])])], Settings())
    invert_links(two, [write_parse_data(tmp_path / "two" / "segments", "20260101000000", [
        (A, [(B, "new a")]), (C, [(B, "c"), (B + "q?x=1", "query")])])], conf(
        {"linkdb.max.anchor.length": 100}), filter=False)
    out = tmp_path / "merged" / "linkdb"
    result = cli("mergelinkdb", out, one, two, "-filter")
    assert result.code == 0, result.err
    assert inlinks(out, B) == [(A, "new a"), (C, "c")] and inlinks(out, C) == [(A, "a to c")]
    assert inlinks(out, B + "q?x=1") == []
    report = merge_linkdbs(tmp_path / "m2" / "linkdb", [two, one], Settings())
    assert report.total_urls == 3 and inlinks(tmp_path / "m2" / "linkdb", B) == [(A, "old a"), (C, "c")]
    assert cli("mergelinkdb", out, tmp_path / "absent").code == 2
    with open_live(out) as version:
        rows = pa.Table.from_batches(list(version.iter_batches()))
        assert pc.sum(pc.list_value_length(rows.column("inlinks"))).as_py() == 3


def big_segment(segments: Path, pages: int, links: int) -> Path:
    """A parse_data of ``pages`` pages with ``links`` outlinks each to other hosts, built column-wise."""
    directory = segments / "20260201000000" / "parse_data"
    directory.mkdir(parents=True)
    urls = sorted(f"http://h{i % 997}.example/page/{i:07d}" for i in range(pages))
    targets = pa.array([f"http://t{(i * 7919) % 5003}.example/{i % 50_000}" for i in range(pages * links)])
    outlinks = pa.ListArray.from_arrays(pa.array(range(0, pages * links + 1, links), pa.int32()),
                                        pa.StructArray.from_arrays([targets, pa.repeat("a", len(targets))],
                                                                   fields=list(PARSE_DATA_SCHEMA.field(
                                                                       "outlinks").type.value_type)),
                                        type=PARSE_DATA_SCHEMA.field("outlinks").type)
    batch = pa.RecordBatch.from_arrays(
        [pa.array(urls), pa.repeat(pa.scalar(1, pa.uint8()), pages), pa.nulls(pages, pa.string()),
         pa.nulls(pages, pa.string()), outlinks, *(pa.nulls(pages, PARSE_DATA_SCHEMA.field(name).type)
                                                   for name in ("content_metadata", "parse_metadata"))],
        schema=PARSE_DATA_SCHEMA)
    writer = PartWriter(directory / part_name(0), PARSE_DATA_SCHEMA, 4096, "zstd")
    writer.write(batch)
    writer.close()
    finish_version(directory, TableDescription(kind="parse_data", parts=1, rows=pages))
    return directory.parent


@pytest.mark.slow
def test_killed_invertlinks_keeps_the_previous_linkdb(tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    linkdb = crawl / "linkdb"
    invert_links(linkdb, [write_parse_data(crawl / "segments", "20260101000000", [(A, [(B, "b")])])], Settings())
    segment = big_segment(crawl / "segments", 4000, 40)
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    args = [str(exe), "invertlinks", str(linkdb), str(segment), "-noNormalize", "-noFilter",
            "-D", "engine.local.workers=2", "-D", "engine.local.inline.mb=0", "-D", "engine.memory.budget.mb=16"]

    def start(target: Path) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*args[:2], str(target), *args[3:]], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env, start_new_session=True)

    started = time.monotonic()
    assert start(tmp_path / "timing" / "linkdb").wait() == 0
    duration = time.monotonic() - started
    caught = 0
    for fraction in (0.0, 0.3):
        writer = start(linkdb)
        deadline = time.monotonic() + 10 * duration
        while not list(linkdb.glob("tmp-*")) and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)  # the job's staging version appears: it is writing
        time.sleep(duration * fraction)
        caught += bool(list(linkdb.glob("tmp-*")))
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
        with open_live(linkdb) as version:
            rows = version.num_rows()
        if rows > 1 and (linkdb / "current").exists():  # the job finished before the kill: undo it
            (linkdb / "current").rename(tmp_path / f"done-{fraction}")
            (linkdb / "old").rename(linkdb / "current")
        else:
            assert rows == 1, f"partial linkdb after a kill at {fraction:.0%}"
        assert inlinks(linkdb, B) == [(A, "b")]
    assert caught >= 1, "no kill landed while the job was writing"
