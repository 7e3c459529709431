"""Gossamer benchmark runner.

Run with ``scripts/bench`` (or ``python -m bench``) from the repository root. Each benchmark
measures Gossamer commands as subprocesses together with a peer baseline measured in the same run,
so results can be compared as ratios on shared, noisy machines. Results are JSON files under
``bench/results/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT: Path = Path(__file__).resolve().parent.parent
RESULTS_DIR: Path = REPO_ROOT / "bench" / "results"
MB: int = 1024 * 1024
"""One "MB" in all reports is a mebibyte (2**20 bytes)."""


@dataclass(frozen=True)
class BenchOptions:
    """Options shared by all benchmarks.

    ``urls``/``hosts`` are None when not given on the command line; each benchmark then picks its
    own defaults (smaller ones when ``quick`` is set). ``workdir`` is the parent directory for the
    benchmark's fresh temporary directory (None means the system temp dir); ``keep`` keeps it.
    ``fresh_crawl`` makes the benchmarks that share a cached crawl (``bench.doc_index``) crawl again.
    ``outlinks`` (``relevance`` only): the ``db.max.outlinks.per.page`` caps to compare instead of the
    usual variants (:mod:`bench.relevance_outlinks`); empty for the usual run.
    """

    quick: bool
    urls: int | None
    hosts: int | None
    seed: int
    workdir: Path | None
    keep: bool
    fresh_crawl: bool = False
    outlinks: tuple[int, ...] = ()


@dataclass(frozen=True)
class Benchmark:
    """A registered benchmark: ``run`` returns a JSON-serialisable result dict.

    The result dict must contain ``steps`` (name -> step dict with ``wall_s``, ``cpu_s``,
    ``peak_tree_rss_mb``, ``max_rss_mb`` and optionally ``urls_per_s`` or ``error``), ``checks``
    (list of ``{"name", "ok", "detail"}``) and ``goals`` (list of ``{"goal", "met", ...}``); it
    may contain anything else (``ratios``, sizes, parameters).
    """

    name: str
    description: str
    run: Callable[[BenchOptions], dict[str, Any]]
