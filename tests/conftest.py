"""Shared fixtures: running the real CLI in-process, and small seed files."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from gossamer.cli import common
from gossamer.cli.main import main

VECTORS = Path(__file__).resolve().parent / "vectors"
"""Conformance cases copied from ../shared/vectors (Nutch and crawler-commons test suites)."""
ENV_KEEP = {"PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "VIRTUAL_ENV"}


@dataclass
class CliResult:
    code: int
    out: str
    err: str


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No GOSSAMER_* variables leak in from the developer's shell."""
    for key in list(os.environ):
        if key.startswith("GOSSAMER_"):
            monkeypatch.delenv(key)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]):
    """Run ``gossamer <args>`` in this process; returns exit code and captured output."""

    def run(*args: str | Path) -> CliResult:
        common.STATE.defines.clear()
        common.STATE.conf = None
        capsys.readouterr()
        code = main([str(a) for a in args])
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
