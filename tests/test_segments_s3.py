"""Segments addressed by URI: a whole crawl round (inject, generate, fetch, parse, updatedb,
invertlinks, readseg) with crawldb, linkdb and segments on ``s3://`` (a real S3 server on
loopback) gives the crawldb and linkdb the same round gives on local paths; a fetch that dies
before its commit leaves the segment unfetched and is run again; files no writer reported are
deleted before the commit."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gossamer.core.settings import load_settings
from gossamer.store import open_live
from gossamer.store.location import Location
from gossamer.store.segments import list_segments
from gossamer.store.table import SUCCESS_MARKER, TableVersion

from .conftest import write_lines
from .fetch_server import Site, ThreadedSite
from .s3_server import S3Server, s3_server

SEED_PAGES = ["/", "/p0.html", "/p4.html", "/p8.html", "/copy-a.html", "/private/x.html", "/missing.html"]
DEFINES = ["http.agent.name=t", "fetcher.server.delay=0", "linkdb.ignore.internal.links=false", "store.parts=2"]


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    from .test_spark_engine import _serve_site

    with ThreadedSite() as served:
        _serve_site(served)
        yield served


def defines(s3: S3Server, scratch: Path, *extra: str) -> list[str]:
    """``-D`` options of every command: the S3 endpoint, a fetchable site, scratch under the test's directory."""
    return [f"-D{x}" for x in [*s3.defines, *DEFINES, f"engine.spill.dir={scratch}", *extra]]


def ok(cli, *args: str | Path) -> str:
    result = cli(*args)
    assert result.code == 0, f"{args[0]}: {result.err}"
    return result.out


def only_segment(segments: str, s3: S3Server) -> str:
    """The one segment in ``segments`` (a path or URI), spelled as the commands take it."""
    listed = list_segments(Location.parse(segments, load_settings(overrides=s3.defines)))
    assert len(listed) == 1
    return f"{segments}/{listed[0].name}"


def crawl_round(cli, s3: S3Server, crawl: str, seeds: Path, d: list[str], inline: bool) -> str:
    """inject, generate, fetch (with -parse, or then parse), updatedb -dir, invertlinks; the segment."""
    ok(cli, "inject", f"{crawl}/crawldb", seeds, *d)
    ok(cli, "generate", f"{crawl}/crawldb", f"{crawl}/segments", *d)
    segment = only_segment(f"{crawl}/segments", s3)
    ok(cli, "fetch", segment, "-processes", "2", *(["-parse"] if inline else []), *d)
    if not inline:
        ok(cli, "parse", segment, "-processes", "2", *d)
    ok(cli, "updatedb", f"{crawl}/crawldb", "-dir", f"{crawl}/segments", *d)
    ok(cli, "invertlinks", f"{crawl}/linkdb", segment, *d)
    return segment


def table_rows(table: str, s3: S3Server) -> list[object]:
    """The live version's rows without the fields that hold when the run happened, by URL."""
    from .test_spark_engine import _timeless

    with open_live(Location.parse(table, load_settings(overrides=s3.defines))) as version:
        rows = [row for batch in version.iter_batches() for row in batch.to_pylist()]
    return sorted((_timeless(row) for row in rows), key=lambda row: row["url"])  # type: ignore[index]


def listed_counts(cli, segments: str, d: list[str]) -> list[list[str]]:
    """``readseg -list -dir``: generated, fetched and parsed per segment (names and times differ per run)."""
    lines = ok(cli, "readseg", "-list", "-dir", segments, *d).splitlines()[1:]
    return [[fields[1], fields[-2], fields[-1]] for fields in (line.split("\t") for line in lines)]


@pytest.mark.parametrize("inline", [False, True], ids=["parse", "fetch-parse"])
def test_a_round_on_s3_equals_the_same_round_on_local_paths(cli, s3: S3Server, site: Site, tmp_path: Path,
                                                             inline: bool) -> None:
    scratch = tmp_path / "scratch"
    d = defines(s3, scratch)
    seeds = write_lines(tmp_path / "seeds.txt", [site.url(p) for p in SEED_PAGES])
    local, remote = str(tmp_path / "crawl"), f"s3://{s3.bucket()}/crawl"
    segments = {local: crawl_round(cli, s3, local, seeds, d, inline)}
    # segment names are their generate's second: the S3 round's must differ, or the local crawldb below would
    # refuse the S3 segment as one it already absorbed (a whole round can take less than a second)
    time.sleep(1.01 - time.time() % 1)
    segments[remote] = crawl_round(cli, s3, remote, seeds, d, inline)
    for table in ("crawldb", "linkdb"):
        assert table_rows(f"{remote}/{table}", s3) == table_rows(f"{local}/{table}", s3), table
    crawldb = table_rows(f"{remote}/crawldb", s3)
    assert sum(row["status"] == 2 for row in crawldb) == 5 and len(crawldb) > 15  # type: ignore[index]
    assert len(table_rows(f"{remote}/linkdb", s3)) > 10
    assert listed_counts(cli, f"{remote}/segments", d) == listed_counts(cli, f"{local}/segments", d) == [
        ["7", "7", "5"]]
    got = ok(cli, "readseg", "-get", segments[remote], site.url("/p4.html"), *d)
    assert "fetch_success" in got and "<title>Page 4</title>" in got and "ParseText::" in got
    dumped = {crawl: ok(cli, "readseg", "-dump", segments[crawl], tmp_path / f"dump{n}", *d)
              for n, crawl in enumerate((local, remote))}
    assert dumped[remote].split(" URLs")[0] == dumped[local].split(" URLs")[0]
    text = (tmp_path / "dump1" / "dump").read_text()
    assert text.count("Content::") == 6 and text.count("ParseData::") == 5  # robots-denied: no content
    mixed = ok(cli, "updatedb", f"{local}/crawldb", segments[remote], *d)  # a local crawldb, an S3 segment
    assert "CrawlDb update: 1 segment(s)" in mixed
    refused = cli("readseg", "-dump", segments[remote], f"{remote}/dump", *d)
    assert refused.code == 2 and "must be a local path" in refused.err
    assert not list((tmp_path / "crawl" / "segments").glob("*/.*-staging"))
    assert not any(scratch.iterdir())  # every scratch directory was removed


def remote_segment(cli, s3: S3Server, site: Site, tmp_path: Path, d: list[str]) -> tuple[str, Location]:
    """A generated segment on S3 (a fresh bucket): its URI and Location."""
    crawl = f"s3://{s3.bucket()}/crawl"
    seeds = write_lines(tmp_path / "seeds.txt", [site.url(p) for p in SEED_PAGES])
    ok(cli, "inject", f"{crawl}/crawldb", seeds, *d)
    ok(cli, "generate", f"{crawl}/crawldb", f"{crawl}/segments", *d)
    uri = only_segment(f"{crawl}/segments", s3)
    return uri, Location.parse(uri, load_settings(overrides=s3.defines))


def test_a_fetch_that_dies_before_its_commit_leaves_the_segment_unfetched(cli, s3: S3Server, site: Site,
                                                                          tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from gossamer.crawl.fetch import install

    d = defines(s3, tmp_path / "scratch")
    uri, segment = remote_segment(cli, s3, site, tmp_path, d)
    crawldb = uri.rsplit("/segments/", 1)[0] + "/crawldb"
    real = install.finish_version

    def crash_at_the_commit(directory, description) -> None:  # noqa: ANN001
        if description.kind == "crawl_fetch":
            raise OSError("simulated crash before crawl_fetch/_SUCCESS")
        real(directory, description)

    monkeypatch.setattr(install, "finish_version", crash_at_the_commit)
    failed = cli("fetch", uri, "-processes", "1", "-parse", *d)
    assert failed.code == 2 and "simulated crash" in failed.err
    monkeypatch.undo()
    # everything but the commit was written, and none of it counts
    assert (segment / "crawl_parse" / SUCCESS_MARKER).is_file() and (segment / "content").is_dir()
    assert not (segment / "crawl_fetch" / SUCCESS_MARKER).is_file()
    assert listed_counts(cli, uri.rsplit("/", 1)[0], d) == [["7", "?", "?"]]
    assert cli("readseg", "-get", uri, site.url("/"), "-nogenerate", *d).code == 1
    nothing = cli("updatedb", crawldb, uri, *d)
    assert nothing.code == 2 and "no segment has crawl_fetch or crawl_parse" in nothing.err
    (segment / "crawl_fetch" / "part-00003.parquet").write_bytes(b"left by a dead attempt")
    # the next run deletes the leftovers and fetches the segment
    ok(cli, "fetch", uri, "-processes", "1", "-parse", *d)
    names = {info.base_name for info in (segment / "crawl_fetch").list()}
    assert names == {"part-00000.parquet", "_table.json", SUCCESS_MARKER}
    assert listed_counts(cli, uri.rsplit("/", 1)[0], d) == [["7", "7", "5"]]
    again = cli("fetch", uri, *d)
    assert again.code == 2 and "already fetched" in again.err
    assert "CrawlDb update: 1 segment(s)" in ok(cli, "updatedb", crawldb, uri, *d)


def test_files_no_writer_reported_are_deleted_before_the_commit(cli, s3: S3Server, site: Site, tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed attempt's files (Spark retries a task; the attempt uploaded some files first) are swept."""
    from gossamer.crawl.fetch import job
    from gossamer.store.parse_schemas import PARSE_DATA_SCHEMA

    d = defines(s3, tmp_path / "scratch")
    uri, segment = remote_segment(cli, s3, site, tmp_path, d)
    real = job.fetch_share
    stale = ["crawl_fetch/part-00001.parquet", "content/dead-attempt.warc.gz", "parse_text/part-00000.parquet.tmp"]

    def after_a_failed_attempt(task, *args, **kwargs):  # noqa: ANN001, ANN202
        for name in stale:
            (task.segment / name).write_bytes(b"from an attempt that failed")
        return real(task, *args, **kwargs)

    monkeypatch.setattr(job, "fetch_share", after_a_failed_attempt)
    ok(cli, "fetch", uri, "-processes", "1", "-parse", *d)
    for name in stale:
        assert not (segment / name).exists(), name
    warcs = [info.base_name for info in (segment / "content").list()]
    assert len(warcs) == 1 and warcs[0].startswith(f"{segment.name}-00000-")
    with TableVersion(segment / "parse_data") as version:  # the rows' WARC locators name the file that survived
        assert version.schema() == PARSE_DATA_SCHEMA
        metadata = [dict(row["content_metadata"]) for batch in version.iter_batches() for row in batch.to_pylist()]
    assert metadata and {m["_warc_"].split(":")[0] for m in metadata} == set(warcs)


def test_spark_fetch_parse_and_updatedb_of_an_s3_segment_equal_the_local_engines(cli, s3: S3Server, site: Site,
                                                                                  tmp_path: Path) -> None:
    """Spark tasks fetch and parse into the S3 segment from their own scratch; the crawldb equals the local one."""
    from .test_spark_s3 import spark_cli

    d = defines(s3, tmp_path / "scratch", "spark.master=local[2]", "parser.processes=2")
    seeds = write_lines(tmp_path / "seeds.txt", [site.url(p) for p in SEED_PAGES])
    crawls = {engine: f"s3://{s3.bucket()}/crawl" for engine in ("local", "spark")}
    for engine, crawl in crawls.items():
        ok(cli, "inject", f"{crawl}/crawldb", seeds, *d)
        ok(cli, "generate", f"{crawl}/crawldb", f"{crawl}/segments", *d)
        segment = only_segment(f"{crawl}/segments", s3)
        for step in (("fetch", segment, "-processes", "2"), ("parse", segment),
                     ("updatedb", f"{crawl}/crawldb", segment)):
            if engine == "spark":
                result = spark_cli(*step, *d)
                assert result.returncode == 0, result.stderr
            else:
                ok(cli, *step, *d)
    assert table_rows(f"{crawls['spark']}/crawldb", s3) == table_rows(f"{crawls['local']}/crawldb", s3)
    assert listed_counts(cli, f"{crawls['spark']}/segments", d) == [["7", "7", "5"]]
    assert not any((tmp_path / "scratch").iterdir())


def test_remote_segments_exist_by_their_crawl_generate_success(s3: S3Server) -> None:
    """list_segments lists the prefixes with crawl_generate/_SUCCESS; a crashed generate's name stays taken."""
    from gossamer.store.segments import new_segment_name

    segments = Location.parse(f"s3://{s3.bucket()}/crawl/segments", load_settings(overrides=s3.defines))
    (segments / "20260101000000" / "crawl_generate" / SUCCESS_MARKER).write_bytes(b"")
    (segments / "20260101000001" / "crawl_generate" / "part-00000.parquet").write_bytes(b"half")  # died
    (segments / "notes" / "crawl_generate" / SUCCESS_MARKER).write_bytes(b"")
    assert [s.name for s in list_segments(segments)] == ["20260101000000"]
    assert list_segments(str(segments)) == list_segments(segments)
    assert new_segment_name(segments, now=1767225600) == "20260101000002"


def test_copies_keep_gzip_files_byte_for_byte(s3: S3Server, tmp_path: Path) -> None:
    """WARC files are gzip members at recorded offsets: an upload or download must not re-compress them."""
    from gossamer.store.transfer import copy_file

    original = tmp_path / "a.warc.gz"
    original.write_bytes(b"\x1f\x8b" + bytes(range(256)) * 4)  # not even valid gzip: copied as it is
    remote = Location.parse(f"s3://{s3.bucket()}/c/a.warc.gz", load_settings(overrides=s3.defines))
    assert copy_file(original, remote) == original.stat().st_size
    copy_file(remote, tmp_path / "back.warc.gz")
    assert (tmp_path / "back.warc.gz").read_bytes() == original.read_bytes()
