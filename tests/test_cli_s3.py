"""The table commands on a crawldb addressed by URI (issue 7): inject, readdb, updatedb and mergedb
on ``s3://`` (a real S3 server on loopback) give what they give on a local path; ``file://`` is a
plain path; a bad URI is a clean usage error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.datum import now_millis

from .conftest import write_lines
from .s3_server import S3Server, s3_server
from .test_updatedb import write_segment

SEEDS = ["http://a.example/", "http://b.example/x", "http://c.example/", "not a url", "http://a.example/2"]


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def dump(cli, defines: list[str], crawldb: str | Path, out: Path, timeless: bool = False) -> list[str]:
    result = cli("readdb", crawldb, "-dump", out, *defines)
    assert result.code == 0, result.err
    lines = [line for f in sorted(out.iterdir()) if not f.name.startswith(".")
             for line in f.read_text().splitlines()]
    return [line for line in lines if not (timeless and line.startswith("Fetch time:"))]


def without_times(stats: str) -> list[str]:
    return [line for line in stats.splitlines() if "time" not in line and not line.startswith("Statistics for")]


def test_inject_readdb_updatedb_mergedb_on_s3_equal_the_same_on_a_local_path(cli, s3: S3Server,
                                                                             tmp_path: Path) -> None:
    d = [f"-D{x}" for x in s3.defines]
    bucket = s3.bucket()
    local, remote = tmp_path / "crawl" / "crawldb", f"s3://{bucket}/crawl/crawldb"
    seeds = write_lines(tmp_path / "seeds.txt", SEEDS)
    for crawldb in (local, remote):
        result = cli("inject", crawldb, seeds, *d)
        assert result.code == 0, result.err
        assert "Total new urls injected: 4" in result.out and "not a url" in result.err  # reported, skipped
    assert without_times(cli("readdb", remote, "-stats", *d).out) == without_times(
        cli("readdb", local, "-stats", *d).out)
    stats = json.loads(cli("readdb", remote, "-stats", "-json", *d).out)
    assert stats["total"] == 4
    assert "Status: 1 (db_unfetched)" in cli("readdb", remote, "-url", "http://c.example/", *d).out
    assert cli("readdb", remote, "-url", "http://nowhere.example/", *d).code == 1

    # mergedb copies the local crawldb to S3 exactly
    merged = cli("mergedb", remote, local, *d)
    assert merged.code == 0, merged.err
    assert "total URLs 4" in merged.out
    assert dump(cli, d, remote, tmp_path / "d1") == dump(cli, d, local, tmp_path / "d2")

    # updatedb from a local segment, on both
    now = now_millis()
    fetch = [("http://a.example/", CrawlDatum(CrawlStatus.FETCH_SUCCESS, now, 0, 2592000, 1.0)),
             ("http://b.example/x", CrawlDatum(CrawlStatus.FETCH_GONE, now, 0, 2592000, 1.0))]
    parse = [("http://new.example/y", CrawlDatum(CrawlStatus.LINKED, now, 0, 2592000, 0.5))]
    segment = write_segment(tmp_path / "crawl" / "segments", "20261122000000", fetch, parse)
    for crawldb in (local, remote):
        result = cli("updatedb", crawldb, segment, *d)
        assert result.code == 0, result.err
    after = dump(cli, d, remote, tmp_path / "d3", timeless=True)
    assert after == dump(cli, d, local, tmp_path / "d4", timeless=True)
    assert "http://new.example/y\tVersion: 7" in after and len([x for x in after if "Version" in x]) == 5

    # mergedb of a local and an S3 crawldb into S3 and into a local directory: the same table
    other = tmp_path / "other" / "crawldb"
    assert cli("inject", other, write_lines(tmp_path / "s2.txt", ["http://z.example/", "http://a.example/"]),
               *d).code == 0
    out_remote, out_local = f"s3://{bucket}/merged/crawldb", tmp_path / "merged" / "crawldb"
    for out in (out_remote, out_local):
        result = cli("mergedb", out, remote, other, *d)
        assert result.code == 0, result.err
        assert "1 URLs in more than one" in result.out and "total URLs 6" in result.out
    assert dump(cli, d, out_remote, tmp_path / "d5") == dump(cli, d, out_local, tmp_path / "d6")
    status = [line for line in cli("readdb", out_remote, "-url", "http://a.example/", *d).out.splitlines()
              if line.startswith("Status")]
    assert status == ["Status: 2 (db_fetched)"]  # the fetched datum is newer than the re-injected one


def test_file_uris_are_plain_paths(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawl" / "crawldb"
    seeds = write_lines(tmp_path / "seeds.txt", SEEDS)
    assert cli("inject", crawldb.as_uri(), seeds).code == 0
    assert (crawldb / "current" / "_SUCCESS").is_file() and (crawldb / ".locked").is_file()  # the local layout
    assert "TOTAL urls:\t4" in cli("readdb", crawldb, "-stats").out
    assert "TOTAL urls:\t4" in cli("readdb", crawldb.as_uri(), "-stats").out


def test_bad_uris_and_missing_tables_are_usage_errors(cli, s3: S3Server) -> None:
    d = [f"-D{x}" for x in s3.defines]
    bad = cli("readdb", "ftp://host/crawldb", "-stats")
    assert bad.code == 2 and "unsupported filesystem" in bad.err
    missing = cli("readdb", f"s3://{s3.bucket()}/none/crawldb", "-stats", *d)
    assert missing.code == 2 and "no CURRENT pointer" in missing.err
    down = cli("readdb", "s3://bucket/crawl/crawldb", "-stats", "-Dfs.s3.endpoint=http://127.0.0.1:9")
    assert down.code == 2 and "Could not connect" in down.err and "Traceback" not in down.err


def test_readdb_dump_refuses_a_uri_as_its_output(cli, tmp_path) -> None:
    """A dump goes to a local directory: an s3:// output is a usage error, not a directory named "s3:"."""
    crawldb = tmp_path / "crawldb"
    assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", ["http://a.example/"])).code == 0
    result = cli("readdb", crawldb, "-dump", "s3://bucket/out")
    assert result.code == 2 and "must be a local path" in result.err
    assert not (tmp_path / "s3:").exists() and not any(p.name == "s3:" for p in Path.cwd().iterdir())
