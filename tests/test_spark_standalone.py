"""A Spark standalone cluster on loopback (issue 7): a master and a worker in their own JVMs,
executors in the worker's own working directory — closer to a real cluster than ``local[N]``.

The crawl is started with *relative* paths from another directory than the worker's: every path
that reaches an executor must have been made absolute by the driver.  The crawl's crawldb, linkdb
and index equal the local engine's.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pyspark = pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from .conftest import ENV_KEEP  # noqa: E402
from .test_spark_engine import CRAWL_DEFINES, crawl_contents, reference_crawl  # noqa: E402

LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class StandaloneCluster:
    """The master's URL and the processes to stop."""

    master: str
    processes: tuple[subprocess.Popen[bytes], ...]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def _wait_for(log: Path, text: str, process: subprocess.Popen[bytes], seconds: float = 90.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if log.is_file() and text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.3)
    raise RuntimeError(f"{text!r} not in {log}:\n{log.read_text(errors='replace')[-3000:] if log.is_file() else ''}")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    """One master and one 2-core worker, every socket on 127.0.0.1; stopped after the module."""
    home = Path(pyspark.__file__).parent
    spark_class = str(home / "bin" / "spark-class")
    base = tmp_path_factory.mktemp("standalone")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    env.update(SPARK_HOME=str(home), SPARK_LOCAL_IP=LOOPBACK, SPARK_LOG_DIR=str(base), SPARK_NO_DAEMONIZE="1",
               PYSPARK_PYTHON=sys.executable)
    port = _free_port()
    master_log, worker_log = base / "master.log", base / "worker.log"
    started: list[subprocess.Popen[bytes]] = []

    def launch(args: list[str], log: Path) -> subprocess.Popen[bytes]:
        with log.open("wb") as out:
            process = subprocess.Popen([spark_class, *args], stdout=out, stderr=subprocess.STDOUT, env=env,
                                       cwd=base, start_new_session=True)
        started.append(process)
        return process

    try:
        master = launch(["org.apache.spark.deploy.master.Master", "--host", LOOPBACK, "--port", str(port),
                         "--webui-port", str(_free_port())], master_log)
        _wait_for(master_log, "I have been elected leader", master)
        url = f"spark://{LOOPBACK}:{port}"
        worker = launch(["org.apache.spark.deploy.worker.Worker", "--host", LOOPBACK, "--cores", "2",
                         "--memory", "2g", "--webui-port", str(_free_port()), "--work-dir", str(base / "work"), url],
                        worker_log)
        _wait_for(worker_log, "Successfully registered with master", worker)
        yield StandaloneCluster(url, tuple(started))
    finally:
        for process in started:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in started:
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def test_a_crawl_on_a_standalone_cluster_equals_the_local_engine(cli, cluster: StandaloneCluster,
                                                                  tmp_path: Path) -> None:
    common = [f"-D{x}" for x in CRAWL_DEFINES]
    with reference_crawl(cli, tmp_path, common, rounds=3):
        env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
        env["SPARK_LOCAL_IP"] = LOOPBACK
        # relative paths, from a directory the executors do not run in
        ran = subprocess.run([str(Path(sys.executable).with_name("gossamer")), "crawl", "seeds.txt", "-d", "spark",
                              "-r", "3", "--index", "--engine", "spark", "-D", f"spark.master={cluster.master}",
                              "-D", f"spark.driver.host={LOOPBACK}", "-D", "fetcher.parse=false", *common],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    assert "Indexer: documents added/replaced" in ran.stdout
    spark, expected = crawl_contents(tmp_path / "spark"), crawl_contents(tmp_path / "local")
    for name in ("crawldb", "linkdb", "index"):
        assert spark[name] == expected[name], f"{name}: {ran.stdout[-4000:]}"
    assert all(p.poll() is None for p in cluster.processes)  # the cluster survived the crawl
