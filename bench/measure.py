"""Run a command as a subprocess and measure its time, CPU and memory.

Contract of :func:`run_measured`:

* ``wall_s`` is the elapsed time from just before spawning until the process is reaped.
* ``cpu_user_s``/``cpu_sys_s`` are the ``RUSAGE_CHILDREN`` deltas around the run: the CPU time of
  the process and of every descendant it waited for (orphaned daemons are not counted). Runs must
  therefore not overlap within one Python process.
* ``peak_tree_rss_bytes`` is the largest sum of resident memory (VmRSS, read as the resident page
  count of ``/proc/<pid>/statm``) over the process and all its descendants, sampled every
  ``interval`` seconds. Descendants are found via ``/proc/<pid>/task/*/children`` when the kernel
  provides it, else by scanning the parent pid of every ``/proc/<pid>/stat``.
* ``max_process_rss_bytes`` is the ``ru_maxrss`` that ``wait4`` reports for the process: the peak
  RSS of the largest single process among it and the descendants it waited for. Linux folds the
  pre-exec memory of a spawned child, i.e. this (parent) process's RSS, into it; the parent's peak
  is therefore reset first (``/proc/self/clear_refs``), so the value is inflated by at most the
  parent's current RSS (keep the parent small). Since sampling can miss short spikes, report
  ``max(peak_tree_rss, max_process_rss)`` as the memory peak.
* stdout/stderr go to ``<log_dir>/<name>.stdout``/``.stderr`` and their text is returned.
* A non-zero exit raises :class:`CommandError` (with the measurement and the stderr tail) unless
  ``check`` is false.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import MB

_PAGE_SIZE: int = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Measurement:
    """What one measured command run cost; byte counts are exact, times in seconds."""

    argv: list[str]
    returncode: int
    wall_s: float
    cpu_user_s: float
    cpu_sys_s: float
    peak_tree_rss_bytes: int
    max_process_rss_bytes: int
    samples: int
    stdout: str = field(repr=False)
    stderr: str = field(repr=False)

    @property
    def cpu_s(self) -> float:
        """User plus system CPU seconds of the process tree."""
        return self.cpu_user_s + self.cpu_sys_s

    @property
    def peak_rss_bytes(self) -> int:
        """The best available memory peak: the larger of the tree sample and the single-process max."""
        return max(self.peak_tree_rss_bytes, self.max_process_rss_bytes)

    def summary(self, items: int | None = None) -> dict[str, Any]:
        """A JSON-ready dict of the numbers (no output text); ``items`` adds ``urls_per_s``."""
        out: dict[str, Any] = {k: v for k, v in asdict(self).items() if k not in ("stdout", "stderr")}
        out["argv"] = [a if len(a) <= 200 else a[:40].strip() + " ..." for a in self.argv]
        out["wall_s"] = round(self.wall_s, 3)
        out["cpu_s"] = round(self.cpu_s, 3)
        out["peak_tree_rss_mb"] = round(self.peak_tree_rss_bytes / MB, 1)
        out["max_rss_mb"] = round(self.max_process_rss_bytes / MB, 1)
        if items is not None:
            out["urls_per_s"] = round(items / self.wall_s) if self.wall_s > 0 else None
        return out


class CommandError(RuntimeError):
    """A measured command exited non-zero; ``measurement`` holds what was measured anyway."""

    def __init__(self, measurement: Measurement, tail_lines: int = 40) -> None:
        tail = "\n".join(measurement.stderr.splitlines()[-tail_lines:])
        super().__init__(
            f"command failed with exit code {measurement.returncode}: "
            f"{' '.join(measurement.argv)}\n--- stderr tail ---\n{tail}"
        )
        self.measurement = measurement


def _children_via_task(pid: int) -> list[int] | None:
    """Children of ``pid`` from /proc/<pid>/task/*/children, or None if the kernel lacks it."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    kids: list[int] = []
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                kids.extend(int(x) for x in fh.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{tid}"):
                continue  # thread exited meanwhile
            return None
        except OSError:
            continue
    return kids


def _parent_map() -> dict[int, list[int]]:
    """Map parent pid -> child pids by scanning every /proc/<pid>/stat."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        # Field 4 (ppid) follows the ")" closing the command name, which may contain spaces.
        rest = stat[stat.rfind(b")") + 2 :].split()
        if len(rest) > 1:
            parents.setdefault(int(rest[1]), []).append(int(entry))
    return parents


def process_tree(root: int) -> list[int]:
    """The pid ``root`` followed by all its live descendants (best effort, races tolerated)."""
    tree = [root]
    parents: dict[int, list[int]] | None = None
    i = 0
    while i < len(tree):
        pid = tree[i]
        kids = _children_via_task(pid) if parents is None else None
        if kids is None:
            if parents is None:
                parents = _parent_map()
            kids = parents.get(pid, [])
        tree.extend(k for k in kids if k not in tree)
        i += 1
    return tree


def tree_rss_bytes(root: int) -> int:
    """Sum of the resident memory of ``root`` and its descendants (0 for vanished processes)."""
    total = 0
    for pid in process_tree(root):
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * _PAGE_SIZE
        except (OSError, IndexError, ValueError):
            continue
    return total


class _Sampler(threading.Thread):
    """Background thread recording the peak of :func:`tree_rss_bytes` until stopped."""

    def __init__(self, pid: int, interval: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.peak, self.samples = 0, 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while True:
            self.peak = max(self.peak, tree_rss_bytes(self.pid))
            self.samples += 1
            if self._stop_event.wait(self.interval):
                return

    def stop(self) -> None:
        self._stop_event.set()
        self.join()


def _reset_own_peak_rss() -> None:
    """Reset this process's RSS high-water mark so spawned children do not inherit it (best effort)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        pass


def run_measured(
    argv: Sequence[str],
    *,
    log_dir: Path,
    name: str,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    interval: float = 0.05,
) -> Measurement:
    """Run ``argv`` to completion and measure it (see the module docstring for the contract)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    out_path, err_path = log_dir / f"{name}.stdout", log_dir / f"{name}.stderr"
    _reset_own_peak_rss()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            cwd=cwd,
            env=dict(env) if env is not None else None,
        )
        sampler = _Sampler(proc.pid, interval)
        sampler.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            proc.kill()
            proc.wait()
            sampler.stop()
            raise
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    result = Measurement(
        argv=list(argv),
        returncode=proc.returncode,
        wall_s=wall,
        cpu_user_s=after.ru_utime - before.ru_utime,
        cpu_sys_s=after.ru_stime - before.ru_stime,
        peak_tree_rss_bytes=sampler.peak,
        max_process_rss_bytes=usage.ru_maxrss * 1024,
        samples=sampler.samples,
        stdout=out_path.read_text(errors="replace"),
        stderr=err_path.read_text(errors="replace"),
    )
    if check and result.returncode != 0:
        raise CommandError(result)
    return result
