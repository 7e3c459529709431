"""Command line of the benchmark runner: ``python -m bench [--list] [--quick] [names...]``.

For every selected benchmark (default: all, in registry order) it collects machine facts, runs the
benchmark, writes ``bench/results/<name>-<YYYYmmddTHHMMSS>.json`` (UTC time of the start) and
prints a short table. The exit status is 0 if every step succeeded, every check passed and every
goal was met, else 1 (2 for usage errors).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import (
    RESULTS_DIR,
    Benchmark,
    BenchOptions,
    crawl_bench,
    index_bench,
    inject_bench,
    linkrank_bench,
    nutchformats_bench,
    nutchimport_bench,
    parse_bench,
    polite_bench,
    relevance_bench,
    search_bench,
    soak_bench,
    spark_bench,
    updatedb_bench,
    urlchain_bench,
)
from bench.machine import machine_facts
from bench.relevance_outlinks import parse_caps

BENCHMARKS: dict[str, Benchmark] = {
    b.name: b for b in (
        Benchmark(inject_bench.NAME, inject_bench.DESCRIPTION, inject_bench.run),
        Benchmark(urlchain_bench.NAME, urlchain_bench.DESCRIPTION, urlchain_bench.run),
        Benchmark(updatedb_bench.NAME, updatedb_bench.DESCRIPTION, updatedb_bench.run),
        Benchmark(spark_bench.NAME, spark_bench.DESCRIPTION, spark_bench.run),
        Benchmark(crawl_bench.NAME, crawl_bench.DESCRIPTION, crawl_bench.run),
        Benchmark(polite_bench.NAME, polite_bench.DESCRIPTION, polite_bench.run),
        Benchmark(index_bench.NAME, index_bench.DESCRIPTION, index_bench.run),
        Benchmark(search_bench.NAME, search_bench.DESCRIPTION, search_bench.run),
        Benchmark(relevance_bench.NAME, relevance_bench.DESCRIPTION, relevance_bench.run),
        Benchmark(nutchimport_bench.NAME, nutchimport_bench.DESCRIPTION, nutchimport_bench.run),
        Benchmark(soak_bench.NAME, soak_bench.DESCRIPTION, soak_bench.run),
        Benchmark(nutchformats_bench.NAME, nutchformats_bench.DESCRIPTION, nutchformats_bench.run),
        Benchmark(linkrank_bench.NAME, linkrank_bench.DESCRIPTION, linkrank_bench.run),
        Benchmark(parse_bench.NAME, parse_bench.DESCRIPTION, parse_bench.run),
    )
}


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line (see the module docstring)."""
    p = argparse.ArgumentParser(prog="scripts/bench", description="Run Gossamer benchmarks.")
    p.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    p.add_argument("--list", action="store_true", help="list benchmarks and exit")
    p.add_argument("--quick", action="store_true", help="small sizes for a smoke run")
    p.add_argument("--urls", type=_count, help="number of distinct seed URLs (overrides defaults)")
    p.add_argument("--hosts", type=_count, help="number of hosts (overrides defaults)")
    p.add_argument("--seed", type=int, default=42, help="random seed of the synthetic data")
    p.add_argument("--workdir", type=Path, help="parent of the temporary work directory (default /tmp)")
    p.add_argument("--keep", action="store_true", help="keep the work directory")
    p.add_argument("--fresh-crawl", action="store_true",
                   help="index/search/relevance: crawl again even if a complete cached crawl exists")
    p.add_argument("--outlinks", type=parse_caps, default=(), metavar="CAPS",
                   help="relevance: compare crawls made with these db.max.outlinks.per.page values "
                        "(comma-separated, -1 = every link, always included), e.g. 100,1000")
    p.add_argument("--results-dir", type=Path, default=RESULTS_DIR, help="where JSON results go")
    return p.parse_args(argv)


def ok_overall(result: dict[str, Any]) -> bool:
    """True if no step failed, every check passed and every goal was met."""
    return (
        all("error" not in s for s in result.get("steps", {}).values())
        and all(c["ok"] for c in result.get("checks", []))
        and all(g["met"] for g in result.get("goals", []))
    )


def _fmt(value: Any, spec: str) -> str:
    """``value`` formatted with ``spec``, or ``-`` right-aligned to the spec's width if missing."""
    if isinstance(value, int | float):
        return format(value, spec)
    width = "".join(itertools.takewhile(str.isdigit, spec))
    return format("-", f">{width}") if width else "-"


def print_table(result: dict[str, Any]) -> None:
    """Print the steps, ratios, checks and goals of one result on stdout."""
    print(f"\n== {result['benchmark']} ({result['started_utc']})")
    gen = result.get("generate")
    if gen:
        rate = _fmt(gen["lines_per_s"], ",")
        print(f"generate: {gen['lines']:,} lines in {gen['seconds']:.2f} s ({rate} lines/s)")
    header = f"{'step':<20} {'wall s':>9} {'cpu s':>9} {'tree MB':>9} {'proc MB':>9} {'URLs/s':>12}"
    print(header)
    print("-" * len(header))
    for name, s in result.get("steps", {}).items():
        print(
            f"{name:<20} {_fmt(s.get('wall_s'), '9.2f')} {_fmt(s.get('cpu_s'), '9.2f')} "
            f"{_fmt(s.get('peak_tree_rss_mb'), '9.1f')} {_fmt(s.get('max_rss_mb'), '9.1f')} "
            f"{_fmt(s.get('urls_per_s'), '12,')}" + ("  FAILED" if "error" in s else "")
        )
    for key, value in result.get("ratios", {}).items():
        print(f"ratio {key}: {_fmt(value, '.3f')}")
    for check in result.get("checks", []):
        print(f"check {check['name']}: {'ok' if check['ok'] else 'FAILED'} ({check['detail']})")
    for goal in result.get("goals", []):
        state = "met" if goal["met"] else "NOT met"
        if "value_mb" in goal:
            value = f"{_fmt(goal['value_mb'], '.1f')} MB"
        elif "value_ms" in goal:
            value = f"{_fmt(goal['value_ms'], '.2f')} ms"
        elif "ratio" in goal:
            value = f"ratio {_fmt(goal['ratio'], '.3f')}"
        else:
            value = _fmt(goal.get("value"), ",.0f")
        print(f"goal {goal['goal']}: {state} ({value})")
    for key, value in result.get("where_spark_time_goes", {}).items():
        print(f"spark time {key}: {value}")
    for name, rate in result.get("rates", {}).items():
        print(f"rate {name:<20} {_fmt(rate, '12,')} records/s (one core, start-up excluded)")
    if result.get("note"):
        print(f"note: {result['note']}")
    for mode, loop in result.get("loops", {}).items():
        print(f"loop {mode:<10} {loop['urls']:>10,} URLs in {loop['seconds']:7.2f} s = "
              f"{_fmt(loop.get('urls_per_s'), '12,.0f')} URLs/s (one core, start-up excluded)")
    for mode, lat in result.get("latency", {}).items():
        print(f"latency {mode:<15} p50 {_fmt(lat.get('p50_ms'), '7.2f')} ms  p90 {_fmt(lat.get('p90_ms'), '7.2f')} ms  "
              f"p99 {_fmt(lat.get('p99_ms'), '8.2f')} ms  max {_fmt(lat.get('max_ms'), '8.2f')} ms  "
              f"{_fmt(lat.get('queries_per_s'), '7.1f')} queries/s")
    for variant, m in result.get("metrics", {}).items():
        print(f"relevance {variant:<11} MRR@10 {_fmt(m.get('mrr@10'), '.3f')}  success@1 "
              f"{_fmt(m.get('success@1'), '.2f')}  success@10 {_fmt(m.get('success@10'), '.2f')} "
              f"({m.get('queries')} queries)" + _kinds(m) + _kinds(m.get("target_only"), " target-only"))


def _kinds(metrics: dict[str, Any] | None, label: str = "") -> str:
    """`` | <label> navigational 0.978 topical 0.824``: MRR@10 per kind of query, if reported."""
    kinds = (metrics or {}).get("by_kind") or {}
    return (f" |{label} " + " ".join(f"{k} {_fmt(m.get('mrr@10'), '.3f')}" for k, m in kinds.items())) if kinds else ""


def run_one(bench: Benchmark, opts: BenchOptions, results_dir: Path) -> tuple[dict[str, Any], Path]:
    """Run ``bench`` with machine facts around it and write its JSON; return result and path."""
    started = datetime.now(UTC)
    machine = machine_facts()
    t0 = time.perf_counter()
    result: dict[str, Any] = {"benchmark": bench.name, "started_utc": started.isoformat(timespec="seconds")}
    result.update(bench.run(opts))
    result["total_seconds"] = round(time.perf_counter() - t0, 2)
    result["machine"] = machine
    result["ok"] = ok_overall(result)
    results_dir.mkdir(parents=True, exist_ok=True)
    path = results_dir / f"{bench.name}-{started.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    return result, path


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    args = parse_args(argv)
    if args.list:
        for b in BENCHMARKS.values():
            print(f"{b.name:<12} {b.description}")
        return 0
    unknown = [n for n in args.names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    opts = BenchOptions(
        quick=args.quick,
        urls=args.urls,
        hosts=args.hosts,
        seed=args.seed,
        workdir=args.workdir,
        keep=args.keep,
        fresh_crawl=args.fresh_crawl,
        outlinks=args.outlinks,
    )
    all_ok = True
    for name in args.names or list(BENCHMARKS):
        result, path = run_one(BENCHMARKS[name], opts, args.results_dir)
        print_table(result)
        print(f"results: {path}")
        all_ok = all_ok and result["ok"]
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
