"""The crawl benchmark's CPU comparison with wget: the same pages, fixed work, in alternating pairs.

Issue 22 asks for Gossamer's CPU per stored page not above wget's. Until session 42 the benchmark read wget's
figure from run_peers.sh's ``timeout 60 wget --mirror``, and that figure is not a property of wget: wget spends
most of its CPU walking a linked list once per link it finds in a page (perf, session 42: ~80 % of its cycles
in one list-walk loop), so a page's cost grows with the square of its links, and what wget saves in 60 s
depends on how far it gets past rust.web.test's huge index pages into the 10,099 tiny redirect stubs behind
them. On one machine and one commit it saved 38,900 pages at 1.39 ms a page in one run and 11,463 at 5.01 ms
in another; the two crawlers also fetched different pages (wget seed by seed, Gossamer breadth-first).

So each pair now does fixed, identical work:

* ``wget``: ``wget --mirror`` ending on a download quota (:func:`bench.peers.wget_argv`); its order is fixed,
  so it saves the same pages in every run (checked: each pair's wget saves as many pages as the first);
* ``gossamer_same_pages``: ``gossamer crawl`` of exactly the pages the first wget saved (their URLs injected,
  one round): fetch, parse (text, outlinks with anchors, signatures), WARC, parse tables, updatedb of every
  outlink, as in any round of a crawl.

Pair 0 is the first wget and the first Gossamer run after it; :func:`more_pairs` runs ``n`` more in alternating
order (pair 1 Gossamer first, pair 2 wget first, …), each into a fresh directory removed after it.
:func:`pair_ratios` gives each pair's CPU-per-page ratio (Gossamer's over wget's); the goal reads their median.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.steps import median_ratio, paired_steps

PAIRS = 2
"""Pairs after the first (3 in all); 0 with ``--quick``."""
GOSSAMER, WGET = "gossamer_same_pages", "wget"


def pair_order(i: int) -> tuple[str, str]:
    """The step order of pair ``i`` (0, 1, 2, …): wget first in even pairs (pair 0 must: Gossamer crawls the
    pages wget saved), Gossamer first in odd ones."""
    return (GOSSAMER, WGET) if i % 2 else (WGET, GOSSAMER)


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
    """Per pair (``""`` = pair 0): both crawlers' CPU per page and pages, and Gossamer's CPU per page over wget's."""
    return [{"pair": pair, "gossamer_cpu_ms_per_page": ours["cpu_ms_per_page"],
             "wget_cpu_ms_per_page": peer["cpu_ms_per_page"], "gossamer_pages": ours.get("pages"),
             "wget_pages": peer.get("pages"), "ratio": round(ours["cpu_ms_per_page"] / peer["cpu_ms_per_page"], 3)}
            for pair, ours, peer in paired_steps(steps, suffixes, GOSSAMER, WGET, "cpu_ms_per_page")]


__all__ = ["GOSSAMER", "PAIRS", "WGET", "median_ratio", "more_pairs", "pair_order", "pair_ratios"]
