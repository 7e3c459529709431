"""More runs of the Gossamer crawl and of wget, alternating, for a CPU-per-page ratio the machine's drift cannot sway.

On the shared 2-core machines the speed moves within minutes, and not for both crawlers alike: in three ``crawl``
runs of session 41 (bench/README.md) wget's CPU per page went 1.74 → 2.37 → 3.17 ms and Gossamer's 2.15 → 2.37 →
2.55 ms, so the one ratio of a run (Gossamer first, Scrapy's seven minutes, then wget) said 1.24×, 1.00× and 0.80×.
The benchmark therefore runs wget right after its own Gossamer crawl (pair 0), then :func:`more_pairs` runs ``n``
more pairs in alternating order (pair 1 wget first, pair 2 Gossamer first, …), each crawl into a fresh directory
that is removed after it.  :func:`pair_ratios` gives each pair's CPU-per-page ratio (Gossamer's over wget's); the
goal reads their median.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.steps import median_ratio, paired_steps

PAIRS = 2
"""Pairs after the benchmark's own (3 in all); 0 with ``--quick``."""
GOSSAMER, WGET = "gossamer_crawl", "wget"


def pair_order(i: int) -> tuple[str, str]:
    """The step order of pair ``i`` (1, 2, …): wget first in odd pairs, Gossamer first in even ones."""
    return (WGET, GOSSAMER) if i % 2 else (GOSSAMER, WGET)


def more_pairs(n: int, run_one: Callable[[str, str], bool]) -> list[str]:
    """Run ``n`` more pairs; ``run_one(crawler, step_name)`` runs one measured step, True when it counted pages.

    Step names are ``<crawler>_pair<i>``; returns the suffixes (``_pair<i>``) of the pairs whose both steps counted.
    """
    done: list[str] = []
    for i in range(1, n + 1):
        ok = [run_one(crawler, f"{crawler}_pair{i}") for crawler in pair_order(i)]
        if all(ok):
            done.append(f"_pair{i}")
    return done


def pair_ratios(steps: dict[str, dict[str, Any]], suffixes: list[str]) -> list[dict[str, Any]]:
    """Per pair (``""`` = the benchmark's own steps): both crawlers' CPU per page and Gossamer's over wget's."""
    return [{"pair": pair, "gossamer_cpu_ms_per_page": ours["cpu_ms_per_page"],
             "wget_cpu_ms_per_page": peer["cpu_ms_per_page"], "gossamer_pages": ours.get("pages"),
             "wget_pages": peer.get("pages"), "ratio": round(ours["cpu_ms_per_page"] / peer["cpu_ms_per_page"], 3)}
            for pair, ours, peer in paired_steps(steps, suffixes, GOSSAMER, WGET, "cpu_ms_per_page")]


__all__ = ["GOSSAMER", "PAIRS", "WGET", "median_ratio", "more_pairs", "pair_order", "pair_ratios"]
