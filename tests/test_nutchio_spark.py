"""import-nutch and export-nutch on Spark (local[2]) give what the local engine gives."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pyarrow.dataset as ds
import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from gossamer.engine.spark import stop_session  # noqa: E402
from gossamer.store import as_place  # noqa: E402
from gossamer.store.hadoop import SequenceFileReader, data_files  # noqa: E402
from tests.test_nutchio_build import build_nutch_crawl  # noqa: E402

pytestmark = pytest.mark.slow
SPARK = ("--engine", "spark", "-D", "spark.master=local[2]")


@pytest.fixture(scope="module", autouse=True)
def spark_session() -> Iterator[None]:
    yield
    stop_session()


def _table(directory: Path) -> list[dict]:
    return ds.dataset(directory, format="parquet").to_table().sort_by("url").to_pylist()


def _nutch_records(directory: Path) -> list[tuple[bytes, bytes]]:
    records = []
    for file in data_files(as_place(directory)):
        with SequenceFileReader(file, lenient=True) as reader:
            records.extend(reader.raw())
    return sorted(records)


def test_import_and_export_on_spark_equal_the_local_engine(cli, tmp_path: Path) -> None:
    nutch = build_nutch_crawl(tmp_path / "nutch", "http://127.0.0.1:9").root
    local, spark = tmp_path / "local", tmp_path / "spark"
    assert cli("import-nutch", nutch, "-d", local).code == 0
    on_spark = cli("import-nutch", nutch, "-d", spark, *SPARK)
    assert on_spark.code == 0, on_spark.err
    for table in ("crawldb", "linkdb"):
        assert _table(spark / table / "current") == _table(local / table / "current"), table
    names = [sorted(p.name for p in (root / "segments").iterdir()) for root in (local, spark)]
    assert names[0] and names[0] == names[1]
    assert cli("export-nutch", "-d", local, tmp_path / "out-local").code == 0
    assert cli("export-nutch", "-d", spark, tmp_path / "out-spark", *SPARK).code == 0
    for table in ("crawldb", "linkdb"):
        assert (_nutch_records(tmp_path / "out-spark" / table / "current")
                == _nutch_records(tmp_path / "out-local" / table / "current")), table
