"""The ``index`` benchmark: invertlinks, dedup and index of a full crawl of the local doc web.

Issue 5, point 7. Setup (not measured, :mod:`bench.doc_index`): a politeness-free crawl of the
eleven doc hosts of ``shared/localweb`` until nothing is due (~50k pages; ``--quick``: ~3,000),
cached between runs, and a work crawl directory with a copy of its crawldb and a link to its
segments. Then three measured subprocess steps (wall, CPU of the process tree, peak RSS), as
``crawl --index`` runs them but with the standalone commands:

1. ``invertlinks``: ``gossamer invertlinks <crawl>/linkdb -dir <crawl>/segments`` with
   ``linkdb.ignore.internal.links=false`` (the doc sites link almost only internally; with Nutch's
   default the linkdb, and so anchor text, would be nearly empty);
2. ``dedup``: ``gossamer dedup <crawl>/crawldb``;
3. ``index``: ``gossamer index <crawl>/crawldb -linkdb <crawl>/linkdb -dir <crawl>/segments
   -deleteGone`` (every segment, the default indexing filters, one shard: ``index.shards`` 1).

Documents indexed come from the index summary (``documents added/replaced: N``); ``docs_per_s``
divides them by the index step's wall time (start-up included), ``docs_per_s_job`` by the time the
indexer reports for its job (``Indexer: finished in X s``: start-up and plugin loading excluded).
Sizes: the index on disk (``du``) and per document, the linkdb. A last step, ``search_smoke``,
searches the new index once (a check that it answers).

A fourth step, ``index_semantic``, indexes the same pages again with page vectors (``search.semantic=true``,
the static embedding model of :mod:`gossamer.index.embeddings`) into a directory of its own; its
``word_store_before`` says whether the model's word store (token ids kept between runs) held words.

Peer in the same run, ``tantivy_floor`` (:mod:`bench.tantivy_floor`): bare tantivy-py indexing of the
same parsed pages (id, url, title, content; Gossamer's analyzer and writer settings) read straight
from the segments — no crawldb/linkdb join, no indexing filters. Ratios: ``gossamer index`` wall,
CPU per document and peak memory against it (lower is better; 1.0 = Gossamer's pipeline costs nothing).
Then :data:`~bench.index_pairs.PAIRS` more alternating pairs of the index step (into a new index) and the
floor (:mod:`bench.index_pairs`; none with ``--quick``): ``pairs`` lists every pair's walls and docs/s ratio,
``ratios.index_docs_per_s_vs_tantivy_floor_median`` their median — the same code's single pair moved
0.44–0.53 within minutes on the shared machine.
Goals (not judged with ``--quick``, where start-up dominates): index at >= 3,000 docs/s on this 2-core
machine (issue 5); its docs/s >= 0.5 x the floor's, the median of the alternating pairs (issue 22); with
embeddings >= 2,500 docs/s (issue 20).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from bench import BenchOptions
from bench.doc_index import (
    ANCHOR_SETTINGS,
    cache_untouched_check,
    cached_crawl,
    crawl_facts,
    defines,
    index_size,
    index_steps,
    work_crawl,
)
from bench.index_pairs import PAIRS, median_ratio, more_pairs, pair_ratios
from bench.inject_bench import dir_size, gossamer_executable
from bench.steps import StepRunner, work_dir
from bench.tantivy_floor import floor_argv, floor_docs

NAME: str = "index"
DESCRIPTION: str = "invertlinks, dedup and index of the crawled local doc web (~50k pages; crawl cached)"
GOAL_DOCS_PER_S: float = 3_000
SMOKE_QUERY: str = "hash map"
GOAL_FLOOR_SHARE: float = 0.5
GOAL_SEMANTIC_DOCS_PER_S: float = 2_500


def word_stores() -> dict[str, int]:
    """Part files and bytes of the embedding model's word stores (token ids kept between runs) right now.

    A store left by earlier runs spares the semantic step most of its word cutting: the JSON records
    whether it was there (``parts`` 0: a cold run).
    """
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    parts = [p for p in (Path(base) / "gossamer").glob("static-words-*/*.words") if p.is_file()]
    return {"parts": len(parts), "bytes": sum(p.stat().st_size for p in parts)}


def _semantic_step(run: StepRunner, crawl: Path, work: Path, docs: int | None) -> None:
    """``index_semantic``: the same index with page vectors (``search.semantic=true``) into its own directory."""
    index_dir = work / "index-semantic"
    store = word_stores()
    run.step("index_semantic", [gossamer_executable(), "index", str(crawl / "crawldb"), "-linkdb",
                                str(crawl / "linkdb"), "-dir", str(crawl / "segments"), "-deleteGone", "-index",
                                str(index_dir), *defines({**ANCHOR_SETTINGS, "search.semantic": True})])
    step = run.steps.get("index_semantic", {})
    step.pop("urls_per_s", None)
    step["word_store_before"] = store
    if docs and step.get("wall_s") and "error" not in step:
        step["docs"] = docs
        step["docs_per_s"] = round(docs / step["wall_s"], 1)
        step["cpu_ms_per_doc"] = round(1000 * step["cpu_s"] / docs, 3)
        step["size"] = dir_size(index_dir)


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[index] {message}", file=sys.stderr, flush=True)


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the benchmark in a fresh directory under ``opts.workdir`` (the crawl is cached elsewhere)."""
    with work_dir(opts, NAME, log) as work:
        setup = StepRunner(work / "logs", 0, log)
        result: dict[str, Any] = {"params": {"quick": opts.quick, "settings": ANCHOR_SETTINGS,
                                             "gossamer": gossamer_executable(),
                                             "workdir": str(work) if opts.keep else None}}
        cache = cached_crawl(opts, setup, log)
        if cache is None:
            return {**result, "setup": setup.steps, "steps": {}, "checks": setup.checks, "goals": []}
        result["crawl"] = crawl_facts(cache)
        crawl = work_crawl(cache, work / "crawl", ANCHOR_SETTINGS)
        run_ = StepRunner(work / "logs", 0, log)
        facts = index_steps(run_, crawl, extra_defines=ANCHOR_SETTINGS)
        result.update({"linkdb": facts.get("linkdb"), "dedup": facts.get("dedup"), "index": facts.get("index")})
        step = run_.steps.get("index", {})
        docs = (facts.get("index") or {}).get("added")
        pages = cache.marker["pages"]
        if docs and step.get("wall_s"):
            step["docs"] = docs
            step["docs_per_s"] = round(docs / step["wall_s"], 1)
            step["urls_per_s"] = round(docs / step["wall_s"])
            step["cpu_ms_per_doc"] = round(1000 * step["cpu_s"] / docs, 3)
            job_s = (facts.get("index") or {}).get("seconds")
            if job_s:
                step["job_s"] = job_s
                step["docs_per_s_job"] = round(docs / job_s, 1)
        sizes = index_size(crawl)
        disk = sizes["current"]["disk_bytes"]
        if docs and disk:
            sizes["bytes_per_doc"] = round(disk / docs)
        sizes["linkdb"] = dir_size(crawl / "linkdb")
        result["sizes"] = sizes
        run_.check("index_docs", bool(docs and 0.8 * pages <= docs <= pages),
                   f"{docs} documents indexed of {pages:,} pages parsed in the crawl (at least 80 %)")
        if facts.get("ok"):
            smoke = run_.step("search_smoke", [gossamer_executable(), "search", "-d", str(crawl), SMOKE_QUERY,
                                               "--json"])
            run_.steps.get("search_smoke", {}).pop("urls_per_s", None)
            hits = json.loads(smoke.stdout)["hits"] if smoke is not None else []
            run_.check("search_answers", bool(hits), f"{len(hits)} hits for {SMOKE_QUERY!r}")
        if facts.get("ok"):
            _semantic_step(run_, crawl, work, docs)
        floor = run_.step("tantivy_floor", floor_argv(crawl / "segments", work / "tantivy-floor"), settle=True)
        run_.steps.get("tantivy_floor", {}).pop("urls_per_s", None)
        if floor is not None:
            fstep = run_.steps["tantivy_floor"]
            fstep["docs"] = floor_docs(floor.stdout)
            fstep["docs_per_s"] = round(fstep["docs"] / fstep["wall_s"], 1)
            fstep["urls_per_s"] = round(fstep["docs"] / fstep["wall_s"])
            fstep["cpu_ms_per_doc"] = round(1000 * fstep["cpu_s"] / fstep["docs"], 3)
            result["sizes"]["tantivy_floor"] = dir_size(work / "tantivy-floor")
            if step.get("docs_per_s"):
                result["ratios"] = {
                    "index_wall_vs_tantivy_floor": round(step["wall_s"] / fstep["wall_s"], 3),
                    "index_cpu_per_doc_vs_tantivy_floor": round(step["cpu_ms_per_doc"] / fstep["cpu_ms_per_doc"], 3),
                    "index_peak_rss_vs_tantivy_floor": round(
                        max(step["peak_tree_rss_mb"], step["max_rss_mb"])
                        / max(fstep["peak_tree_rss_mb"], fstep["max_rss_mb"]), 3),
                }
        rate = step.get("docs_per_s")
        floor_rate = run_.steps.get("tantivy_floor", {}).get("docs_per_s")
        share = round(rate / floor_rate, 3) if rate and floor_rate else None
        if share is not None:
            result.setdefault("ratios", {})["index_docs_per_s_vs_tantivy_floor"] = share
        suffixes = [""] + (more_pairs(run_, crawl, work, 0 if opts.quick else PAIRS, ANCHOR_SETTINGS)
                           if share is not None else [])
        result["pairs"] = pair_ratios(run_.steps, suffixes)
        median = median_ratio(result["pairs"])
        if median is not None:
            result.setdefault("ratios", {})["index_docs_per_s_vs_tantivy_floor_median"] = median
        cache_untouched_check(run_, cache)
        semantic_rate = run_.steps.get("index_semantic", {}).get("docs_per_s")
        goals = [] if opts.quick else [
            {"goal": f"index >= {GOAL_DOCS_PER_S:,.0f} docs/s (wall, start-up included)", "value": rate,
             "met": bool(rate and rate >= GOAL_DOCS_PER_S and "error" not in step)},
            {"goal": f"index >= {100 * GOAL_FLOOR_SHARE:.0f} % of the tantivy floor's docs/s, median of "
                     f"{len(result['pairs'])} alternating pairs (issue 22)",
             "value": None if median is None else round(100 * median, 1),
             "met": bool(median and median >= GOAL_FLOOR_SHARE)},
            {"goal": f"index with embeddings >= {GOAL_SEMANTIC_DOCS_PER_S:,.0f} docs/s (issue 20)",
             "value": semantic_rate, "met": bool(semantic_rate and semantic_rate >= GOAL_SEMANTIC_DOCS_PER_S)}]
        result.update({"setup": setup.steps, "steps": run_.steps, "checks": setup.checks + run_.checks,
                       "goals": goals})
        return result
