"""Tune the fusion of ``search.semantic`` on one half of the relevance benchmark's queries, report the other half.

``python -m bench.semantic_tune CRAWL QUERIES.json [OUT.json]``: ``CRAWL`` is a crawl whose index was
built with ``search.semantic=true``; ``QUERIES.json`` is what ``python -m bench.relevance_bench draw``
writes (navigational and topical queries with their acceptable URLs).  Queries are split by the parity
of their number (``N001``/``T001`` odd: the *tuning* half; even: the *held-out* half).  Every fusion
of :data:`GRID` ranks every query in-process (plain ranking, no site grouping, as ``--topics`` does);
the fusion with the best overall MRR@10 on the tuning half is chosen, and the table of every fusion on
the held-out half is printed and written as JSON — held-out numbers are never used for the choice.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from gossamer.core.settings import load_settings
from gossamer.search import open_searcher

DEPTH = 10
GRID: list[dict[str, Any]] = [
    {"search.semantic": False},
    *({"search.semantic": True, "search.semantic.fusion": "rrf", "search.semantic.rrf.k": k,
       "search.semantic.weight": w} for k in (10, 60) for w in (0.25, 0.5, 1.0)),
    *({"search.semantic": True, "search.semantic.fusion": "linear", "search.semantic.weight": w}
      for w in (0.25, 0.5, 1.0, 2.0)),
]


def rr(urls: list[str], accept: list[str]) -> float:
    """Reciprocal rank of the first acceptable URL in the top :data:`DEPTH` (0 when none)."""
    for rank, url in enumerate(urls[:DEPTH], start=1):
        if url in accept:
            return 1.0 / rank
    return 0.0


def evaluate(crawl: Path, values: dict[str, Any], queries: list[dict[str, Any]]) -> dict[str, Any]:
    """MRR@10 and success@1 per kind, and query latency, of one setting over ``queries``."""
    settings = load_settings(crawl).with_values(list(values.items()), "tune")
    broker = open_searcher(crawl, settings)
    try:
        broker.search(queries[0]["name"], DEPTH, per_site=0)
        scores: dict[str, list[float]] = {}
        seconds = []
        for query in queries:
            started = time.perf_counter()
            hits = broker.search(query["name"], DEPTH, per_site=0).hits
            seconds.append(time.perf_counter() - started)
            scores.setdefault(query["kind"], []).append(rr([h.url for h in hits], query["accept"]))
    finally:
        broker.close()
    everything = [s for values_ in scores.values() for s in values_]
    out: dict[str, Any] = {kind: {"mrr@10": round(statistics.mean(v), 3),
                                  "success@1": round(sum(s == 1.0 for s in v) / len(v), 3)}
                           for kind, v in scores.items()}
    seconds.sort()
    out["overall"] = {"mrr@10": round(statistics.mean(everything), 3)}
    out["latency_ms"] = {"p50": round(seconds[len(seconds) // 2] * 1000, 2),
                         "p99": round(seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))] * 1000, 2)}
    return out


def main(argv: list[str]) -> None:
    """See the module docstring."""
    if len(argv) not in (2, 3):
        raise SystemExit("usage: python -m bench.semantic_tune CRAWL QUERIES.json [OUT.json]")
    crawl = Path(argv[0])
    queries = json.loads(Path(argv[1]).read_text(encoding="utf-8"))["queries"]
    tune = [q for q in queries if int(q["qid"][1:]) % 2 == 1]
    held = [q for q in queries if int(q["qid"][1:]) % 2 == 0]
    tuned = [(values, evaluate(crawl, values, tune)) for values in GRID]
    best = max(tuned, key=lambda item: item[1]["overall"]["mrr@10"])[0]
    rows = [{"settings": values, "tuning": result, "held_out": evaluate(crawl, values, held)}
            for values, result in tuned]
    report = {"chosen_on_tuning_half": best, "rows": rows}
    for row in rows:
        h = row["held_out"]
        print(json.dumps(row["settings"]), "| held-out nav", h.get("navigational", {}).get("mrr@10"),
              "topical", h.get("topical", {}).get("mrr@10"), "overall", h["overall"]["mrr@10"],
              "| tuning overall", row["tuning"]["overall"]["mrr@10"], "| p50/p99 ms", h["latency_ms"])
    print("chosen on the tuning half:", json.dumps(best))
    if len(argv) == 3:
        Path(argv[2]).write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
