"""Where a crawl step's CPU goes: per process and per phase, read from ``/proc`` while it runs.

``python -m bench.crawl_cpu_probe WORK [--pages N] [--src DIR] [--seconds-per-sample S]`` runs
``gossamer crawl`` exactly as ``scripts/bench crawl`` does (its seeds, rounds, ``-topN``, threads and
``-D`` settings; the local web must be served) in ``WORK/crawl`` and samples the CPU time (user +
system, ``/proc/PID/stat``) of every process of its tree every ``S`` seconds (default 0.05). The
crawl's stdout lines, time-stamped, split the run into phases: start-up + inject, and per round
generate, fetch and updatedb. Each process is named by its role (driver, the kept fetch processes, the
parse worker, others by command line) and its CPU is attributed to the phase in which a sample saw it
grow. ``--src`` puts another source tree first on ``PYTHONPATH`` (an A/B "before"). Prints a table
and writes ``WORK/probe.json``; the total is also read from ``rusage`` of the whole tree.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import localweb as lw
from bench.crawl_bench import CRAWL_SETTINGS, DEFAULT_PAGES, THREADS, rounds_for
from bench.gossamer_crawl import crawl_argv, crawl_phases

_TICK = os.sysconf("SC_CLK_TCK")


def _children(pid: int) -> list[int]:
    """Direct children of ``pid`` (every thread's children file)."""
    out: list[int] = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        pass
    return out


def _cpu(pid: int) -> tuple[float, float] | None:
    """``(utime, stime)`` of ``pid`` in seconds, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) / _TICK, int(fields[12]) / _TICK


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


class Sampler(threading.Thread):
    """Samples every descendant of ``root``: pid -> (parent, cmdline, [(t, cpu)])."""

    def __init__(self, root: int, every: float) -> None:
        super().__init__(daemon=True)
        self.root, self.every = root, every
        self.procs: dict[int, dict[str, Any]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            now = time.time()
            todo, seen = [(self.root, 0)], set()
            while todo:
                pid, parent = todo.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                cpu = _cpu(pid)
                if cpu is None:
                    continue
                info = self.procs.setdefault(pid, {"parent": parent, "cmd": _cmdline(pid), "samples": []})
                info["samples"].append((now, cpu[0] + cpu[1]))
                info["system"] = cpu[1]
                todo += [(c, pid) for c in _children(pid)]
            self.stop.wait(self.every)


def phases_of(lines: list[tuple[float, str]], start: float, end: float) -> list[tuple[str, float]]:
    """(name, start time) of each phase, from the crawl's stdout lines."""
    out = [("startup+inject", start)]
    rnd = 0
    for t, line in lines:
        if line.startswith("== round"):
            rnd = int(line.split()[2])
            out.append((f"r{rnd} generate", t))
        elif line.startswith("Generator: finished") or line.startswith("Generator: 0 records"):
            out.append((f"r{rnd} fetch", t))
        elif line.startswith("Fetcher: segment"):
            out.append((f"r{rnd} updatedb", t))
        elif line.startswith("CrawlDb update: total URLs"):
            out.append((f"r{rnd} after", t))
    return out


def _role(pid: int, info: dict[str, Any], root: int) -> str:
    cmd = info["cmd"]
    if pid == root:
        return "driver"
    if "resource_tracker" in cmd:
        return "resource_tracker"
    return cmd[-60:] or str(pid)


def attribute(procs: dict[int, dict[str, Any]], phases: list[tuple[str, float]], root: int) -> dict[str, Any]:
    """CPU of each process per phase (a sample's growth goes to the phase holding its time), and its system CPU."""
    names = [p[0] for p in phases]
    starts = [p[1] for p in phases]
    table: dict[str, dict[str, float]] = {}
    system: dict[str, float] = {}
    for pid, info in procs.items():
        name = f"{pid} {_role(pid, info, root)}"
        row = table.setdefault(name, {})
        system[name] = info.get("system", 0.0)
        prev = 0.0
        for t, cpu in info["samples"]:
            i = max(0, sum(1 for s in starts if s <= t) - 1)
            row[names[i]] = row.get(names[i], 0.0) + cpu - prev
            prev = cpu
    return {"phases": names, "table": table, "system": system}


@dataclass
class SampledRun:
    """A command run by :func:`run_sampled`: exit code, time-stamped stdout lines, times, CPU and samples."""

    code: int
    lines: list[tuple[float, str]]
    start: float
    end: float
    tree_cpu: float
    """CPU seconds of the whole tree (``rusage`` of the waited-for children)."""
    root: int
    procs: dict[int, dict[str, Any]]


def run_sampled(cmd: list[str], env: dict[str, str], every: float,
                started: Callable[[int], None] | None = None) -> SampledRun:
    """Run ``cmd`` with its tree sampled every ``every`` s (:class:`Sampler`); ``started(pid)`` right after start."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if started is not None:
        started(proc.pid)
    sampler = Sampler(proc.pid, every)
    sampler.start()
    lines: list[tuple[float, str]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append((time.time(), line.rstrip("\n")))
    code = proc.wait()
    end = time.time()
    sampler.stop.set()
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tree_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return SampledRun(code, lines, start, end, tree_cpu, proc.pid, sampler.procs)


def print_table(res: dict[str, Any]) -> None:
    """Print :func:`attribute`'s table: a row per process, a column per phase it used CPU in, total and system."""
    cols = [p for p in res["phases"] if any(p in r for r in res["table"].values())]
    print("process".ljust(60) + "".join(c[:11].rjust(12) for c in cols) + "total".rjust(9) + "system".rjust(8))
    for name, row in sorted(res["table"].items(), key=lambda kv: -sum(kv[1].values())):
        print(name[:60].ljust(60) + "".join(f"{row.get(c, 0.0):12.2f}" for c in cols) + f"{sum(row.values()):9.2f}"
              + f"{res['system'][name]:8.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", type=Path)
    ap.add_argument("--pages", type=int, default=DEFAULT_PAGES)
    ap.add_argument("--src", type=Path, help="source tree first on PYTHONPATH (A/B before)")
    ap.add_argument("--seconds-per-sample", type=float, default=0.05)
    ap.add_argument("--gossamer", default=str(Path(sys.executable).parent / "gossamer"))
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    crawl_dir = args.work / "crawl"
    if crawl_dir.exists():
        subprocess.run(["rm", "-rf", str(crawl_dir)], check=True)
    seeds = args.work / "seeds.txt"
    lw.doc_seeds(seeds)
    rounds, top_n = rounds_for(args.pages)
    cmd = crawl_argv(args.gossamer, seeds, crawl_dir, rounds, CRAWL_SETTINGS, top_n=top_n, threads=THREADS)
    env = dict(os.environ)
    if args.src:
        env["PYTHONPATH"] = str(args.src.resolve())
    load = os.getloadavg()[0]
    run = run_sampled(cmd, env, args.seconds_per_sample)
    code, lines, start, end, tree_cpu = run.code, run.lines, run.start, run.end, run.tree_cpu
    parsed = sum(r["parsed"].get("success", 0) for r in crawl_phases(lines)["rounds"])
    res = attribute(run.procs, phases_of(lines, start, end), run.root)
    out = {"exit": code, "wall_s": end - start, "tree_cpu_s": tree_cpu, "parsed": parsed, "load_at_start": load,
           "src": str(args.src) if args.src else None, **res}
    (args.work / "probe.json").write_text(json.dumps(out, indent=1))
    (args.work / "crawl.log").write_text("\n".join(f"{t:.3f} {ln}" for t, ln in lines) + "\n")
    print(f"exit {code}, wall {end - start:.1f} s, tree CPU {tree_cpu:.2f} s, parsed {parsed}, "
          f"{1000 * tree_cpu / max(parsed, 1):.3f} ms/page, load {load:.1f}")
    print_table(res)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
