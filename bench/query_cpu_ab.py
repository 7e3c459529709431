"""CPU time per query of two searchers, A/B in one process: ``python -m bench.query_cpu_ab A B [OUT.json]``.

``A`` and ``B`` are crawl directories with an index (e.g. two work crawls of ``scripts/bench relevance
--keep``: ``crawl-anchors`` and ``crawl-soft``), each searched with the settings of its own ``gossamer.toml``
plus, for one side, ``--a name=value`` / ``--b name=value`` (repeatable; e.g. one crawl searched twice, ``--b
query.soft=true``). The queries are the search benchmark's (:func:`bench.search_bench.make_queries`, 1,000,
seed 42, drawn from ``A``'s segments). After 50 untimed queries on each, every query runs on both, the order
alternating, ``search(q, 10)`` with snippets, timed with ``time.process_time`` (CPU seconds of the process:
robust to other work on a shared machine, unlike wall time). Prints, and writes to ``OUT.json``, p50 / p90 /
p99 / mean in ms per searcher and how many queries got the same top 10 URLs. Issue 20: what stemming and soft
matching cost per query.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench.machine import machine_facts
from bench.search_bench import make_queries

QUERIES, SEED, WARMUP, DEPTH = 1000, 42, 50, 10


def summary(seconds: list[float]) -> dict[str, float]:
    """p50, p90, p99 and mean of ``seconds``, in milliseconds."""
    ordered = sorted(seconds)

    def at(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(len(ordered) * p))] * 1000, 2)

    return {"p50_ms": at(0.5), "p90_ms": at(0.9), "p99_ms": at(0.99),
            "mean_ms": round(sum(ordered) / len(ordered) * 1000, 2)}


def measure(a_dir: Path, b_dir: Path, overrides: dict[str, list[tuple[str, str]]] | None = None) -> dict[str, Any]:
    """The A/B measurement described in the module docstring (``overrides``: settings per side, "A"/"B")."""
    from gossamer.core.settings import load_settings
    from gossamer.search.searcher import open_searcher

    overrides = overrides or {}
    queries = [q["q"] for q in make_queries(a_dir / "segments", QUERIES, SEED)]
    searchers = {side: open_searcher(crawl, load_settings(crawl).with_values(overrides.get(side, []), f"--{side}"))
                 for side, crawl in (("A", a_dir), ("B", b_dir))}
    times: dict[str, list[float]] = {"A": [], "B": []}
    same = 0
    try:
        for query in queries[:WARMUP]:
            for searcher in searchers.values():
                searcher.search(query, DEPTH)
        for i, query in enumerate(queries):
            urls: dict[str, list[str]] = {}
            for name in ("A", "B") if i % 2 == 0 else ("B", "A"):
                started = time.process_time()
                hits = searchers[name].search(query, DEPTH).hits
                times[name].append(time.process_time() - started)
                urls[name] = [h.url for h in hits]
            same += urls["A"] == urls["B"]
    finally:
        for searcher in searchers.values():
            searcher.close()
    return {side: {"crawl": str(crawl), "settings": dict(overrides.get(side, [])), **summary(times[side])}
            for side, crawl in (("A", a_dir), ("B", b_dir))} | {
        "same_top10": same, "queries": len(queries), "loadavg_end": list(os.getloadavg())}


def main(argv: list[str]) -> None:
    """See the module docstring."""
    positional: list[str] = []
    overrides: dict[str, list[tuple[str, str]]] = {"A": [], "B": []}
    items = iter(argv)
    for arg in items:
        if arg in ("--a", "--b"):
            name, _, value = next(items, "").partition("=")
            overrides[arg[2:].upper()].append((name, value))
        else:
            positional.append(arg)
    if len(positional) not in (2, 3):
        raise SystemExit("usage: python -m bench.query_cpu_ab CRAWL_A CRAWL_B [OUT.json] [--a|--b name=value ...]")
    loadavg = list(os.getloadavg())
    result = {"benchmark": "query_cpu_ab", "loadavg_start": loadavg,
              **measure(Path(positional[0]), Path(positional[1]), overrides), "machine": machine_facts()}
    print(json.dumps({k: result[k] for k in ("A", "B", "same_top10", "loadavg_start", "loadavg_end")}))
    if len(positional) == 3:
        Path(positional[2]).write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
