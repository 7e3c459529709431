"""Soak: repeated crawl rounds of the local web (doc hosts + many-hosts web) for an hour, with a search server up.

Every round is one ``gossamer crawl -r 1 --index`` command on the same crawl directory
(measured: wall, CPU, peak RSS of its process tree), followed by a sample of the long-lived
``gossamer serve`` process answering searches all along (RSS, open file descriptors, threads)
and of the leftovers a job could leak: ``tmp-*``/``.tmp-*``/staging entries in the crawl
directory and ``gossamer-*`` entries in the temp directory.  "Flat" means: the last quarter's
median of each per-round figure is within ``FLAT_RATIO`` of the first quarter's (the crawl
directory itself grows, so peak RSS is compared, not disk), and no leftover is found at the end.

``--quick``: 2 minutes, 200 many-hosts; full: 60 minutes, 1,000 many-hosts.
``GOSSAMER_SOAK_MINUTES`` overrides the duration.
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from bench import BenchOptions, localweb
from bench.gossamer_crawl import AGENT_NAME, crawl_argv
from bench.inject_bench import gossamer_executable
from bench.measure import run_measured, tree_rss_bytes

NAME: str = "soak"
DESCRIPTION: str = "an hour of crawl rounds (docs + 1,000 many-hosts) with a search server up: memory, files, leftovers"
FLAT_RATIO: float = 1.25
QUERIES = ("python list", "postgres index", "rust trait", "cmake target", "erlang process", "java stream")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _settings() -> dict[str, Any]:
    return {"http.agent.name": AGENT_NAME, "fetcher.server.delay": 1.0, "http.filter.ipaddress.include": "loopback",
            "db.ignore.external.links": True, "fetcher.threads.fetch": 200}


PERSISTENT_TEMP = ("gossamer-index-cache-", "gossamer-hadoop-jvm-", "gossamer-bench-")
"""Temp entries that are not job leftovers: the index cache (reused on purpose), the tests' JVM
scratch, other benchmarks' work directories."""


def _temp_entries() -> set[str]:
    temp = Path(tempfile.gettempdir())
    return {str(p) for p in temp.glob("gossamer-*") if not p.name.startswith(PERSISTENT_TEMP)}


def _leftovers(crawl: Path, temp_before: set[str]) -> list[str]:
    """Unfinished versions, staging and scratch entries in the crawl directory, new job scratch in the temp dir."""
    found = [str(p) for p in crawl.rglob("*") if p.name.startswith(("tmp-", ".tmp-", ".fetch-staging",
                                                                     ".parse-staging"))]
    return found + sorted(_temp_entries() - temp_before)


def _server_sample(pid: int, port: int) -> dict[str, Any]:
    answered = 0
    for query in QUERIES:
        url = f"http://127.0.0.1:{port}/api/search?q={urllib.request.quote(query)}"
        with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - loopback only
            answered += response.status == 200
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    threads = len(os.listdir(f"/proc/{pid}/task"))
    return {"rss_mb": round(tree_rss_bytes(pid) / 2**20, 1), "open_fds": fds, "threads": threads,
            "answered": answered}


def _flat(rounds: list[dict[str, Any]], key: str) -> dict[str, Any]:
    values = [r[key] for r in rounds if r.get(key) is not None]
    quarter = max(1, len(values) // 4)
    first, last = statistics.median(values[:quarter]), statistics.median(values[-quarter:])
    return {"first_quarter_median": first, "last_quarter_median": last,
            "ratio": round(last / first, 3) if first else None,
            "flat": bool(first) and last <= first * FLAT_RATIO}


def _start_server(gossamer: str, crawl: Path, port: int, logs: Path) -> subprocess.Popen[bytes]:
    out = open(logs / "serve.log", "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([gossamer, "serve", "-d", str(crawl), "--port", str(port)],
                            stdout=out, stderr=subprocess.STDOUT)


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the soak; returns rounds, flatness per figure, leftovers and goals."""
    minutes = float(os.environ.get("GOSSAMER_SOAK_MINUTES", 2 if opts.quick else 60))
    hosts = opts.hosts or (200 if opts.quick else 1000)
    served = localweb.serve(many=hosts)
    gossamer = gossamer_executable()
    work = Path(tempfile.mkdtemp(prefix="soak-", dir=opts.workdir))
    logs = work / "logs"
    logs.mkdir()
    seeds = work / "seeds.txt"
    seed_list = localweb.doc_seeds(work / "docs.txt") + localweb.many_seeds(work / "many.txt", hosts)
    seeds.write_text("\n".join(seed_list) + "\n")
    crawl = work / "crawl"
    settings = _settings()
    temp_before = _temp_entries()
    first = run_measured(crawl_argv(gossamer, seeds, crawl, 1, settings, top_n=2000) + ["--index"],
                         log_dir=logs, name="round-000")
    port = _free_port()
    server = _start_server(gossamer, crawl, port, logs)
    time.sleep(3)
    rounds: list[dict[str, Any]] = [{"round": 0, "wall_s": round(first.wall_s, 2),
                                     "peak_rss_mb": round(first.peak_rss_bytes / 2**20, 1)}]
    ended = time.monotonic() + minutes * 60
    try:
        while time.monotonic() < ended:
            number = len(rounds)
            measured = run_measured(crawl_argv(gossamer, None, crawl, 1, settings, top_n=2000) + ["--index"],
                                    log_dir=logs, name=f"round-{number:03d}", check=False)
            sample = _server_sample(server.pid, port)
            rounds.append({"round": number, "exit": measured.returncode, "wall_s": round(measured.wall_s, 2),
                           "cpu_s": round(measured.cpu_s, 2),
                           "peak_rss_mb": round(measured.peak_rss_bytes / 2**20, 1),
                           "leftovers": len(_leftovers(crawl, temp_before)),
                           **{f"serve_{k}": v for k, v in sample.items()}})
            localweb.log(json.dumps(rounds[-1]))
    finally:
        server.terminate()
        server.wait(30)
    leftovers = _leftovers(crawl, temp_before)
    steady = rounds[1:]
    flatness = {key: _flat(steady, key) for key in ("peak_rss_mb", "serve_rss_mb", "serve_open_fds",
                                                     "serve_threads")}
    goals = [{"goal": f"{key} flat (last quarter ≤ {FLAT_RATIO}× first)", "met": f["flat"], **f}
             for key, f in flatness.items()]
    goals.append({"goal": "no leftovers at the end", "met": not leftovers, "leftovers": leftovers[:20]})
    goals.append({"goal": "every round exit 0 or 1", "met": all(r.get("exit", 0) in (0, 1) for r in steady)})
    return {"minutes": minutes, "hosts": hosts, "serve_seconds": served["seconds"], "rounds": rounds,
            "flatness": flatness, "goals": goals, "ok": all(g["met"] for g in goals)}
