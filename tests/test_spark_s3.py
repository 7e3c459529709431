"""The Spark engine writes a crawldb on ``s3://`` (issue 7): reduce tasks receive the staging
location as a picklable URI and write their parts there; the result equals the local engine's."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from gossamer.core.settings import load_settings  # noqa: E402
from gossamer.crawl.inject import inject  # noqa: E402
from gossamer.engine.spark import stop_session  # noqa: E402
from gossamer.store import open_live  # noqa: E402
from gossamer.store.location import Location  # noqa: E402

from .conftest import write_lines  # noqa: E402
from .s3_server import S3Server, s3_server  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    """The S3 server first (its credentials in the environment), then a Spark session that inherits them."""
    with s3_server() as server:
        stop_session()
        saved = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), saved) if p)
        try:
            yield server
        finally:
            stop_session()
            if saved is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = saved


def rows(crawldb: Path | Location) -> list[tuple[str, int, float]]:
    with open_live(crawldb) as version:
        return [(r["url"], r["status"], r["score"]) for b in version.iter_batches() for r in b.to_pylist()]


def test_spark_injects_into_an_s3_crawldb(s3: S3Server, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", [f"http://h{i % 7}.example/p{i}" for i in range(200)]
                        + ["not a url"])
    common = [*s3.defines, "spark.master=local[2]", "store.parts=4"]
    remote = Location.parse(f"s3://{s3.bucket()}/crawl/crawldb", load_settings(overrides=common))
    spark = inject(remote, seeds, load_settings(overrides=[*common, "engine=spark"]))
    local = tmp_path / "crawl" / "crawldb"
    reference = inject(local, seeds, load_settings(overrides=[*common, "engine=local"]))
    assert spark.total_urls == reference.total_urls == 200
    assert spark.counters["urls_bad"] == 1
    assert rows(remote) == rows(local)
    with open_live(remote) as version:
        assert version.parts == 4 and isinstance(version.directory, Location)
    # a second inject on Spark merges with the existing S3 crawldb, read co-partitioned from S3
    again = inject(remote, write_lines(tmp_path / "more.txt", ["http://new.example/"]),
                   load_settings(overrides=[*common, "engine=spark"]))
    assert again.total_urls == 201
