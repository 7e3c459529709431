"""The ``inject`` benchmark: inject a synthetic seed list into a new CrawlDb, then again (merge).

Steps, all in a fresh temporary directory and each measured by :mod:`bench.measure`:

1. generate the seed file (``python -m bench.synthetic``, measured separately, not a step);
2. ``duckdb``: the peer baseline (:mod:`bench.duckdb_baseline`) on the same seed file;
3. ``inject``: ``gossamer inject <work>/crawl/crawldb <seeds>``;
4. ``readdb``: ``gossamer readdb <crawldb> -stats``, checked for the line ``TOTAL urls:\\t<n>``
   where n is the number of distinct good URLs in the seeds;
5. ``inject_merge``: the same inject again (every URL already present);
6. ``readdb_after_merge``: the stats again, checked for the same total.

A failing step is recorded (``error``) and dependent steps are skipped; failed checks never raise.
The goal is a peak memory (max of sampled tree RSS and single-process max RSS) under 1.5 GB over
all Gossamer steps. The Gossamer executable is ``$BENCH_GOSSAMER`` if set, else the repository
venv's ``gossamer`` console script.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import MB, REPO_ROOT, BenchOptions
from bench.duckdb_baseline import duckdb_argv, rows_written
from bench.measure import Measurement, run_measured
from bench.steps import StepRunner, work_dir

NAME: str = "inject"
DESCRIPTION: str = "inject synthetic seeds into a new CrawlDb and again (merge); DuckDB dedupe baseline"
DEFAULT_URLS, DEFAULT_HOSTS = 10_000_000, 100_000
QUICK_URLS, QUICK_HOSTS = 200_000, 2_000
MEMORY_GOAL_MB: float = 1.5 * 1024
GOSSAMER_STEPS: tuple[str, ...] = ("inject", "readdb", "inject_merge", "readdb_after_merge")


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[inject] {message}", file=sys.stderr, flush=True)


def gossamer_executable() -> str:
    """``$BENCH_GOSSAMER``, else ``.venv/bin/gossamer`` of the repo, else next to this Python."""
    override = os.environ.get("BENCH_GOSSAMER")
    if override:
        return override
    venv = REPO_ROOT / ".venv" / "bin" / "gossamer"
    return str(venv if venv.exists() else Path(sys.executable).parent / "gossamer")


def total_urls(stats_stdout: str) -> int | None:
    """The number from the first ``TOTAL urls:\\t<n>`` line of ``readdb -stats`` output."""
    match = re.search(r"^TOTAL urls:\t(\d+)\s*$", stats_stdout, re.MULTILINE)
    return int(match.group(1)) if match else None


def dir_size(path: Path) -> dict[str, int | None]:
    """``disk_bytes`` (``du -sk``, allocated blocks) and ``apparent_bytes`` (sum of file sizes)."""
    if not path.exists():
        return {"disk_bytes": None, "apparent_bytes": None}
    apparent = sum((Path(root) / f).stat().st_size for root, _, files in os.walk(path) for f in files)
    try:
        out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
        disk: int | None = int(out.stdout.split()[0]) * 1024
    except (OSError, subprocess.CalledProcessError, ValueError, IndexError):
        disk = None
    return {"disk_bytes": disk, "apparent_bytes": apparent}


class _Runner(StepRunner):
    """StepRunner plus the readdb total check of this benchmark."""

    def __init__(self, log_dir: Path, items: int) -> None:
        super().__init__(log_dir, items, log)

    def check_total(self, name: str, m: Measurement | None, expected: int) -> None:
        """Check that readdb output ``m`` reports ``TOTAL urls:\\t<expected>``."""
        if m is None:
            self.check(name, False, "readdb did not run or failed")
            return
        got = total_urls(m.stdout)
        ok = f"TOTAL urls:\t{expected}" in m.stdout.splitlines()
        self.check(name, ok, f"expected TOTAL urls:\\t{expected}, got {got}")


def _ratio(steps: dict[str, dict[str, Any]], num: str, den: str, key: str) -> float | None:
    a, b = steps.get(num, {}), steps.get(den, {})
    if "error" in a or "error" in b or not a.get(key) or not b.get(key):
        return None
    return round(a[key] / b[key], 3)


def _memory_goal(steps: dict[str, dict[str, Any]]) -> dict[str, Any]:
    peaks = {
        name: max(steps[name]["peak_tree_rss_bytes"], steps[name]["max_process_rss_bytes"]) / MB
        for name in GOSSAMER_STEPS
        if name in steps and "peak_tree_rss_bytes" in steps[name]
    }
    complete = all(name in steps and "error" not in steps[name] for name in GOSSAMER_STEPS)
    worst = max(peaks, key=lambda k: peaks[k]) if peaks else None
    value = round(peaks[worst], 1) if worst else None
    return {
        "goal": "peak memory under 1.5 GB",
        "limit_mb": MEMORY_GOAL_MB,
        "value_mb": value,
        "worst_step": worst,
        "met": complete and value is not None and value < MEMORY_GOAL_MB,
    }


def _run_in(work: Path, urls: int, hosts: int, opts: BenchOptions) -> dict[str, Any]:
    seeds = work / "seeds" / "seeds.txt"
    seeds.parent.mkdir(parents=True)
    log(f"generating {urls:,} URLs over {hosts:,} hosts into {seeds}")
    gen_argv = [sys.executable, "-m", "bench.synthetic", str(seeds), str(urls), str(hosts)]
    gen_run = run_measured(
        [*gen_argv, "--seed", str(opts.seed)], log_dir=work / "logs", name="generate", cwd=REPO_ROOT
    )
    gen = json.loads(gen_run.stdout)
    expected = gen["good_urls"]
    run = _Runner(work / "logs", expected)
    ddb = run.step("duckdb", duckdb_argv(sys.executable, seeds, work / "duckdb_out", work / "duckdb_tmp"))
    gossamer = gossamer_executable()
    crawldb = work / "crawl" / "crawldb"
    crawldb.parent.mkdir(parents=True)
    inject = [gossamer, "inject", str(crawldb), str(seeds)]
    readdb = [gossamer, "readdb", str(crawldb), "-stats"]
    injected = run.step("inject", inject) is not None
    run.check_total("readdb_total_urls", run.step("readdb", readdb) if injected else None, expected)
    merged = injected and run.step("inject_merge", inject) is not None
    after = run.step("readdb_after_merge", readdb) if merged else None
    run.check_total("readdb_total_urls_after_merge", after, expected)
    steps = run.steps
    return {
        "benchmark": NAME,
        "params": {
            "urls": urls,
            "hosts": hosts,
            "seed": opts.seed,
            "quick": opts.quick,
            "gossamer": gossamer,
            "workdir": str(work) if opts.keep else None,
        },
        "generate": {**gen, "measured": gen_run.summary(expected)},
        "expected_total_urls": expected,
        "steps": steps,
        "ratios": {
            "inject_wall_vs_duckdb": _ratio(steps, "inject", "duckdb", "wall_s"),
            "inject_merge_wall_vs_duckdb": _ratio(steps, "inject_merge", "duckdb", "wall_s"),
            "inject_cpu_vs_duckdb": _ratio(steps, "inject", "duckdb", "cpu_s"),
            "inject_peak_rss_vs_duckdb": _ratio(steps, "inject", "duckdb", "peak_tree_rss_mb"),
        },
        "sizes": {
            "seeds_bytes": gen["bytes"],
            "crawldb": dir_size(crawldb),
            "duckdb_parquet": dir_size(work / "duckdb_out"),
        },
        "duckdb_rows": rows_written(ddb.stdout) if ddb else None,
        "checks": run.checks,
        "goals": [_memory_goal(steps)],
    }


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the benchmark in a fresh directory under ``opts.workdir``; return the result dict."""
    urls = opts.urls if opts.urls is not None else (QUICK_URLS if opts.quick else DEFAULT_URLS)
    hosts = opts.hosts if opts.hosts is not None else (QUICK_HOSTS if opts.quick else DEFAULT_HOSTS)
    with work_dir(opts, "inject", log) as work:
        return _run_in(work, urls, hosts, opts)
