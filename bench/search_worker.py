"""One search benchmark run in its own process: ``python -m bench.search_worker CRAWL QUERIES OUT [--nodes ...]``.

Opens a searcher through the library API (``open_searcher(crawl, settings, nodes)``: the crawl's
local index, or the given search nodes), runs the ``warmup`` queries of ``QUERIES`` (JSON:
``{"warmup": [...], "queries": [{"q": ..., "kind": ...}, ...]}``) untimed, then every query once,
one after another, timing each ``search(q, n)`` call (statistics, candidates, merge and the details
with snippets of the page's hits) with ``time.perf_counter``. Writes to ``OUT`` (JSON) the open
time, the loop's wall time, and per query its latency, total, partial flag, error and hits (URL,
score, snippet length); prints a one-line summary. A query still running after ``STUCK_S`` seconds
dumps the stacks of all threads to stderr (``faulthandler``; the timing is not affected).
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import sys
import time
from pathlib import Path

STUCK_S: float = 30.0
"""A query running this long dumps every thread's stack to stderr (evidence of a hang)."""


def main() -> None:
    """Entry point (see the module docstring)."""
    p = argparse.ArgumentParser()
    p.add_argument("crawl", type=Path)
    p.add_argument("queries", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--nodes", default="")
    p.add_argument("-n", type=int, default=10)
    args = p.parse_args()

    from gossamer.core.settings import load_settings
    from gossamer.search.searcher import open_searcher

    data = json.loads(args.queries.read_text(encoding="utf-8"))
    nodes = [n for n in args.nodes.split(",") if n] or None
    t0 = time.perf_counter()
    settings = load_settings(args.crawl, env=os.environ)
    searcher = open_searcher(args.crawl, settings, nodes)
    open_s = time.perf_counter() - t0
    try:
        t1 = time.perf_counter()
        for q in data["warmup"]:
            faulthandler.dump_traceback_later(STUCK_S, file=sys.stderr)
            searcher.search(q["q"], args.n)
        warmup_s = time.perf_counter() - t1
        answers = []
        t2 = time.perf_counter()
        for q in data["queries"]:
            faulthandler.dump_traceback_later(STUCK_S, file=sys.stderr)
            started = time.perf_counter()
            try:
                r = searcher.search(q["q"], args.n)
            except Exception as exc:  # a failing query is recorded, the run goes on
                answers.append({"s": time.perf_counter() - started, "error": f"{type(exc).__name__}: {exc}"})
                continue
            seconds = time.perf_counter() - started
            answers.append({"s": seconds, "total": r.total, "partial": r.partial,
                            "hits": [[h.url, h.score, len(h.details.snippet.text)] for h in r.hits]})
        loop_s = time.perf_counter() - t2
        faulthandler.cancel_dump_traceback_later()
    finally:
        searcher.close()
    args.out.write_text(json.dumps({"open_s": open_s, "warmup_s": warmup_s, "loop_s": loop_s, "answers": answers}))
    print(json.dumps({"queries": len(answers), "loop_s": round(loop_s, 3), "open_s": round(open_s, 3)}))


if __name__ == "__main__":
    main()
