"""Measured benchmark steps that tolerate failures: the bookkeeping every benchmark shares."""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench import MB, REPO_ROOT, BenchOptions
from bench.measure import CommandError, Measurement, run_measured


class StepRunner:
    """Runs measured steps into ``steps`` (name -> summary dict) and records ``checks``.

    A failing step is recorded with ``error`` and returns None; it never raises.
    """

    def __init__(self, log_dir: Path, items: int, log: Callable[[str], None]) -> None:
        self.log_dir, self.items, self.log = log_dir, items, log
        self.steps: dict[str, dict[str, Any]] = {}
        self.checks: list[dict[str, Any]] = []

    def step(self, name: str, argv: list[str], env: dict[str, str] | None = None,
             settle: bool = False) -> Measurement | None:
        """Run one step; on failure record ``error`` and return None.

        ``settle``: write the machine's dirty pages out first (``sync``), so that the kernel's writeback of
        what earlier steps wrote (a copied crawl, other indexes) does not run on the cores during this step.
        """
        self.log(f"{name}: {' '.join(a if len(a) < 80 else '...' for a in argv)}")
        if settle:
            os.sync()
        try:
            m = run_measured(argv, log_dir=self.log_dir, name=name, cwd=REPO_ROOT, env=env)
        except CommandError as exc:
            self.steps[name] = {**exc.measurement.summary(self.items), "error": str(exc)}
            self.log(f"{name} FAILED: {exc}")
            return None
        except OSError as exc:
            self.steps[name] = {"argv": argv, "error": f"cannot run: {exc}"}
            self.log(f"{name} FAILED: cannot run: {exc}")
            return None
        self.steps[name] = m.summary(self.items)
        self.log(f"{name}: {m.wall_s:.2f} s wall, {m.peak_rss_bytes / MB:.0f} MB peak")
        return m

    def check(self, name: str, ok: bool, detail: str) -> None:
        """Record a named check result."""
        self.checks.append({"name": name, "ok": ok, "detail": detail})
        if not ok:
            self.log(f"check {name} FAILED: {detail}")


@contextmanager
def work_dir(opts: BenchOptions, name: str, log: Callable[[str], None]) -> Iterator[Path]:
    """A fresh ``gossamer-bench-<name>-*`` directory under ``opts.workdir``; removed afterwards unless ``--keep``."""
    if opts.workdir is not None:
        opts.workdir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"gossamer-bench-{name}-", dir=opts.workdir))
    try:
        yield work
    finally:
        if opts.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def paired_steps(steps: dict[str, dict[str, Any]], suffixes: list[str], first: str, second: str,
                 field: str) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """``(pair name, first step, second step)`` per suffix (``""`` = pair 0) whose two steps both have ``field``.

    The steps are ``<first><suffix>`` and ``<second><suffix>`` (alternating runs of a benchmark and its peer).
    """
    for suffix in suffixes:
        one, other = steps.get(f"{first}{suffix}", {}), steps.get(f"{second}{suffix}", {})
        if one.get(field) and other.get(field):
            yield suffix or "_pair0", one, other


def median_ratio(pairs: list[dict[str, Any]]) -> float | None:
    """The median of the pairs' ``ratio`` values (None without a pair)."""
    return round(statistics.median(p["ratio"] for p in pairs), 3) if pairs else None
