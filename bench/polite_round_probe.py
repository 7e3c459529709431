"""One round of the polite crawl, alone: its CPU per page, per process and phase (an A/B tool for goal 4).

``python -m bench.polite_round_probe BASE WORK [--hosts N] [--src DIR] [--pyspy FILE]`` copies the crawl
directory ``BASE`` (a polite crawl after its round 1: ``gossamer crawl many-seeds -d BASE -r 1`` with the
``polite`` benchmark's settings) to ``WORK/crawl`` and runs one more round on it — the benchmark's round 2,
every host's 40 pages — with exactly the settings, ``-topN`` and threads ``scripts/bench polite`` uses for
``N`` hosts (default 5,000; the many-hosts web of that size must be served). The CPU of every process of the
tree is sampled from ``/proc`` (:class:`bench.crawl_cpu_probe.Sampler`) and split by phase (generate, fetch,
updatedb) and role (driver, fetch processes); the total comes from ``rusage``. ``-D KEY=VALUE`` adds a
setting. ``--src`` puts another source tree first on ``PYTHONPATH`` (an A/B "before"); ``--pyspy FILE``
records the tree with ``py-spy record --subprocesses -f raw`` (50 Hz, non-blocking) while it runs. Prints a
table and writes ``WORK/probe.json``. Requests go to the many hosts: run it only while no ``polite`` benchmark runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from bench.crawl_cpu_probe import attribute, phases_of, print_table, run_sampled
from bench.gossamer_crawl import crawl_argv, crawl_phases
from bench.polite_bench import DELAY, crawl_settings, threads_for, top_n_for


def round_argv(gossamer: str, crawl_dir: Path, hosts: int, extra: dict[str, str] | None = None) -> list[str]:
    """``gossamer crawl -d crawl_dir -r 1`` (no seeds) with the ``polite`` benchmark's settings for ``hosts``.

    ``extra`` settings are added after (and override) the benchmark's own.
    """
    return crawl_argv(gossamer, None, crawl_dir, 1, {**crawl_settings(hosts, DELAY), **(extra or {})},
                      top_n=top_n_for(hosts), threads=threads_for(hosts))


def main(argv: list[str] | None = None) -> int:
    """Run the round, print CPU per page and the per-process table; the crawl's exit code."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--hosts", type=int, default=5_000)
    ap.add_argument("--src", type=Path, help="source tree first on PYTHONPATH (A/B before)")
    ap.add_argument("--pyspy", type=Path, help="py-spy raw output file")
    ap.add_argument("--gossamer", default=str(Path(sys.executable).parent / "gossamer"))
    ap.add_argument("-D", dest="defines", action="append", default=[], metavar="KEY=VALUE",
                    help="a setting added to the benchmark's (A/B of a setting)")
    args = ap.parse_args(argv)
    crawl_dir = args.work / "crawl"
    if crawl_dir.exists():
        shutil.rmtree(crawl_dir)
    args.work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(args.base, crawl_dir)
    cmd = round_argv(args.gossamer, crawl_dir, args.hosts, dict(d.split("=", 1) for d in args.defines))
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if args.src:
        env["PYTHONPATH"] = str(args.src.resolve())
    load = os.getloadavg()[0]
    spies: list[subprocess.Popen[bytes]] = []

    def spy(pid: int) -> None:
        if args.pyspy:
            spy_cmd = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(pid), "--subprocesses",
                       "-f", "raw", "-r", "50", "--nonblocking", "-o", str(args.pyspy)]
            spies.append(subprocess.Popen(spy_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    run = run_sampled(cmd, env, 0.1, spy)
    for process in spies:
        process.wait(timeout=60)
    code, lines, start, end, tree_cpu = run.code, run.lines, run.start, run.end, run.tree_cpu
    rounds = crawl_phases(lines)["rounds"]
    pages = sum(r.get("pages") or 0 for r in rounds)
    res = attribute(run.procs, phases_of(lines, start, end), run.root)
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
    print_table(res)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
