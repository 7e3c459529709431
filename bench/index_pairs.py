"""More alternating runs of ``gossamer index`` and of its tantivy floor, for a ratio the machine's drift cannot sway.

On the shared 2-core machines the same code's single-run ratio of ``index`` to the floor moved 0.44–0.53 within
ten minutes (session 37, bench/README.md): one pair cannot tell a change of a few per cent.  After the benchmark's
own index step and floor step (pair 0), :func:`more_pairs` runs ``n`` more pairs — the index step into a new index
directory (a fresh index, as the first run built), then the floor into a new directory — each step after ``sync``,
each pair's outputs removed before the next.  :func:`pair_ratios` gives each pair's docs/s ratio; the benchmark's
goal reads their median.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from bench.doc_index import index_argv, index_summary
from bench.steps import StepRunner, median_ratio, paired_steps
from bench.tantivy_floor import floor_argv, floor_docs

PAIRS = 3
"""Pairs after the benchmark's own (4 in all); 0 with ``--quick``."""


def more_pairs(run: StepRunner, crawl: Path, work: Path, n: int, extra_defines: dict[str, Any]) -> list[str]:
    """Run ``n`` more pairs (steps ``index_pair<i>``, ``tantivy_floor_pair<i>``, i = 1 … n); their names' suffixes."""
    done: list[str] = []
    for i in range(1, n + 1):
        index_dir, floor_dir = work / f"index-pair{i}", work / f"tantivy-floor-pair{i}"
        m = run.step(f"index_pair{i}", index_argv(crawl, crawl / "linkdb", extra_defines, index_dir), settle=True)
        if m is not None:
            run.steps[f"index_pair{i}"]["docs"] = index_summary(m.stdout).get("added")
        f = run.step(f"tantivy_floor_pair{i}", floor_argv(crawl / "segments", floor_dir), settle=True)
        if f is not None:
            run.steps[f"tantivy_floor_pair{i}"]["docs"] = floor_docs(f.stdout)
        shutil.rmtree(index_dir, ignore_errors=True)
        shutil.rmtree(floor_dir, ignore_errors=True)
        if m is not None and f is not None:
            done.append(f"_pair{i}")
    return done


def pair_ratios(steps: dict[str, dict[str, Any]], suffixes: list[str]) -> list[dict[str, Any]]:
    """Per pair (``""`` = the benchmark's own steps): both walls and the index's docs/s over the floor's."""
    out = []
    for pair, index, floor in paired_steps(steps, suffixes, "index", "tantivy_floor", "docs"):
        if not (index.get("wall_s") and floor.get("wall_s")):
            continue
        ratio = (index["docs"] / index["wall_s"]) / (floor["docs"] / floor["wall_s"])
        out.append({"pair": pair, "index_wall_s": index["wall_s"], "index_cpu_s": index.get("cpu_s"),
                    "floor_wall_s": floor["wall_s"], "floor_cpu_s": floor.get("cpu_s"), "ratio": round(ratio, 3)})
    return out


__all__ = ["PAIRS", "median_ratio", "more_pairs", "pair_ratios"]
