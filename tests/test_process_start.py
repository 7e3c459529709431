"""The local engine's worker processes: forks of a server with the task modules loaded (gossamer.core.process_start).

Real processes throughout: a worker must see the driver's state of *now* (not the server's of its start), die
with the driver however it dies, and its CPU must count in the driver's ``RUSAGE_CHILDREN`` after the driver
exits (the benchmarks read it).
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from gossamer.core import pid_alive, process_start
from gossamer.core.process_start import START_METHOD_ENV, start_method, worker_context
from gossamer.engine import local

REPO = Path(__file__).resolve().parents[1]


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped by whoever adopted it, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return pid_alive(pid)
    return state != "Z"


def worker_view(name: str) -> tuple[str, str | None, bool, int]:
    """What a worker sees: its working directory, ``$name``, whether ``sys.path`` has the marker, its parent."""
    return os.getcwd(), os.environ.get(name), "/gossamer-test-marker" in sys.path, os.getppid()


def test_the_start_method_is_spawn_unless_the_server_was_started_early_or_asked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(process_start, "_EARLY", [])
    monkeypatch.delenv(START_METHOD_ENV, raising=False)
    assert start_method() == "spawn"
    monkeypatch.setenv(START_METHOD_ENV, "forkserver")
    assert start_method() == "forkserver"
    monkeypatch.setenv(START_METHOD_ENV, "no-such-method")
    assert start_method() == "spawn"
    monkeypatch.setenv(START_METHOD_ENV, "spawn")
    assert not process_start.start_server_early() and start_method() == "spawn"
    monkeypatch.delenv(START_METHOD_ENV)
    assert process_start.start_server_early() and start_method() == "forkserver"


def test_workers_are_spawned_while_an_allocator_setting_differs_from_the_servers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(START_METHOD_ENV, "forkserver")
    assert worker_context().get_start_method() == "forkserver"
    original = os.environ.get("MALLOC_ARENA_MAX")
    monkeypatch.setenv("MALLOC_ARENA_MAX", "3" if original != "3" else "4")
    with local._executor(2) as pool:
        assert pool.submit(os.getenv, "MALLOC_ARENA_MAX").result() == os.environ["MALLOC_ARENA_MAX"]
    assert worker_context().get_start_method() == "spawn"
    if original is None:
        monkeypatch.delenv("MALLOC_ARENA_MAX")
    else:
        monkeypatch.setenv("MALLOC_ARENA_MAX", original)
    assert worker_context().get_start_method() == "forkserver"


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_a_worker_sees_the_drivers_directory_environment_and_path_of_now(
        method: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(START_METHOD_ENV, method)
    with local._executor(2) as pool:  # the server (if any) may have started long before this test
        pool.submit(worker_view, "X").result()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GOSSAMER_TEST_VALUE", "set after the server started")
    monkeypatch.syspath_prepend("/gossamer-test-marker")
    with local._executor(2) as pool:
        cwd, value, marked, parent = pool.submit(worker_view, "GOSSAMER_TEST_VALUE").result()
    assert (cwd, value, marked) == (str(tmp_path), "set after the server started", True)
    assert (parent == os.getpid()) == (method == "spawn")


DRIVER = textwrap.dedent("""
    import os, sys, time
    from gossamer.core import start_server_early
    from gossamer.engine import local

    def burn(seconds):
        while time.process_time() < seconds:
            pass
        return os.getpid()

    def sleep_forever(path):
        with open(path, "w") as out:
            out.write(str(os.getpid()))
        time.sleep(600)

    if __name__ == "__main__":
        assert start_server_early()
        with local._executor(2) as pool:
            if sys.argv[1] == "burn":
                print(pool.submit(burn, 0.6).result())
            else:
                pool.submit(sleep_forever, sys.argv[2]).result()
""")


def _driver(tmp_path: Path) -> Path:
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    return script


def test_a_workers_cpu_counts_in_the_drivers_children_after_it_exits(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    ran = subprocess.run([sys.executable, str(_driver(tmp_path)), "burn"], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO / "src")}, timeout=120)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert ran.returncode == 0, ran.stderr
    worker = int(ran.stdout.split()[-1])
    assert not _running(worker)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert cpu >= 0.6  # the worker's 0.6 s reached the driver's rusage, then ours


def test_a_worker_dies_with_a_driver_killed_with_sigkill(tmp_path: Path) -> None:
    marker = tmp_path / "worker.pid"
    driver = subprocess.Popen([sys.executable, str(_driver(tmp_path)), "sleep", str(marker)], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    try:
        deadline = time.monotonic() + 60
        while not (marker.is_file() and marker.read_text()) and time.monotonic() < deadline:
            time.sleep(0.05)
        worker = int(marker.read_text())
        assert _running(worker)
    finally:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
    deadline = time.monotonic() + 20
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running(worker)
