"""linkrank (with loop removal) and scoreupdater on Spark (local[2]) give what the local engine gives."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pyarrow.dataset as ds
import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from gossamer.core import load_settings  # noqa: E402
from gossamer.engine.spark import stop_session  # noqa: E402
from gossamer.graph import write_graph  # noqa: E402
from tests.test_graph_linkrank import _crawldb, _graph, _scores  # noqa: E402

pytestmark = pytest.mark.slow
SPARK = ("--engine", "spark", "-D", "spark.master=local[2]")
LOOPS = ("-D", "link.analyze.remove.loops=true")


@pytest.fixture(scope="module", autouse=True)
def spark_session() -> Iterator[None]:
    yield
    stop_session()


def test_linkrank_and_scoreupdater_on_spark_equal_the_local_engine(cli, tmp_path: Path) -> None:
    urls, src, dst = _graph(seed=21, nodes=80, links=500)
    crawls = {}
    for name, engine in (("local", ()), ("spark", SPARK)):
        root = tmp_path / name
        write_graph(root / "webgraph", urls, src, dst, load_settings(overrides=["store.parts=3"]))
        _crawldb(cli, root, [urls[i].as_py() for i in range(0, 80, 3)])
        result = cli("linkrank", "-d", root, *LOOPS, *engine)
        assert result.code == 0, result.err
        assert f"engine {'spark' if engine else 'local'}" in result.out
        assert cli("scoreupdater", "-d", root, *engine).code == 0
        crawls[name] = root
    local, spark = (_scores(crawls[name] / "webgraph") for name in ("local", "spark"))
    assert local.keys() == spark.keys()
    assert max(abs(local[url] - spark[url]) for url in local) < 1e-12
    tables = [ds.dataset(crawls[name] / "crawldb" / "current").to_table(columns=["url", "score"]).sort_by("url")
              for name in crawls]
    assert tables[0].equals(tables[1])
    assert sum(score > 0 for score in tables[0].column("score").to_pylist()) > 10
