"""``scripts/bench relevance --outlinks 100,1000``: the relevance benchmark over crawls with different outlink caps.

Issue 20 point 6: a site crawl should keep more than Nutch's 100 outlinks per page where that changes
what is found. This mode of the ``relevance`` benchmark measures the effect of ``db.max.outlinks.per.page``:

* one cached crawl of the doc web per cap (:func:`bench.doc_index.cached_crawl` with ``cap``: the same
  command, rounds, ``-topN`` and settings as the usual cached crawl, politeness off, only the cap
  differs; -1, every link, *is* the usual cache and is always included, as the reference). A capped
  crawl is made once and cached as ``doc-full-outlinks<cap>`` under ``$BENCH_OUTLINKS_CACHE`` (if set)
  or beside the usual cache; its step ``crawl_outlinks_<cap>`` records its wall and CPU time, and the
  cache's marker keeps them (``crawl_wall_s``, ``crawl_cpu_s``);
* per cap a work crawl indexed with the default settings (``invertlinks`` → ``dedup`` → ``index``);
* the 200 queries drawn once, from the every-link crawl's index (the usual ``relevance`` queries), and
  searched in every index: a query whose target page a capped crawl never reached scores 0 there;
* per cap (``outlinks.<variant>``): the crawl's facts, parsed pages per host, documents indexed, and
  which queries lost their target page (``targets_lost``) or every accepted page (``all_accepted_lost``).

Variants are named ``outlinks_<cap>`` and ``outlinks_all`` (-1); ``metrics`` has each, as in the usual run.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench import BenchOptions
from bench.doc_index import (
    EVERY_LINK,
    cache_untouched_check,
    cached_crawl,
    crawl_facts,
    index_steps,
    work_crawl,
)
from bench.relevance_bench import NAME, QUERIES, _indexed_checker, draw_queries, log, search_runs
from bench.search_bench import parsed_pages
from bench.steps import StepRunner, work_dir


def parse_caps(text: str) -> tuple[int, ...]:
    """``"1000,100"`` → ``(100, 1000, -1)``: distinct caps ascending, every link (-1) always added, last.

    Raises :class:`argparse.ArgumentTypeError` for a value that is neither -1 nor a positive integer.
    """
    caps: set[int] = set()
    for item in text.split(","):
        try:
            cap = int(item.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {item!r}") from None
        if cap != EVERY_LINK and cap < 1:
            raise argparse.ArgumentTypeError(f"an outlink cap is -1 (every link) or positive, not {cap}")
        caps.add(cap)
    caps.discard(EVERY_LINK)
    return (*sorted(caps), EVERY_LINK)


def variant_name(cap: int) -> str:
    """``outlinks_100`` for a cap, ``outlinks_all`` for every link (-1)."""
    return "outlinks_all" if cap == EVERY_LINK else f"outlinks_{cap}"


def reach(crawl: Path, queries: list[dict[str, Any]]) -> dict[str, Any]:
    """What a crawl reached of the queries' pages: parsed ``pages`` (and ``pages_by_host``), and the qids
    whose target page (``targets_lost``) or every accepted page (``all_accepted_lost``) is not in its index."""
    by_host = Counter(urlsplit(url).hostname or "" for url, _ in parsed_pages(crawl / "segments"))
    indexed, broker, _ = _indexed_checker(crawl)
    try:
        lost = [q for q in queries if not indexed(q["url"], q["name"])]
        none = [q["qid"] for q in lost if not any(indexed(u, q["name"]) for u in q["accept"])]
    finally:
        broker.close()
    return {"pages": sum(by_host.values()), "pages_by_host": dict(sorted(by_host.items())),
            "targets_lost": [q["qid"] for q in lost], "all_accepted_lost": none}


def run_caps(opts: BenchOptions, total: int = QUERIES) -> dict[str, Any]:
    """The ``--outlinks`` mode of ``relevance`` (see the module docstring), in a fresh work directory."""
    caps = parse_caps(",".join(map(str, opts.outlinks)))
    with work_dir(opts, NAME, log) as work:
        setup = StepRunner(work / "logs", 0, log)
        result: dict[str, Any] = {"params": {"queries": total, "seed": opts.seed, "quick": opts.quick,
                                             "outlinks": list(caps), "workdir": str(work) if opts.keep else None}}
        failed = {"steps": {}, "goals": []}
        caches = {}
        for cap in caps:
            cache = cached_crawl(opts, setup, log, cap=cap, step=f"crawl_{variant_name(cap)}")
            if cache is None:
                return {**result, **failed, "setup": setup.steps, "checks": setup.checks}
            caches[variant_name(cap)] = cache
        crawls = {v: work_crawl(cache, work / f"crawl-{v}", {}) for v, cache in caches.items()}
        built = {v: index_steps(setup, crawl, prefix=f"{v}_") for v, crawl in crawls.items()}
        reference = crawls[variant_name(EVERY_LINK)]
        drawn = draw_queries(setup, reference, total, opts.seed, work) if all(b["ok"] for b in built.values()) else None
        if drawn is None:
            return {**result, **failed, "setup": setup.steps, "checks": setup.checks}
        result["candidates"], result["topical_candidates"] = drawn["candidates"], drawn["topical_candidates"]
        reached: dict[str, Any] = {}
        for v, crawl in crawls.items():
            out = work / f"reach-{v}.json"
            if setup.step(f"{v}_reach", [sys.executable, "-m", "bench.relevance_outlinks", "reach", str(crawl),
                                         str(work / "queries.json"), str(out)]) is not None:
                reached[v] = json.loads(out.read_text(encoding="utf-8"))
        run_ = StepRunner(work / "logs", len(drawn["queries"]), log)
        search_runs(run_, drawn, {v: (crawl, []) for v, crawl in crawls.items()}, total, result)
        result["outlinks"] = {v: {"cap": cap, "crawl": crawl_facts(caches[v]), "index": built[v].get("index"),
                                  "linkdb": built[v].get("linkdb"), **reached.get(v, {})}
                              for v, cap in zip(crawls, caps, strict=True)}
        for v, cache in caches.items():
            cache_untouched_check(run_, cache, name=f"{v}_cache_untouched")
        run_.check("reach_measured", len(reached) == len(crawls), f"reach of {sorted(reached)} of {sorted(crawls)}")
        result.update({"setup": setup.steps, "steps": run_.steps, "checks": setup.checks + run_.checks,
                       "goals": []})
        return result


def main(argv: list[str]) -> None:
    """``python -m bench.relevance_outlinks reach CRAWL QUERIES OUT``: :func:`reach` of CRAWL for the
    ``queries`` of the JSON file QUERIES (``relevance_bench draw``'s answer), written to OUT as JSON."""
    if len(argv) != 4 or argv[0] != "reach":
        raise SystemExit("usage: python -m bench.relevance_outlinks reach CRAWL QUERIES OUT")
    queries = json.loads(Path(argv[2]).read_text(encoding="utf-8"))["queries"]
    Path(argv[3]).write_text(json.dumps(reach(Path(argv[1]), queries)), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
