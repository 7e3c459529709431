"""Shared fixtures: running the real CLI in-process, and small seed files."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from gossamer.cli import common
from gossamer.cli.main import main

VECTORS = Path(__file__).resolve().parent / "vectors"
"""Conformance cases copied from ../shared/vectors (Nutch and crawler-commons test suites)."""
LOOPBACK_ALLOWED = {"GOSSAMER_HTTP_FILTER_IPADDRESS_INCLUDE": "loopback"}
"""Every test site is on loopback, which the SSRF guard refuses by default: the tests allow it explicitly."""
ENV_KEEP = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV", "XDG_CACHE_HOME",
            *LOOPBACK_ALLOWED}
os.environ.update(LOOPBACK_ALLOWED)  # for module-scoped fixtures too, which run before the autouse one below
TEST_CACHE = Path(tempfile.mkdtemp(prefix="gossamer-test-cache-"))
"""What Gossamer derives and keeps between runs (the langid model's arrays, the embedding model's word store)
goes here during the tests, not into the developer's ``~/.cache``: each test process starts without it."""
os.environ["XDG_CACHE_HOME"] = str(TEST_CACHE)
atexit.register(shutil.rmtree, TEST_CACHE, True)


@pytest.fixture(params=["lean", "aiohttp"])
def http_client(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with each client of protocol-http (``tests.fetch_server.settings`` picks it)."""
    from tests import fetch_server

    monkeypatch.setattr(fetch_server, "HTTP_CLIENT", request.param)
    return str(request.param)


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No GOSSAMER_* variables leak in from the developer's shell; loopback fetching is allowed."""
    for key in list(os.environ):
        if key.startswith("GOSSAMER_"):
            monkeypatch.delenv(key)
    for key, value in LOOPBACK_ALLOWED.items():
        monkeypatch.setenv(key, value)


def run_main(*args: str | Path) -> int:
    """Run ``gossamer <args>`` in this process with fresh CLI state (``-D``, ``--conf``); the exit code.

    For module-scoped fixtures, which cannot use the ``cli`` fixture.
    """
    common.STATE.defines.clear()
    common.STATE.conf = None
    return main([str(a) for a in args])


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run ``gossamer <args>`` in this process; returns exit code and captured output."""

    def run(*args: str | Path) -> CliResult:
        capsys.readouterr()
        code = run_main(*args)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def gossamer_subprocess(*args: str | Path, **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run the installed console script in a child process."""
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env,
                          check=False, **kwargs)  # type: ignore[call-overload]


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def stats_value(output: str, label: str) -> str:
    for line in output.splitlines():
        if line.startswith(label + ":\t"):
            return line.split("\t", 1)[1]
    raise AssertionError(f"{label!r} not in output:\n{output}")


def install_fake_distribution(site: Path, name: str, module: str, source: str,
                              entry_points: dict[str, str]) -> Path:
    """Write a real installed distribution (module + dist-info with entry points) into ``site``.

    Put ``site`` on sys.path (``monkeypatch.syspath_prepend``) and importlib.metadata finds it
    exactly like a pip-installed plugin package.
    """
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{module}.py").write_text(source)
    info = site / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text("[gossamer.plugins]\n" + lines)
    return site
