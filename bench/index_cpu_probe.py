"""Where ``gossamer index``'s CPU goes: per process, and per thread of the driver, read from ``/proc`` while it runs.

``python -m bench.index_cpu_probe CRAWL WORK [--src DIR] [--repeat N] [--seconds-per-sample S]`` runs
``gossamer index CRAWL/crawldb -linkdb CRAWL/linkdb -dir CRAWL/segments -deleteGone`` as ``scripts/bench
index`` does (``CRAWL`` a crawl prepared by it, after ``invertlinks`` and ``dedup``), each run into a new
index directory under ``WORK``, and samples the CPU time (user + system) of every process of its tree and
of every thread of the driver (tantivy's indexing threads, its doc-store compressors, the feeding main
thread) with :class:`bench.crawl_cpu_probe.Sampler`'s ``/proc`` readings. ``--src`` puts another source
tree first on ``PYTHONPATH`` (an A/B "before"); several ``--src`` alternate with this tree's code
(``--src -`` is the installed code) run after run. Prints one line per run and a table per run; the total
is ``rusage`` of the whole tree.
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
from pathlib import Path
from typing import Any

from bench.crawl_cpu_probe import Sampler
from bench.doc_index import ANCHOR_SETTINGS, defines


def _thread_cpu(pid: int) -> dict[str, float]:
    """CPU seconds of each thread of ``pid``, summed by thread name (``comm``)."""
    out: dict[str, float] = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as fh:
                name = fh.read().strip()
            with open(f"/proc/{pid}/task/{tid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        name = name.rstrip("0123456789") or name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


class ThreadSampler(threading.Thread):
    """The driver's threads' CPU, the last reading of each thread name (threads end with the writer)."""

    def __init__(self, pid: int, every: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.threads: dict[str, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            for name, cpu in _thread_cpu(self.pid).items():
                self.threads[name] = max(self.threads.get(name, 0.0), cpu)
            self.stop.wait(self.every)


def _role(pid: int, info: dict[str, Any], root: int) -> str:
    if pid == root:
        return "driver"
    cmd = info["cmd"]
    if "resource_tracker" in cmd:
        return "resource_tracker"
    return "worker" if "multiprocessing" in cmd or "spawn" in cmd else cmd[-50:]


def run_once(crawl: Path, index_dir: Path, src: str | None, every: float) -> dict[str, Any]:
    """One ``gossamer index`` run into ``index_dir``, with its per-process and per-thread CPU."""
    gossamer = str(Path(sys.executable).parent / "gossamer")
    cmd = [gossamer, "index", str(crawl / "crawldb"), "-linkdb", str(crawl / "linkdb"), "-dir",
           str(crawl / "segments"), "-deleteGone", "-index", str(index_dir), *defines(ANCHOR_SETTINGS)]
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    procs, threads = Sampler(proc.pid, every), ThreadSampler(proc.pid, every)
    procs.start()
    threads.start()
    out, _ = proc.communicate()
    end = time.time()
    for s in (procs, threads):
        s.stop.set()
        s.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    tree = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    per_proc: dict[str, float] = {}
    for pid, info in procs.procs.items():
        if info["samples"]:
            role = _role(pid, info, proc.pid)
            per_proc[f"{role} {pid}"] = [info["samples"][-1][1], info.get("system", 0.0)]
    return {"exit": proc.returncode, "src": src, "wall_s": round(end - start, 2), "tree_cpu_s": round(tree, 2),
            "user_s": round(after.ru_utime - before.ru_utime, 2), "sys_s": round(after.ru_stime - before.ru_stime, 2),
            "load_start": round(load, 2), "load_end": round(os.getloadavg()[0], 2),
            "processes": per_proc, "driver_threads": threads.threads, "tail": out.splitlines()[-3:]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--src", action="append", default=[], help="source tree first on PYTHONPATH; '-' for none")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seconds-per-sample", type=float, default=0.05)
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    sources = [None if s == "-" else str(Path(s).resolve()) for s in args.src] or [None]
    code = 0
    for r in range(args.repeat):
        for k, src in enumerate(sources):
            index_dir = args.work / f"index-{r}-{k}"
            subprocess.run(["rm", "-rf", str(index_dir)], check=True)
            res = run_once(args.crawl, index_dir, src, args.seconds_per_sample)
            subprocess.run(["rm", "-rf", str(index_dir)], check=True)
            code = code or res["exit"]
            with open(args.work / "probe.jsonl", "a") as fh:
                fh.write(json.dumps(res) + "\n")
            print(f"run {r} src={src or 'installed'}: exit {res['exit']}, wall {res['wall_s']} s, CPU "
                  f"{res['tree_cpu_s']} s (user {res['user_s']}, sys {res['sys_s']}), load "
                  f"{res['load_start']}->{res['load_end']}", flush=True)
            for name, (cpu, system) in sorted(res["processes"].items(), key=lambda kv: -kv[1][0]):
                print(f"    {name:40s} {cpu:7.2f} (system {system:.2f})")
            for name, cpu in sorted(res["driver_threads"].items(), key=lambda kv: -kv[1]):
                print(f"      thread {name:32s} {cpu:7.2f}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
