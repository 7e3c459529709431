"""webgraph on engine=spark writes the same three tables as on the local engine."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from gossamer.engine.spark import stop_session  # noqa: E402

from .graph_fixtures import T0, Page, read_table, write_segment  # noqa: E402

HOUR = 3_600_000


@pytest.fixture(scope="module", autouse=True)
def spark_session() -> Iterator[None]:
    yield
    stop_session()


@pytest.mark.slow
def test_webgraph_on_spark_matches_the_local_engine(cli, tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    pages = [Page(f"http://site{i}.com/", [(f"http://site{(i * 7 + k) % 23}.org/p{k}", f"a{k}") for k in range(4)]
                  + [(f"http://site{(i + 1) % 23}.com/", "next")]) for i in range(23)]
    write_segment(crawl / "segments", "20260101000000", pages)
    write_segment(crawl / "segments", "20260102000000", [Page("http://site3.com/", [("http://z.net/", "")],
                                                              fetch_time=T0 + HOUR)])
    common = ("-D", "store.parts=3", "-D", "link.ignore.limit.page=false")
    assert cli("webgraph", "-d", crawl, "-webgraphdb", tmp_path / "local", *common).code == 0
    result = cli("webgraph", "-d", crawl, "-webgraphdb", tmp_path / "spark", *common,
                 "-D", "engine=spark", "-D", "spark.master=local[2]")
    assert result.code == 0, result.err
    for table in ("outlinks", "nodes", "inlinks"):
        local, spark = read_table(tmp_path / "local" / table), read_table(tmp_path / "spark" / table)
        assert local == spark and local, table
