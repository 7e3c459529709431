"""Facts about the machine and software a benchmark ran on, for the JSON results.

:func:`machine_facts` never raises: a fact that cannot be read is reported as None.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from bench import MB, REPO_ROOT

PACKAGES: tuple[str, ...] = ("gossamer", "pyarrow", "duckdb")


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def cpu_model() -> str | None:
    """The first ``model name`` in /proc/cpuinfo (None if absent)."""
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or None


def meminfo_mb(field: str) -> float | None:
    """A /proc/meminfo field (e.g. ``MemTotal``) in MB, or None."""
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith(field + ":"):
            return round(int(line.split()[1]) * 1024 / MB, 1)
    return None


def package_version(name: str) -> str | None:
    """Installed version of a distribution, or None if not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def git_info(repo: Path = REPO_ROOT) -> dict[str, Any]:
    """``commit`` (None before the first commit) and ``dirty`` (uncommitted changes) of ``repo``."""

    def git(*args: str) -> str | None:
        try:
            res = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return res.stdout.strip() if res.returncode == 0 else None

    status = git("status", "--porcelain")
    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(status) if status is not None else None}


def machine_facts() -> dict[str, Any]:
    """CPU, memory, kernel, Python, package versions, git commit and load average at call time."""
    try:
        affinity: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = None
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    uname = platform.uname()
    return {
        "hostname": uname.node,
        "cpu_count": os.cpu_count(),
        "cpu_affinity": affinity,
        "cpu_model": cpu_model(),
        "mem_total_mb": meminfo_mb("MemTotal"),
        "mem_available_mb": meminfo_mb("MemAvailable"),
        "kernel": f"{uname.system} {uname.release}",
        "machine": uname.machine,
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "python_base": sys.base_prefix,
        "packages": {name: package_version(name) for name in PACKAGES},
        "git": git_info(),
        "loadavg_start": load,
    }
