"""The ``search`` benchmark: query latency over the indexed local doc web, one process and three search nodes.

Issue 5, point 7. Setup (measured, reported under ``setup``, not judged), :mod:`bench.doc_index`:
the cached crawl of the doc web; a work crawl indexed as the ``index`` benchmark does (invertlinks
with internal links, dedup, ``index -deleteGone``, one shard); a second work crawl indexed into
three shards (``index.shards = 3`` in its ``gossamer.toml``; same segments, the first one's linkdb).

Queries (:func:`make_queries`): 50 warm-up queries and 1,000 measured ones, drawn with ``--seed``
from the crawl's own pages (titles from ``parse_data``, text from ``parse_text``, pages chosen
uniformly among the parsed ones, sorted by URL so the draw is reproducible): one or two words of a
title, one to three consecutive words of the text, a quoted phrase of two or three words, ``site:<host>
word`` and ``word -other``, in the shares of :data:`KINDS`. Single words skip a short stop-word list.

Measured steps, each a process of its own (:mod:`bench.search_worker`; wall, CPU and peak RSS of the
process by :mod:`bench.measure`), every query timed around ``Broker.search(q, n=10)`` — statistics,
candidates, merge and details with snippets for the ten hits — one query after another:

1. ``single_node``: ``open_searcher(crawl)`` on the one-shard index, in process;
2. ``local_3_shards``: the same on the three-shard index, in process (separates sharding from HTTP);
3. ``three_nodes``: three ``gossamer searchnode`` processes on loopback (``--shards i``, one shard each,
   started before and stopped after the step; their CPU and peak RSS are read from ``/proc``) and
   ``open_searcher(crawl3, nodes=[...])`` in the worker.

Latency statistics use the nearest-rank percentile (the ``ceil(p/100 * n)``-th smallest).
``queries_per_s`` = measured queries / the loop's wall time (sequential, one client).
Checks: no query failed; no partial answer; the three runs return the same hits (same URLs in the
same order, or, where the order differs, scores equal to 1e-4 relative, i.e. ties).
Goals (issue 5): single node p50 <= 5 ms and p99 <= 50 ms.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench import MB, BenchOptions
from bench.doc_index import (
    ANCHOR_SETTINGS,
    cache_untouched_check,
    cached_crawl,
    crawl_facts,
    index_size,
    index_steps,
    work_crawl,
)
from bench.inject_bench import gossamer_executable
from bench.measure import tree_rss_bytes
from bench.steps import StepRunner, work_dir

NAME: str = "search"
DESCRIPTION: str = "1,000 queries over the indexed doc web: latency in one process and through 3 search nodes"
QUERIES, QUICK_QUERIES = 1_000, 200
WARMUP: int = 50
HITS: int = 10
NODES: int = 3
GOAL_P50_MS, GOAL_P99_MS = 5.0, 50.0
NODE_START_TIMEOUT_S: float = 60.0
KINDS: dict[str, float] = {
    "title_1": 0.20, "title_2": 0.15, "text_1": 0.15, "text_2": 0.15, "text_3": 0.10,
    "phrase": 0.09, "site": 0.08, "exclude": 0.08,
}
"""Query kinds and their shares (see :func:`make_queries`)."""
STOPWORDS: frozenset[str] = frozenset(
    "a an and are as at be but by can do does for from has have if in into is it its may more must no not of on "
    "one or see should so such than that the their then there these this to use used using was when which will "
    "with you your".split())
WORD = re.compile(r"[^\W_][\w]*")


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[search] {message}", file=sys.stderr, flush=True)


# --- queries -----------------------------------------------------------------------------------

def parsed_pages(segments: Path) -> list[tuple[str, str]]:
    """``(url, title)`` of every successfully parsed page of the segments, sorted by URL."""
    pages: dict[str, str] = {}
    for part in sorted(segments.glob("*/parse_data/part-*.parquet")):
        table = pq.read_table(part, columns=["url", "title", "status"])
        table = table.filter(pc.equal(table.column("status"), 1))
        for url, title in zip(table.column("url").to_pylist(), table.column("title").to_pylist(), strict=True):
            pages[url] = title or ""
    return sorted(pages.items())


def page_texts(segments: Path, urls: set[str]) -> dict[str, str]:
    """The parse text of the given URLs (read part by part, only their rows kept)."""
    texts: dict[str, str] = {}
    wanted = pa.array(sorted(urls), pa.string())
    for part in sorted(segments.glob("*/parse_text/part-*.parquet")):
        table = pq.read_table(part, columns=["url", "text"])
        table = table.filter(pc.is_in(table.column("url"), value_set=wanted))
        for url, text in zip(table.column("url").to_pylist(), table.column("text").to_pylist(), strict=True):
            texts[url] = text or ""
    return texts


def _words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text) if len(w) > 1 and not w.isdigit()]


def _content_word(rng: random.Random, words: list[str]) -> str | None:
    choices = [w for w in words if w not in STOPWORDS]
    return rng.choice(choices) if choices else None


def _run(rng: random.Random, words: list[str], length: int) -> list[str] | None:
    """``length`` consecutive words starting at a random position, not starting or ending with a stop word."""
    if len(words) < length:
        return None
    for _ in range(20):
        i = rng.randrange(len(words) - length + 1)
        run = words[i:i + length]
        if run[0] not in STOPWORDS and run[-1] not in STOPWORDS:
            return run
    return None


def _host(url: str) -> str:
    return re.sub(r"^https?://([^:/]+).*$", r"\1", url)


def _query(kind: str, rng: random.Random, url: str, title: str, text: str) -> str | None:
    title_words, text_words = _words(title), _words(text)
    if kind == "title_1":
        word = _content_word(rng, title_words)
        return word
    if kind == "title_2":
        run = _run(rng, title_words, 2)
        return " ".join(run) if run else None
    if kind in ("text_1", "text_2", "text_3"):
        n = int(kind[-1])
        if n == 1:
            return _content_word(rng, text_words)
        run = _run(rng, text_words, n)
        return " ".join(run) if run else None
    if kind == "phrase":
        run = _run(rng, text_words, rng.choice((2, 3)))
        return f'"{" ".join(run)}"' if run else None
    if kind == "site":
        word = _content_word(rng, text_words or title_words)
        return f"site:{_host(url)} {word}" if word else None
    if kind == "exclude":
        first = _content_word(rng, text_words)
        other = _content_word(rng, [w for w in text_words if w != first])
        return f"{first} -{other}" if first and other else None
    raise ValueError(kind)


def make_queries(segments: Path, count: int, seed: int) -> list[dict[str, str]]:
    """``count`` queries from the crawl's pages (see the module docstring), reproducible for a seed.

    Each draw picks a kind (by :data:`KINDS`) and a page; a draw that yields no query (a page
    without title or text words) is replaced by a new draw.
    """
    rng = random.Random(seed)
    pages = parsed_pages(segments)
    kinds, weights = list(KINDS), list(KINDS.values())
    draws = [(rng.choices(kinds, weights)[0], pages[rng.randrange(len(pages))]) for _ in range(count * 2)]
    texts = page_texts(segments, {url for _, (url, _) in draws})
    queries: list[dict[str, str]] = []
    for kind, (url, title) in draws:
        q = _query(kind, rng, url, title, texts.get(url, ""))
        if q:
            queries.append({"q": q, "kind": kind, "from": url})
        if len(queries) == count:
            break
    return queries


# --- search nodes ------------------------------------------------------------------------------

_READY = re.compile(r"^searchnode serving shards .* on http://(\S+):(\d+)\s*$", re.MULTILINE)


class SearchNodes:
    """``gossamer searchnode`` processes, one per shard, on free loopback ports (a context manager)."""

    def __init__(self, crawl: Path, shards: int, log_dir: Path) -> None:
        self.crawl, self.shards, self.log_dir = crawl, shards, log_dir
        self.procs: list[subprocess.Popen[bytes]] = []
        self.addresses: list[str] = []
        self.error: str | None = None

    def __enter__(self) -> SearchNodes:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        outs = []
        for i in range(self.shards):
            out = self.log_dir / f"searchnode-{i}.stdout"
            outs.append(out)
            with open(out, "wb") as o, open(self.log_dir / f"searchnode-{i}.stderr", "wb") as e:
                self.procs.append(subprocess.Popen(
                    [gossamer_executable(), "searchnode", "-d", str(self.crawl), "--shards", str(i), "--port", "0"],
                    stdin=subprocess.DEVNULL, stdout=o, stderr=e, env=env))
        deadline = time.monotonic() + NODE_START_TIMEOUT_S
        found: dict[int, str] = {}
        while len(found) < self.shards and time.monotonic() < deadline:
            for i, (proc, out) in enumerate(zip(self.procs, outs, strict=True)):
                if i in found:
                    continue
                m = _READY.search(out.read_text(errors="replace"))
                if m:
                    found[i] = f"{m.group(1)}:{m.group(2)}"
                elif proc.poll() is not None:
                    err = (self.log_dir / f"searchnode-{i}.stderr").read_text(errors="replace")[-1000:]
                    self.error = f"searchnode {i} exited with code {proc.returncode}: {err}"
                    return self
            time.sleep(0.1)
        if len(found) < self.shards:
            self.error = f"search nodes not ready after {NODE_START_TIMEOUT_S:g} s ({len(found)} of {self.shards})"
            return self
        self.addresses = [found[i] for i in range(self.shards)]
        return self

    def __exit__(self, *exc: object) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def usage(self) -> list[dict[str, Any]]:
        """Per node: CPU seconds so far, current RSS (process tree) and peak RSS (``VmHWM``)."""
        out = []
        for proc in self.procs:
            facts: dict[str, Any] = {"pid": proc.pid}
            try:
                stat = Path(f"/proc/{proc.pid}/stat").read_text()
                rest = stat[stat.rfind(")") + 2:].split()
                facts["cpu_s"] = (int(rest[11]) + int(rest[12])) / os.sysconf("SC_CLK_TCK")
                facts["rss_mb"] = round(tree_rss_bytes(proc.pid) / MB, 1)
                hwm = re.search(r"^VmHWM:\s+(\d+) kB", Path(f"/proc/{proc.pid}/status").read_text(), re.MULTILINE)
                facts["peak_rss_mb"] = round(int(hwm.group(1)) / 1024, 1) if hwm else None
            except (OSError, ValueError, IndexError):
                facts["error"] = "gone"
            out.append(facts)
        return out


# --- statistics --------------------------------------------------------------------------------

def percentile(sorted_values: list[float], p: float) -> float:
    """Nearest-rank percentile: the ``ceil(p/100 * n)``-th smallest value (n >= 1)."""
    return sorted_values[max(0, math.ceil(p / 100 * len(sorted_values)) - 1)]


def latency_stats(answers: list[dict[str, Any]], queries: list[dict[str, str]], loop_s: float) -> dict[str, Any]:
    """p50/p90/p99/max/mean in ms, queries/s, per-kind p50/p99, the slowest queries, hit counts."""
    ms = sorted(1000 * a["s"] for a in answers)
    out: dict[str, Any] = {
        "queries": len(answers), "errors": sum(1 for a in answers if "error" in a),
        "partial": sum(1 for a in answers if a.get("partial")),
        "p50_ms": round(percentile(ms, 50), 2), "p90_ms": round(percentile(ms, 90), 2),
        "p99_ms": round(percentile(ms, 99), 2), "max_ms": round(ms[-1], 2), "mean_ms": round(sum(ms) / len(ms), 2),
        "queries_per_s": round(len(answers) / loop_s, 1) if loop_s > 0 else None,
        "zero_hits": sum(1 for a in answers if "error" not in a and not a["hits"]),
        "mean_hits": round(sum(len(a.get("hits", [])) for a in answers) / len(answers), 2),
        "mean_snippet_chars": round(sum(h[2] for a in answers for h in a.get("hits", []))
                                    / max(1, sum(len(a.get("hits", [])) for a in answers)), 1),
    }
    by_kind: dict[str, list[float]] = {}
    for a, q in zip(answers, queries, strict=True):
        by_kind.setdefault(q["kind"], []).append(1000 * a["s"])
    out["by_kind"] = {k: {"queries": len(v), "p50_ms": round(percentile(sorted(v), 50), 2),
                          "p99_ms": round(percentile(sorted(v), 99), 2)} for k, v in sorted(by_kind.items())}
    slowest = sorted(range(len(answers)), key=lambda i: answers[i]["s"], reverse=True)[:10]
    out["slowest"] = [{"q": queries[i]["q"], "ms": round(1000 * answers[i]["s"], 1),
                       "total": answers[i].get("total")} for i in slowest]
    return out


def compare_answers(a: list[dict[str, Any]], b: list[dict[str, Any]], queries: list[dict[str, str]]) -> dict[str, Any]:
    """How many queries got different hits in two runs (ties, equal scores in another order, aside)."""
    differ: list[dict[str, Any]] = []
    reordered = 0
    for x, y, q in zip(a, b, queries, strict=True):
        if "error" in x or "error" in y:
            continue
        ux, uy = [h[0] for h in x["hits"]], [h[0] for h in y["hits"]]
        if ux == uy:
            continue
        sx, sy = [h[1] for h in x["hits"]], [h[1] for h in y["hits"]]
        ties = len(sx) == len(sy) and all(math.isclose(s, t, rel_tol=1e-4) for s, t in zip(sx, sy, strict=True))
        if ties:
            reordered += 1
            continue
        i = next((k for k in range(min(len(ux), len(uy))) if ux[k] != uy[k]), min(len(ux), len(uy)))
        differ.append({"q": q["q"], "first_difference_rank": i + 1,
                       "a": [[u, s] for u, s in zip(ux[i:i + 3], sx[i:i + 3], strict=True)],
                       "b": [[u, s] for u, s in zip(uy[i:i + 3], sy[i:i + 3], strict=True)]})
    return {"different": len(differ), "reordered_ties": reordered, "examples": differ[:5]}


# --- the benchmark -----------------------------------------------------------------------------

def _search_step(run: StepRunner, name: str, crawl: Path, queries_file: Path, out: Path,
                 nodes: list[str] | None = None) -> dict[str, Any] | None:
    argv = [sys.executable, "-m", "bench.search_worker", str(crawl), str(queries_file), str(out), "-n", str(HITS)]
    if nodes:
        argv += ["--nodes", ",".join(nodes)]
    m = run.step(name, argv)
    run.steps.get(name, {}).pop("urls_per_s", None)
    if m is None:
        return None
    return json.loads(out.read_text())


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the benchmark in a fresh directory under ``opts.workdir`` (the crawl is cached elsewhere)."""
    count = opts.urls or (QUICK_QUERIES if opts.quick else QUERIES)
    with work_dir(opts, NAME, log) as work:
        setup = StepRunner(work / "logs", 0, log)
        result: dict[str, Any] = {"params": {"queries": count, "warmup": WARMUP, "hits": HITS, "nodes": NODES,
                                             "seed": opts.seed, "kinds": KINDS, "quick": opts.quick,
                                             "gossamer": gossamer_executable(),
                                             "workdir": str(work) if opts.keep else None}}
        empty = {"steps": {}, "goals": []}
        cache = cached_crawl(opts, setup, log)
        if cache is None:
            return {**result, **empty, "setup": setup.steps, "checks": setup.checks}
        result["crawl"] = crawl_facts(cache)
        crawl1 = work_crawl(cache, work / "crawl", ANCHOR_SETTINGS)
        one = index_steps(setup, crawl1, extra_defines=ANCHOR_SETTINGS)
        crawl3 = work_crawl(cache, work / "crawl3", {**ANCHOR_SETTINGS, "index.shards": NODES})
        three = index_steps(setup, crawl3, prefix="shards3_", linkdb=crawl1 / "linkdb")
        result["indexes"] = {"one_shard": {**one.get("index", {}), **index_size(crawl1)},
                             "three_shards": {**three.get("index", {}), **index_size(crawl3)}}
        if not (one["ok"] and three["ok"]):
            return {**result, **empty, "setup": setup.steps, "checks": setup.checks}

        t0 = time.perf_counter()
        queries_file = work / "queries.json"
        made = setup.step("make_queries", [sys.executable, "-m", "bench.search_bench", "make-queries",
                                           str(cache.segments), str(WARMUP + count), str(opts.seed),
                                           str(queries_file)])
        if made is None:
            return {**result, **empty, "setup": setup.steps, "checks": setup.checks}
        drawn = json.loads(queries_file.read_text(encoding="utf-8"))
        warmup, queries = drawn[:WARMUP], drawn[WARMUP:]
        result["make_queries_s"] = round(time.perf_counter() - t0, 2)
        queries_file.write_text(json.dumps({"warmup": warmup, "queries": queries}, ensure_ascii=False))
        result["queries_sample"] = [q["q"] for q in queries[:30]]
        log(f"{len(queries)} queries (+{len(warmup)} warm-up) drawn in {result['make_queries_s']} s")

        run_ = StepRunner(work / "logs", len(queries), log)
        outs: dict[str, dict[str, Any]] = {}
        for name, crawl in (("single_node", crawl1), ("local_3_shards", crawl3)):
            answer = _search_step(run_, name, crawl, queries_file, work / f"{name}.json")
            if answer is not None:
                outs[name] = answer
        with SearchNodes(crawl3, NODES, work / "logs") as nodes:
            if nodes.error:
                run_.steps["three_nodes"] = {"error": nodes.error}
                run_.check("search_nodes_started", False, nodes.error)
            else:
                before = nodes.usage()
                answer = _search_step(run_, "three_nodes", crawl3, queries_file, work / "three_nodes.json",
                                      nodes.addresses)
                after = nodes.usage()
                result["nodes"] = [{"address": addr, "cpu_s": round(b2.get("cpu_s", 0) - b1.get("cpu_s", 0), 2),
                                    "rss_mb": b2.get("rss_mb"), "peak_rss_mb": b2.get("peak_rss_mb")}
                                   for addr, b1, b2 in zip(nodes.addresses, before, after, strict=True)]
                if answer is not None:
                    outs["three_nodes"] = answer
        latency: dict[str, Any] = {}
        for name, answer in outs.items():
            latency[name] = {**latency_stats(answer["answers"], queries, answer["loop_s"]),
                             "open_s": round(answer["open_s"], 3), "warmup_s": round(answer["warmup_s"], 3)}
            run_.check(f"{name}_no_errors", latency[name]["errors"] == 0 and latency[name]["partial"] == 0,
                       f"{latency[name]['errors']} failed queries, {latency[name]['partial']} partial answers")
        result["latency"] = latency
        comparisons = {}
        base = outs.get("single_node")
        for name in ("local_3_shards", "three_nodes"):
            if base is not None and name in outs:
                comparisons[f"single_node_vs_{name}"] = compare_answers(base["answers"], outs[name]["answers"],
                                                                        queries)
                c = comparisons[f"single_node_vs_{name}"]
                run_.check(f"same_hits_{name}", c["different"] == 0,
                           f"{c['different']} of {len(queries)} queries with other hits than single_node "
                           f"({c['reordered_ties']} only reordered among equal scores)")
        result["comparisons"] = comparisons
        cache_untouched_check(run_, cache)
        single = latency.get("single_node", {})
        result["ratios"] = {
            f"{name}_p50_vs_single_node": round(latency[name]["p50_ms"] / single["p50_ms"], 3)
            for name in ("local_3_shards", "three_nodes") if name in latency and single.get("p50_ms")}
        p50, p99 = single.get("p50_ms"), single.get("p99_ms")
        goals = [
            {"goal": f"single node p50 <= {GOAL_P50_MS:g} ms", "value_ms": p50,
             "met": bool(p50 is not None and p50 <= GOAL_P50_MS)},
            {"goal": f"single node p99 <= {GOAL_P99_MS:g} ms", "value_ms": p99,
             "met": bool(p99 is not None and p99 <= GOAL_P99_MS)},
        ]
        result.update({"setup": setup.steps, "steps": run_.steps, "checks": setup.checks + run_.checks,
                       "goals": goals})
        return result


def main(argv: list[str]) -> None:
    """``python -m bench.search_bench make-queries SEGMENTS COUNT SEED OUT``: :func:`make_queries` to a JSON list.

    Run as a subprocess so the benchmark's own process stays small (measured steps inherit its RSS
    in ``ru_maxrss``, see :mod:`bench.measure`).
    """
    if len(argv) != 5 or argv[0] != "make-queries":
        raise SystemExit("usage: python -m bench.search_bench make-queries SEGMENTS COUNT SEED OUT")
    queries = make_queries(Path(argv[1]), int(argv[2]), int(argv[3]))
    Path(argv[4]).write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
