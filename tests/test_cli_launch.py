"""The console script's entry point (gossamer.cli.launch): the fork server started early for job commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gossamer.cli.args import command_of
from gossamer.cli.launch import JOB_COMMANDS, runs_local_jobs
from tests.conftest import gossamer_subprocess


@pytest.mark.parametrize(("args", "command"), [
    (["index", "crawl/crawldb", "-dir", "crawl/segments"], "index"),
    (["-D", "engine.local.workers=2", "updatedb", "crawl/crawldb"], "updatedb"),
    (["--engine", "local", "-v", "inject", "db", "seeds"], "inject"),
    (["-Dhttp.agent.name=x", "search", "-d", "crawl", "q"], "search"),
    (["--help"], None),
    ([], None),
])
def test_the_command_is_the_first_word_that_is_no_option(args: list[str], command: str | None) -> None:
    assert command_of(args) == command


def test_only_job_commands_on_the_local_engine_start_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    from gossamer.cli.main import COMMANDS

    assert {"index", "updatedb", "inject", "generate", "invertlinks", "dedup"} <= JOB_COMMANDS <= set(COMMANDS)
    assert runs_local_jobs(["index", "crawl/crawldb"])
    assert not runs_local_jobs(["search", "q"]) and not runs_local_jobs(["crawl", "seeds"])
    assert not runs_local_jobs(["index", "crawl/crawldb", "--engine", "spark"])
    assert not runs_local_jobs(["-D", "engine=spark", "index", "crawl/crawldb"])
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    assert not runs_local_jobs(["index", "crawl/crawldb"])


def test_a_job_command_through_the_console_script(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("".join(f"http://site{i}.test/page\n" for i in range(50)))
    ran = gossamer_subprocess("inject", tmp_path / "crawldb", seeds, "-D", "engine.local.workers=2",
                              "-D", "store.parts=2")
    assert ran.returncode == 0, ran.stderr
    assert "Total new urls injected: 50" in ran.stdout
    listed = gossamer_subprocess("readdb", tmp_path / "crawldb", "-stats")
    assert listed.returncode == 0 and "TOTAL urls:\t50" in listed.stdout.replace("  ", "\t"), listed.stdout


def _run_launcher(monkeypatch: pytest.MonkeyPatch, environ: dict[str, str]) -> str | None:
    """``launch.main()`` for ``gossamer --version`` with ``environ`` set; OPENBLAS_NUM_THREADS afterwards."""
    from gossamer.cli import launch

    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("sys.argv", ["gossamer", "--version"])
    try:
        launch.main()
    except SystemExit:
        pass
    value = os.environ.get("OPENBLAS_NUM_THREADS")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "x")  # so that monkeypatch's undo removes what main() set
    return value


def test_the_launcher_keeps_blas_on_one_thread_unless_the_environment_says_otherwise(
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert _run_launcher(monkeypatch, {}) == "1"
    assert _run_launcher(monkeypatch, {"OPENBLAS_NUM_THREADS": "4"}) == "4"


def _exit_at_once_in_child(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    script = tmp_path / "child.py"
    script.write_text("import atexit, sys, threading, time\n"
                      "from gossamer.cli.launch import exit_at_once\n" + body, encoding="utf-8")
    return subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True,
                          check=False, timeout=60)


def test_exit_at_once_runs_the_exit_handlers_flushes_and_keeps_the_code(tmp_path: Path) -> None:
    ran = _exit_at_once_in_child(tmp_path, (
        "atexit.register(lambda: open(sys.argv[1] + '/handler-ran', 'w').close())\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # a daemon: not waited for\n"
        "sys.stdout.write('buffered, no newline')\n"
        "sys.stderr.write('to stderr')\n"
        "exit_at_once(3)\n"
        "print('never')\n"))
    assert ran.returncode == 3
    assert ran.stdout == "buffered, no newline" and ran.stderr == "to stderr"
    assert (tmp_path / "handler-ran").is_file()


def test_exit_at_once_waits_for_a_thread_that_is_no_daemon(tmp_path: Path) -> None:
    ran = _exit_at_once_in_child(tmp_path, (
        "def work():\n"
        "    time.sleep(0.3)\n"
        "    open(sys.argv[1] + '/thread-done', 'w').close()\n"
        "threading.Thread(target=work).start()\n"
        "exit_at_once(5)\n"))
    assert ran.returncode == 5, ran.stderr
    assert (tmp_path / "thread-done").is_file()


def test_the_console_script_is_the_launcher_that_exits_at_once() -> None:
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "gossamer"]
    assert script.value == "gossamer.cli.launch:run"
