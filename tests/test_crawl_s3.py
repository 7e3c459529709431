"""More commands on tables addressed by URI (issue 7): generate and dedup with their crawldb on
``s3://`` (a real S3 server on loopback), invertlinks, readlinkdb and mergelinkdb with their linkdb
there, give what they give on a local path (segments on URIs: test_segments_s3)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from gossamer.core.settings import load_settings
from gossamer.store.location import Location

from .conftest import write_lines
from .s3_server import S3Server, s3_server
from .test_cli_s3 import dump
from .test_dedup import DUP, NOTMODIFIED, SIG_B, T0, page, write_crawldb
from .test_linkdb import A, B, C, write_parse_data

SCORED = [f"http://h{i % 5}.example/p{i}\tnutch.score={i % 3}" for i in range(40)] + ["http://x.example/a.gif"]
"""Seeds with many equal scores on several hosts: ties are broken by URL, whatever the store."""
GENERATE_TIME = re.compile(r"_ngt_=\d+")


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def fetch_lists(segments: Path) -> list[list[list[tuple[str, int, float]]]]:
    """Per segment (in name order), per crawl_generate part: (url, status, score) in stored order."""
    return [[[(r["url"], r["status"], r["score"])
              for r in pq.read_table(part, columns=["url", "status", "score"]).to_pylist()]
             for part in sorted((segment / "crawl_generate").glob("part-*.parquet"))]
            for segment in sorted(p for p in segments.iterdir() if p.name.isdigit())]


def untimed(lines: list[str]) -> list[str]:
    """Dump lines with the generate marker's time (the moment each generate ran) blanked."""
    return [GENERATE_TIME.sub("_ngt_=T", line) for line in lines]


def inject_both(cli, tmp_path: Path, remote: str, lines: list[str], *args: str) -> Path:
    """Inject ``lines`` into a local crawldb (returned) and into ``remote``, with the same ``args``."""
    local = tmp_path / "crawl" / "crawldb"
    seeds = write_lines(tmp_path / "seeds.txt", lines)
    for crawldb in (local, remote):
        result = cli("inject", crawldb, seeds, *args)
        assert result.code == 0, result.err
    return local


def test_generate_on_s3_equals_generate_on_a_local_path(cli, s3: S3Server, tmp_path: Path) -> None:
    d = [f"-D{x}" for x in [*s3.defines, "store.parts=3", "generate.update.crawldb=true"]]
    remote = f"s3://{s3.bucket()}/crawl/crawldb"
    local = inject_both(cli, tmp_path, remote, SCORED, "-noFilter", *d)
    options = ["-topN", "7", "-maxNumSegments", "3", "-numFetchers", "2", "-D", "generate.max.count=3"]
    out = {}
    for name, crawldb in (("local", local), ("remote", remote)):
        result = cli("generate", crawldb, tmp_path / name / "segments", *options, *d)
        assert result.code == 0, result.err
        out[name] = [line for line in result.out.splitlines() if "candidates due" in line]
    assert out["remote"] == out["local"] == [
        "Generator: candidates due: 41, rejected by filters: 1, over generate.max.count: 0"]
    lists = fetch_lists(tmp_path / "remote" / "segments")
    assert lists == fetch_lists(tmp_path / "local" / "segments")
    assert [sum(map(len, segment)) for segment in lists] == [7, 7, 7]  # -topN 7, at most 3 per host
    # the crawldb on S3 was rewritten with the _ngt_ mark, as the local one
    marked = untimed(dump(cli, d, remote, tmp_path / "d1", timeless=True))  # each inject ran at its own time
    assert marked == untimed(dump(cli, d, local, tmp_path / "d2", timeless=True))
    assert sum("_ngt_=T" in line for line in marked) == 21
    rest = cli("generate", remote, tmp_path / "rest", *options, *d)  # the marked ones are not due again
    assert rest.code == 0 and "candidates due: 20, rejected by filters: 1" in rest.out
    again = cli("generate", remote, tmp_path / "again", *options, *d)
    assert again.code == 1 and "0 records selected" in again.out  # all marked within crawl.gen.delay
    later = cli("generate", remote, tmp_path / "later", "-adddays", "8", *d)
    assert later.code == 0 and "segment" in later.out


def test_generate_reports_missing_crawldbs(cli, s3: S3Server, tmp_path: Path) -> None:
    d = [f"-D{x}" for x in s3.defines]
    bucket = s3.bucket()
    missing = cli("generate", f"s3://{bucket}/none/crawldb", tmp_path / "segments", *d)
    assert missing.code == 2 and "no CURRENT pointer" in missing.err
    no_crawldb = cli("generate", tmp_path / "crawldb", f"s3://{bucket}/segments", *d)
    assert no_crawldb.code == 2 and "crawldb" in no_crawldb.err
    assert not list(tmp_path.iterdir())  # nothing created locally


FETCHED_PAGES = [  # (url, datum): two signature groups over three hosts, an https twin, an old duplicate
    ("http://a.example/1", page(2.0)), ("http://a.example/2", page(1.0, T0 + 9)),
    ("http://b.example/1", page(2.0, T0 + 5)), ("https://b.example/1", page(2.0, T0 + 5)),
    ("http://c.example/x", page(0.5, signature=SIG_B)), ("http://c.example/y", page(0.5, T0 - 1, SIG_B)),
    ("http://c.example/z", page(3.0, signature=SIG_B, status=NOTMODIFIED)),
    ("http://d.example/", page(1.0, status=DUP)), ("http://e.example/", page(1.0, signature=None)),
]


def test_dedup_on_s3_equals_dedup_on_a_local_path(cli, s3: S3Server, tmp_path: Path) -> None:
    d = [f"-D{x}" for x in s3.defines]
    uri = f"s3://{s3.bucket()}/crawl/crawldb"
    local = write_crawldb(tmp_path / "crawl" / "crawldb", FETCHED_PAGES)
    write_crawldb(Location.parse(uri, load_settings(overrides=s3.defines)), FETCHED_PAGES)  # type: ignore[arg-type]
    runs = [(["-group", "host", "-compareOrder", "score,fetchTime,httpsOverHttp,urlLength"], "4", "1"),
            ([], "1", "5")]  # a.example/2, http://b.example/1 (its https twin), c.example/x and /y; then a.example/1
    for n, (options, marked, before) in enumerate(runs):
        out = {}
        for crawldb in (local, uri):
            result = cli("dedup", crawldb, *options, *d)
            assert result.code == 0, result.err
            out[str(crawldb)] = [line for line in result.out.splitlines() if "finished in" not in line]
        assert out[uri] == out[str(local)]
        assert (f"Deduplication: {marked} documents marked as duplicates; {before} already db_duplicate "
                "(left as they are)") in out[uri]
        assert dump(cli, d, uri, tmp_path / f"r{n}") == dump(cli, d, local, tmp_path / f"l{n}")
    again = cli("dedup", uri, *d)
    assert again.code == 0 and "crawldb unchanged" in again.out  # nothing new: no version written


def link_dump(cli, defines: list[str], linkdb: str | Path, out: Path, *args: str) -> str:
    result = cli("readlinkdb", linkdb, "-dump", out, *args, *defines)
    assert result.code == 0, result.err
    return "".join(f.read_text() for f in sorted(out.iterdir()))


def test_linkdb_commands_on_s3_equal_the_same_on_a_local_path(cli, s3: S3Server, tmp_path: Path) -> None:
    d = [f"-D{x}" for x in [*s3.defines, "store.parts=3", "linkdb.ignore.internal.links=true"]]  # Nutch's rule
    bucket = s3.bucket()
    remote, local = f"s3://{bucket}/crawl/linkdb", tmp_path / "crawl" / "linkdb"
    segments = tmp_path / "crawl" / "segments"
    first = write_parse_data(segments, "20260101000000", [
        (A, [(B, "to b"), (C, "to c"), (A + "self", "internal")]), (C, [(B, "also b")])], parts=2)
    second = write_parse_data(segments, "20260102000000", [
        (A, [(B, "new anchor")]), (B, [(C, "b to c"), ("http://d.example/page", "to d")])])
    for segment in (first, second):  # the second merges with the linkdb read back from S3
        out = {}
        for linkdb in (local, remote):
            result = cli("invertlinks", linkdb, segment, *d)
            assert result.code == 0, result.err
            out[str(linkdb)] = [line for line in result.out.splitlines() if "finished in" not in line]
        assert out[remote] == out[str(local)]
        name = segment.name
        assert link_dump(cli, d, remote, tmp_path / f"r{name}") == link_dump(cli, d, local, tmp_path / f"l{name}")
    text = link_dump(cli, d, remote, tmp_path / "json", "-format", "json")
    assert text.count("\n") == 3 and "internal" not in text  # B, C and d.example; the self link is internal
    found = cli("readlinkdb", remote, "-url", B, *d)
    assert found.code == 0 and found.out == f" fromUrl: {A} anchor: new anchor\n fromUrl: {C} anchor: also b\n"
    assert cli("readlinkdb", remote, "-url", "http://nowhere.example/", *d).code == 1

    # mergelinkdb of a local and an S3 linkdb, into S3 and into a local directory: the same table
    other = tmp_path / "other" / "linkdb"
    assert cli("invertlinks", other, write_parse_data(tmp_path / "other" / "segments", "20260103000000", [
        ("http://e.example/", [(B, "from e"), (C + "?x=1", "filtered")])]), "-noFilter", *d).code == 0
    merged = {}
    for out_table in (f"s3://{bucket}/merged/linkdb", tmp_path / "merged" / "linkdb"):
        result = cli("mergelinkdb", out_table, remote, other, "-filter", *d)
        assert result.code == 0, result.err
        merged[str(out_table)] = link_dump(cli, d, out_table, tmp_path / f"m{len(merged)}")
    assert merged[f"s3://{bucket}/merged/linkdb"] == merged[str(tmp_path / "merged" / "linkdb")]
    assert "fromUrl: http://e.example/ anchor: from e" in merged[str(tmp_path / "merged" / "linkdb")]
    assert "?x=1" not in merged[str(tmp_path / "merged" / "linkdb")]  # -filter: Nutch's default URL filters


def test_linkdb_uris_bad_input_is_a_usage_error(cli, s3: S3Server, tmp_path: Path) -> None:
    d = [f"-D{x}" for x in s3.defines]
    bucket = s3.bucket()
    missing = cli("readlinkdb", f"s3://{bucket}/none/linkdb", "-url", B, *d)
    assert missing.code == 2 and "no CURRENT pointer" in missing.err
    remote_segment = cli("invertlinks", f"s3://{bucket}/crawl/linkdb", f"s3://{bucket}/segments/1", *d)
    assert remote_segment.code == 2 and "no such segment directory: s3://" in remote_segment.err
    absent = cli("mergelinkdb", f"s3://{bucket}/merged/linkdb", f"s3://{bucket}/absent/linkdb", *d)
    assert absent.code == 2 and "no CURRENT pointer" in absent.err


def test_a_whole_crawl_on_s3_equals_the_same_crawl_on_a_local_path(cli, s3: S3Server, tmp_path: Path) -> None:
    """crawl -d s3://… --index: every table, segment and the index on S3; then search it there."""
    from .test_spark_engine import CRAWL_DEFINES, crawl_contents, reference_crawl

    d = [f"-D{x}" for x in [*s3.defines, *CRAWL_DEFINES]]
    uri = f"s3://{s3.bucket()}/crawl"
    with reference_crawl(cli, tmp_path, d) as (site, seeds):
        remote_seeds = Location.parse(f"{uri}-seeds/seeds.txt", load_settings(overrides=s3.defines))
        remote_seeds.write_bytes(seeds.read_bytes())
        remote = cli("crawl", str(remote_seeds), "-d", uri, "-r", "2", "--index", *d)  # seeds on S3 too
        assert remote.code == 0, remote.err
        more = cli("crawl", "-d", uri, "-r", "1", "--index", *d)  # no seeds: the crawldb on S3 exists
        assert more.code == 0, more.err
        assert cli("crawl", "-d", tmp_path / "local", "-r", "1", "--index", *d).code == 0
    settings = load_settings(overrides=s3.defines)
    assert crawl_contents(Location.parse(uri, settings), settings) == crawl_contents(tmp_path / "local")
    assert not any(p.name.startswith(("s3:", "index")) for p in Path.cwd().iterdir())  # nothing local
    found = cli("search", "-d", uri, "distributed datasets", "--json", *d)
    assert found.code == 0, found.err
    assert site.url("/p") in found.out
    missing = cli("crawl", "-d", f"s3://{s3.bucket()}/none", *d)
    assert missing.code == 2 and "does not exist" in missing.err


def test_inject_reads_seeds_from_s3(cli, s3: S3Server, tmp_path: Path) -> None:
    """A seed directory on S3 (plain and gzip files, a hidden file skipped) injects as the same local one."""
    import gzip

    d = [f"-D{x}" for x in s3.defines]
    settings = load_settings(overrides=s3.defines)
    seeds = Location.parse(f"s3://{s3.bucket()}/seeds", settings)
    local = tmp_path / "seeds"
    local.mkdir()
    files = {"a.txt": "\n".join(SCORED[:20]).encode() + b"\nnot a url\n",
             "b.txt.gz": gzip.compress("\n".join(SCORED[20:]).encode()), ".hidden": b"http://hidden.example/\n"}
    for name, data in files.items():
        (seeds / name).write_bytes(data)
        (local / name).write_bytes(data)
    out = {}
    for name, source in (("local", str(local)), ("remote", str(seeds))):
        result = cli("inject", tmp_path / name / "crawldb", source, "-noFilter", *d)
        assert result.code == 0, result.err
        out[name] = [line for line in result.out.splitlines() if "finished in" not in line]
        assert "a.txt:21" in result.err  # the bad line, named by file and line
    assert out["remote"] == out["local"] and "Injector: Total new urls injected: 41" in out["remote"]
    assert dump(cli, d, tmp_path / "remote" / "crawldb", tmp_path / "d1", timeless=True) == \
        dump(cli, d, tmp_path / "local" / "crawldb", tmp_path / "d2", timeless=True)  # each ran at its own time
    missing = cli("inject", tmp_path / "x" / "crawldb", f"s3://{s3.bucket()}/none.txt", *d)
    assert missing.code == 2 and "seeds not found" in missing.err
