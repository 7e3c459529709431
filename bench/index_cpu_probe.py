"""Where ``gossamer index``'s CPU goes: per process, and per thread of the driver, read from ``/proc`` while it runs.

``python -m bench.index_cpu_probe CRAWL WORK [--src DIR] [--repeat N] [--seconds-per-sample S] [--timeline]`` runs
``gossamer index CRAWL/crawldb -linkdb CRAWL/linkdb -dir CRAWL/segments -deleteGone`` as ``scripts/bench
index`` does (``CRAWL`` a crawl prepared by it, after ``invertlinks`` and ``dedup``), each run into a new
index directory under ``WORK``, and samples the CPU time (user + system) of every process of its tree and
of every thread of the driver (tantivy's indexing threads, its doc-store compressors, the feeding main
thread) with :class:`bench.crawl_cpu_probe.Sampler`'s ``/proc`` readings. ``--src`` puts another source
tree first on ``PYTHONPATH`` (an A/B "before"); several ``--src`` alternate with this tree's code
(``--src -`` is the installed code) run after run. Prints one line per run and a table per run; the total
is ``rusage`` of the whole tree; ``--timeline`` adds, per second, the CPU of each driver thread and of the
workers and what the run left idle (:func:`timeline`).
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


def _thread_cpu(pid: int, by_tid: bool = False) -> dict[str, float]:
    """CPU seconds of each thread of ``pid``, summed by thread name (``comm``; ``by_tid``: ``name/tid`` each)."""
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
        if by_tid:
            name = f"{name}/{tid}"
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


class ThreadSampler(threading.Thread):
    """The driver's threads' CPU, the last reading of each thread name (threads end with the writer)."""

    def __init__(self, pid: int, every: float) -> None:
        super().__init__(daemon=True)
        self.pid, self.every = pid, every
        self.threads: dict[str, float] = {}
        self.samples: list[tuple[float, dict[str, float]]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            now = _thread_cpu(self.pid, by_tid=True)
            self.samples.append((time.time(), now))
            for name, cpu in _thread_cpu(self.pid).items():
                self.threads[name] = max(self.threads.get(name, 0.0), cpu)
            self.stop.wait(self.every)


def _bucketed(samples: list[tuple[float, float]], start: float, width: float, n: int) -> list[float]:
    """CPU seconds spent in each of ``n`` buckets of ``width`` seconds from ``start`` (cumulative samples)."""
    out = [0.0] * n
    for (t0, c0), (t1, c1) in zip(samples, samples[1:], strict=False):
        k = min(n - 1, max(0, int(((t0 + t1) / 2 - start) / width)))
        out[k] += c1 - c0
    return out


def timeline(procs: dict[int, dict[str, Any]], threads: list[tuple[float, dict[str, float]]], root: int,
             start: float, end: float, width: float = 1.0) -> list[dict[str, float]]:
    """Per ``width`` seconds of the run: CPU seconds of the driver's threads by name, of the workers, and idle.

    ``idle`` is what the run left of the machine's cores in that bucket (cores x width - the tree's CPU);
    other processes' use of the cores is not subtracted.
    """
    n = max(1, int((end - start) / width) + 1)
    rows = [{"t": round(k * width, 2)} for k in range(n)]
    workers = [0.0] * n
    for pid, info in procs.items():
        if pid != root and _role(pid, info, root) == "worker":
            for k, v in enumerate(_bucketed(info["samples"], start, width, n)):
                workers[k] += v
    for key in sorted({key for _, d in threads for key in d}):  # ``name/tid``: a thread's CPU never falls
        name = key.rsplit("/", 1)[0]
        series = [(t, d[key]) for t, d in threads if key in d]
        for k, v in enumerate(_bucketed(series, start, width, n)):
            rows[k][name] = round(rows[k].get(name, 0.0) + v, 2)
    cores = os.cpu_count() or 1
    for k, row in enumerate(rows):
        row["workers"] = round(workers[k], 2)
        used = workers[k] + sum(v for key, v in row.items() if key not in ("t", "workers"))
        row["idle"] = round(max(0.0, cores * width - used), 2)
    return rows


def _role(pid: int, info: dict[str, Any], root: int) -> str:
    if pid == root:
        return "driver"
    cmd = info["cmd"]
    if "resource_tracker" in cmd:
        return "resource_tracker"
    return "worker" if "multiprocessing" in cmd or "spawn" in cmd else cmd[-50:]


def run_once(crawl: Path, index_dir: Path, src: str | None, every: float, width: float = 1.0) -> dict[str, Any]:
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
            "processes": per_proc, "driver_threads": threads.threads, "tail": out.splitlines()[-3:],
            "timeline": timeline(procs.procs, threads.samples, proc.pid, start, end, width)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("work", type=Path)
    ap.add_argument("--src", action="append", default=[], help="source tree first on PYTHONPATH; '-' for none")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--seconds-per-sample", type=float, default=0.05)
    ap.add_argument("--timeline", action="store_true", help="print CPU per second: driver threads, workers, idle")
    ap.add_argument("--width", type=float, default=1.0, help="the timeline's bucket, in seconds")
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    sources = [None if s == "-" else str(Path(s).resolve()) for s in args.src] or [None]
    code = 0
    for r in range(args.repeat):
        for k, src in enumerate(sources):
            index_dir = args.work / f"index-{r}-{k}"
            subprocess.run(["rm", "-rf", str(index_dir)], check=True)
            res = run_once(args.crawl, index_dir, src, args.seconds_per_sample, args.width)
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
            if args.timeline:
                for row in res["timeline"]:
                    print("      " + "  ".join(f"{k} {v}" for k, v in row.items()))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
