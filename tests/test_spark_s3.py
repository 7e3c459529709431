"""The Spark engine writes a crawldb on ``s3://`` (issue 7): reduce tasks receive the staging
location as a picklable URI and write their parts there; the result equals the local engine's.
Generate on an S3 crawldb: executors write the candidate table beside it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from gossamer.core.settings import load_settings  # noqa: E402
from gossamer.crawl.generate.generator import GenerateOptions, generate  # noqa: E402
from gossamer.crawl.inject.injector import inject  # noqa: E402
from gossamer.crawl.inject.seed_merge import InjectOptions  # noqa: E402
from gossamer.store import open_live  # noqa: E402
from gossamer.store.install_remote import read_pointer  # noqa: E402
from gossamer.store.location import Location  # noqa: E402
from gossamer.store.place import Place

from .conftest import ENV_KEEP, write_lines  # noqa: E402
from .s3_server import CREDENTIALS, S3Server, s3_server  # noqa: E402


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def rows(crawldb: Place) -> list[tuple[str, int, float]]:
    with open_live(crawldb) as version:
        return [(r["url"], r["status"], r["score"]) for b in version.iter_batches() for r in b.to_pylist()]


def spark_cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """``gossamer … --engine spark`` in a fresh process: its JVM and Python workers start with the
    S3 credentials in their environment, as executors of a real cluster must."""
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP or k in CREDENTIALS}
    exe = Path(sys.executable).with_name("gossamer")
    return subprocess.run([str(exe), *map(str, args), "--engine", "spark"], capture_output=True, text=True,
                          env=env, check=False, timeout=300)


def test_spark_injects_into_an_s3_crawldb(s3: S3Server, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", [f"http://h{i % 7}.example/p{i}" for i in range(200)]
                        + ["not a url"])
    common = [*s3.defines, "spark.master=local[2]", "store.parts=4"]
    defines = [f"-D{x}" for x in common]
    uri = f"s3://{s3.bucket()}/crawl/crawldb"
    result = spark_cli("inject", uri, seeds, *defines)
    assert result.returncode == 0, result.stderr
    assert "Total new urls injected: 200" in result.stdout and "not a url" in result.stderr
    local = tmp_path / "crawl" / "crawldb"
    inject(local, seeds, load_settings(overrides=[*common, "engine=local"]))
    remote = Location.parse(uri, load_settings(overrides=common))
    assert rows(remote) == rows(local)
    with open_live(remote) as version:
        assert version.parts == 4 and isinstance(version.directory, Location)
    # a second inject on Spark merges with the S3 crawldb, read co-partitioned from S3 by the executors
    again = spark_cli("inject", uri, write_lines(tmp_path / "more.txt", ["http://new.example/"]), *defines)
    assert again.returncode == 0, again.stderr
    assert "Total urls in CrawlDb: 201" in again.stdout
    stats = spark_cli("readdb", uri, "-stats", *defines)
    assert "TOTAL urls:\t201" in stats.stdout


def test_spark_generates_from_an_s3_crawldb(s3: S3Server, tmp_path: Path) -> None:
    """Executors write the candidate parts beside the crawldb on S3; the fetch lists and the marked
    crawldb equal those of the local engine on a local path."""
    from .test_crawl_s3 import SCORED, fetch_lists

    seeds = write_lines(tmp_path / "seeds.txt", SCORED)
    common = [*s3.defines, "store.parts=3", "generate.update.crawldb=true", "generate.max.count=3"]
    uri = f"s3://{s3.bucket()}/crawl/crawldb"
    local = tmp_path / "crawl" / "crawldb"
    for crawldb in (uri, local):
        inject(crawldb, seeds, load_settings(overrides=[*common, "engine=local"]), InjectOptions(filter=False))
    options = ["-topN", "7", "-maxNumSegments", "2", "-numFetchers", "2"]
    result = spark_cli("generate", uri, tmp_path / "spark", *options, *[f"-D{x}" for x in common],
                       "-Dspark.master=local[2]")
    assert result.returncode == 0, result.stderr
    assert "candidates due: 41, rejected by filters: 1" in result.stdout
    generate(local, tmp_path / "local", load_settings(overrides=[*common, "engine=local"]),
             GenerateOptions(top_n=7, num_fetchers=2, max_num_segments=2))
    assert fetch_lists(tmp_path / "spark") == fetch_lists(tmp_path / "local")
    marked = [(url, status, "_ngt_" in meta) for url, status, meta in marks(Location.parse(
        uri, load_settings(overrides=common)))]
    assert marked == [(url, status, "_ngt_" in meta) for url, status, meta in marks(local)]
    assert sum(flag for _, _, flag in marked) == 14
    table = Location.parse(uri, load_settings(overrides=common))
    versions = {info.base_name for info in table.list() if info.base_name.startswith(("v-", "tmp-"))}
    assert versions == {name for name in (read_pointer(table) or {}).values() if name}  # no staging left


def marks(crawldb: Place) -> list[tuple[str, int, dict[str, str]]]:
    with open_live(crawldb) as version:
        return [(r["url"], r["status"], dict(r["metadata"] or []))
                for b in version.iter_batches() for r in b.to_pylist()]


def test_spark_indexes_an_s3_crawl_into_an_s3_index(cli, s3: S3Server, tmp_path: Path) -> None:
    """Executors read the S3 crawldb, linkdb and segments and write the index actions inside the
    index's own store; the driver builds and uploads the version: the documents equal the local engine's."""
    from .test_index_s3 import local_docs, remote_docs, s3_crawl

    crawl, root, d, settings = s3_crawl(cli, s3, tmp_path)
    result = spark_cli("index", f"{root}/crawldb", "-linkdb", f"{root}/linkdb", "-dir", f"{root}/segments",
                       "-deleteGone", *d, "-Dspark.master=local[2]", "-Dstore.parts=2")
    assert result.returncode == 0, result.stderr
    assert "documents added/replaced: 4" in result.stdout and "uploaded index version v-" in result.stdout
    local = cli("index", crawl / "crawldb", "-linkdb", crawl / "linkdb", "-dir", crawl / "segments", "-deleteGone",
                *d, "-Dstore.parts=2")
    assert local.code == 0, local.err
    assert remote_docs(f"{root}/index", settings) == local_docs(crawl / "index")
    index = Location.parse(f"{root}/index", settings)
    assert {i.base_name for i in index.list() if i.base_name.startswith(("v-", "tmp-"))} == {
        (read_pointer(index) or {})["current"]}  # the actions table was removed


def test_spark_crawls_into_an_s3_crawl_directory(cli, s3: S3Server, tmp_path: Path) -> None:
    """crawl -d s3://… --index --engine spark (local[2]): fetch and parse tasks upload their parts, every
    table job writes on S3; the crawl equals the local engine's crawl on a local path."""
    from .test_spark_engine import CRAWL_DEFINES, crawl_contents, reference_crawl

    d = [f"-D{x}" for x in [*s3.defines, *CRAWL_DEFINES]]
    uri = f"s3://{s3.bucket()}/crawl"
    with reference_crawl(cli, tmp_path, d) as (_site, seeds):
        ran = spark_cli("crawl", seeds, "-d", uri, "-r", "2", "--index", *d, "-Dspark.master=local[2]",
                        "-Dfetcher.parse=false")
        assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    settings = load_settings(overrides=s3.defines)
    assert crawl_contents(Location.parse(uri, settings), settings) == crawl_contents(tmp_path / "local")
    assert "ParseSegment" in ran.stdout and "Indexer: documents added/replaced" in ran.stdout
