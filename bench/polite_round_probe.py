"""One round of the polite crawl, alone: its CPU per page, per process and phase (an A/B tool for goal 4).

``python -m bench.polite_round_probe BASE WORK [--hosts N] [--src DIR] [--pyspy FILE]`` copies the crawl
directory ``BASE`` (a polite crawl after its round 1: ``gossamer crawl many-seeds -d BASE -r 1`` with the
``polite`` benchmark's settings) to ``WORK/crawl`` and runs one more round on it — the benchmark's round 2,
every host's 40 pages — with exactly the settings, ``-topN`` and threads ``scripts/bench polite`` uses for
``N`` hosts (default 5,000; the many-hosts web of that size must be served). The CPU of every process of the
tree is sampled from ``/proc`` (:class:`bench.crawl_cpu_probe.Sampler`) and split by phase (generate, fetch,
updatedb) and role (driver, fetch processes); the total comes from ``rusage``. ``--src`` puts another source
tree first on ``PYTHONPATH`` (an A/B "before"); ``--pyspy FILE`` records the tree with
``py-spy record --subprocesses -f raw`` (50 Hz, non-blocking) while it runs. Prints a table and writes
``WORK/probe.json``. Requests go to the many hosts: run it only while no ``polite`` benchmark runs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.crawl_cpu_probe import Sampler, attribute, phases_of
from bench.gossamer_crawl import crawl_argv, crawl_phases
from bench.polite_bench import DELAY, crawl_settings, threads_for, top_n_for


def round_argv(gossamer: str, crawl_dir: Path, hosts: int) -> list[str]:
    """``gossamer crawl -d crawl_dir -r 1`` (no seeds) with the ``polite`` benchmark's settings for ``hosts``."""
    return crawl_argv(gossamer, None, crawl_dir, 1, crawl_settings(hosts, DELAY), top_n=top_n_for(hosts),
                      threads=threads_for(hosts))


def main(argv: list[str] | None = None) -> int:
    """Run the round, print CPU per page and the per-process table; the crawl's exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--hosts", type=int, default=5_000)
    ap.add_argument("--src", type=Path, help="source tree first on PYTHONPATH (A/B before)")
    ap.add_argument("--pyspy", type=Path, help="py-spy raw output file")
    ap.add_argument("--gossamer", default=str(Path(sys.executable).parent / "gossamer"))
    args = ap.parse_args(argv)
    crawl_dir = args.work / "crawl"
    if crawl_dir.exists():
        shutil.rmtree(crawl_dir)
    args.work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(args.base, crawl_dir)
    cmd = round_argv(args.gossamer, crawl_dir, args.hosts)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if args.src:
        env["PYTHONPATH"] = str(args.src.resolve())
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    spy = None
    if args.pyspy:
        spy_cmd = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(proc.pid), "--subprocesses",
                   "-f", "raw", "-r", "50", "--nonblocking", "-o", str(args.pyspy)]
        spy = subprocess.Popen(spy_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sampler = Sampler(proc.pid, 0.1)
    sampler.start()
    lines: list[tuple[float, str]] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append((time.time(), line.rstrip("\n")))
    code = proc.wait()
    end = time.time()
    sampler.stop.set()
    sampler.join()
    if spy is not None:
        spy.wait(timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tree_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rounds = crawl_phases(lines)["rounds"]
    pages = sum(r.get("pages") or 0 for r in rounds)
    res = attribute(sampler.procs, phases_of(lines, start, end), proc.pid)
    fetch_cpu = sum(row.get("r1 fetch", 0.0) for row in res["table"].values())
    out = {"exit": code, "wall_s": end - start, "tree_cpu_s": tree_cpu, "pages": pages, "load_at_start": load,
           "load_at_end": os.getloadavg()[0], "src": str(args.src) if args.src else None,
           "fetch_phase_cpu_s": fetch_cpu, "rounds": rounds, **res}
    (args.work / "crawl.log").write_text("\n".join(f"{t:.3f} {ln}" for t, ln in lines) + "\n")
    sampled = sum(sum(row.values()) for row in res["table"].values())
    out["sampled_cpu_s"] = sampled
    print(f"exit {code}, wall {end - start:.1f} s, pages {pages}, "
          f"CPU {sampled:.2f} s ({1000 * sampled / max(pages, 1):.3f} ms/page; rusage {tree_cpu:.2f} s), "
          f"fetch phase {fetch_cpu:.2f} s ({1000 * fetch_cpu / max(pages, 1):.3f} ms/page), "
          f"load {load:.1f} -> {out['load_at_end']:.1f}")
    (args.work / "probe.json").write_text(json.dumps(out, indent=1))
    cols = [p for p in res["phases"] if any(p in r for r in res["table"].values())]
    print("process".ljust(60) + "".join(c[:11].rjust(12) for c in cols) + "total".rjust(9) + "system".rjust(8))
    for name, row in sorted(res["table"].items(), key=lambda kv: -sum(kv[1].values())):
        print(name[:60].ljust(60) + "".join(f"{row.get(c, 0.0):12.2f}" for c in cols) + f"{sum(row.values()):9.2f}"
              + f"{res['system'][name]:8.2f}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
