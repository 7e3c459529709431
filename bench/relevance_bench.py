"""The ``relevance`` benchmark: 100 navigational and 100 topical queries over the indexed doc web.

Issue 5, point 7. Setup as for ``search`` (:mod:`bench.doc_index`): the cached crawl, then two work
crawls over the same segments — ``anchors``: invertlinks with ``linkdb.ignore.internal.links=false``,
dedup, ``index -deleteGone`` (the ``index-anchor`` filter puts the anchor texts of the linkdb into
the ``anchor`` field); ``no_anchors``: the same crawldb and linkdb, indexed with
``plugin.excludes=index-anchor`` (in its ``gossamer.toml``, so search sees it too) into its own index.

Queries (:func:`candidates`, :func:`draw`), built by rule from the crawl's parsed pages, no hand
picking: a *reference page* is a page whose URL and title follow one of the :data:`SOURCES` patterns,
and its *name* is what the rule takes from the title:

* ``python``: ``python.web.test/library/<m>.html`` titled ``<m> — …`` → the module name (``os.path``);
* ``java``: Javadoc class pages ``java.web.test/<module>/<package path>/<Name>.html`` (not
  ``class-use``/``package-*``) titled ``<Name> (Java SE 17 & JDK 17)`` → the class name (``HashMap``);
* ``rust``: ``rust.web.test/std/…/<kind>.<name>.html`` (struct, enum, trait, fn, macro, union,
  type, constant) titled ``<name> in std::… - Rust`` → the item name;
* ``cmake``: ``cmake.web.test/command/<c>.html`` titled ``<c> — CMake …`` → the command;
* ``postgres``: ``postgres.web.test/sql-<x>.html`` → its title, the SQL command (``CREATE TABLE``);
* ``erlang``: ``erlang.web.test/…/doc/html/<m>.html`` titled ``Erlang -- <m>`` → the module name.

A name is kept only if it names exactly one reference page over all sources (case-insensitive), so
every query has one right answer (``rust``: the same path under ``core/`` and ``alloc/``, where rustdoc
documents the same item again, is accepted too). The query is the name as written. From each source,
in an order shuffled with ``--seed``, names are taken whose page is in the index (``Broker.explain``
finds it), round-robin over the sources: 100 queries over the six sources are 17, 17, 17, 17, 16, 16
(a source that runs out — ``--quick``'s small crawl has no rust or erlang reference pages — leaves
its turns to the others). git.web.test's command pages (``git-<cmd>.html``) would be a natural source, but its
robots.txt answers HTTP 500, which Gossamer obeys as "disallow all" (RFC 9309): not crawled.

Topical queries (issue 20): as many again, over the same reference pages, described in other words than
the title by the rule of :mod:`bench.topical_queries`; ``kind`` tells them apart and every metric is
also reported per kind and per host (source). A topical query also accepts its *equivalent pages* (rule 4
there: the pages from which the same rule could have drawn the very same query, e.g. the 64 atomic
intrinsics whose descriptions share "stabilized … passing … ordering"); each run's ``target_only`` figures
count the target page alone. The ``nutch_links`` variant inverts links with Nutch's
``linkdb.ignore.internal.links=true``; the ``anchors_per_site_2`` run searches the ``anchors`` index with
``--per-site 2`` (batch mode groups by site only when asked, since issue 20).

Static rank (issue 18): three more work crawls with anchors — ``static_none``
(``index.static.rank=none``), ``linkrank`` (``webgraph`` and ``linkrank`` with Nutch's defaults, which
ignore links inside a host or domain, then ``index.static.rank=linkrank``) and ``linkrank_internal``
(the same with ``link.ignore.internal.host/.domain=false``) and ``linkrank_all`` (also
``link.ignore.limit.page/.domain=false``: every link counts); ``anchors`` is the OPIC row.

Runs: ``gossamer search -d <crawl> --topics topics.tsv --run run-<variant>.txt -n 10`` (measured
steps), default settings: batch mode, no site grouping. Metrics, computed
here (:func:`evaluate`; exact, no library): for each query the rank r of the first acceptable URL in
the run's top 10 (none: 0 credit); RR@10 = 1/r; MRR@10 = mean RR@10 over all 100 queries (queries
without a hit count 0); success@k = share of queries with an acceptable URL at rank <= k (k = 1, 10).
Topics, qrels (TREC ``qid 0 url 1``) and both runs are written to ``bench/results/relevance/``
(overwritten each run, git-ignored) and the queries with their ranks go into the JSON result.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import RESULTS_DIR, BenchOptions
from bench.doc_index import ANCHOR_SETTINGS, cache_untouched_check, cached_crawl, crawl_facts, index_steps, work_crawl
from bench.inject_bench import gossamer_executable
from bench.search_bench import parsed_pages
from bench.steps import StepRunner, work_dir
from bench.topical_queries import make_queries, topical_pool
from gossamer.index.analysis import is_stem_field

NAME: str = "relevance"
DESCRIPTION: str = ("MRR@10 / success@1,10 of 100 navigational (API names) and 100 topical (described in other "
                    "words) queries, per kind and host, over anchor, linkdb and static-rank variants")
QUERIES, QUICK_QUERIES = 100, 30
DEPTH: int = 10
OUT_DIR: Path = RESULTS_DIR / "relevance"
RUST_KINDS = "struct|enum|trait|fn|macro|union|type|constant"
SOURCES: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {
    "python": (re.compile(r"^http://python\.web\.test:8080/library/(?P<n>[A-Za-z0-9_.]+)\.html$"),
               re.compile(r"^(?P<n>[A-Za-z0-9_.]+) — ")),
    "java": (re.compile(r"^http://java\.web\.test:8080/[a-z0-9.]+/(?!.*/class-use/)[a-z0-9_/]+/(?P<n>[A-Z][A-Za-z0-9_.]*)"
                        r"\.html$"),
             re.compile(r"^(?P<n>[A-Z][A-Za-z0-9_.]*) \(Java SE 17 & JDK 17\)$")),
    "rust": (re.compile(rf"^http://rust\.web\.test:8080/std/(?:[a-z0-9_]+/)*(?:{RUST_KINDS})\.(?P<n>[A-Za-z0-9_]+)"
                        r"\.html$"),
             re.compile(r"^(?P<n>[A-Za-z0-9_]+) in std(?:::[a-z0-9_]+)* - Rust$")),
    "cmake": (re.compile(r"^http://cmake\.web\.test:8080/command/(?P<n>[a-z_]+)\.html$"),
              re.compile(r"^(?P<n>[a-z_]+) — CMake ")),
    "postgres": (re.compile(r"^http://postgres\.web\.test:8080/sql-[a-z-]+\.html$"),
                 re.compile(r"^(?P<n>[A-Z][A-Z ]*[A-Z])$")),
    "erlang": (re.compile(r"^http://erlang\.web\.test:8080/(?:lib/[a-z_]+-[\d.]+/|erts-[\d.]+/)doc/html/(?P<n>[a-z_0-9]+)"
                          r"\.html$"),
               re.compile(r"^Erlang -- (?P<n>[a-z_0-9]+)$")),
}
"""Per source: (URL pattern, title pattern); both must match, and where the URL names the page
(``n``), URL and title must agree."""


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[relevance] {message}", file=sys.stderr, flush=True)


def candidates(pages: list[tuple[str, str]]) -> dict[str, list[dict[str, Any]]]:
    """Reference pages with an unambiguous name, per source: ``{"name", "url", "accept": [urls]}``."""
    found: list[tuple[str, str, str]] = []
    for url, title in pages:
        for source, (url_rule, title_rule) in SOURCES.items():
            mu = url_rule.match(url)
            mt = title_rule.match(title.strip()) if mu else None
            if not mu or not mt:
                continue
            name = mt.group("n")
            if "n" in mu.groupdict() and mu.group("n") != name:
                continue
            found.append((source, name, url))
    count: dict[str, int] = defaultdict(int)
    for _, name, _ in found:
        count[name.lower()] += 1
    out: dict[str, list[dict[str, Any]]] = {s: [] for s in SOURCES}
    for source, name, url in found:
        if count[name.lower()] != 1:
            continue
        accept = [url]
        if source == "rust":
            accept += [url.replace("/std/", f"/{crate}/", 1) for crate in ("core", "alloc")]
        out[source].append({"name": name, "url": url, "accept": accept})
    for items in out.values():
        items.sort(key=lambda c: c["url"])
    return out


def draw(pool: dict[str, list[dict[str, Any]]], total: int, seed: int, indexed: Any,
         kind: str = "navigational") -> list[dict[str, Any]]:
    """``total`` queries of ``kind`` taken round-robin over the sources (in :data:`SOURCES` order).

    Each source's candidates are shuffled with ``seed``; in its turn a source gives its next
    candidate whose page ``indexed(url, name)`` confirms. A source that runs out drops out of the
    rotation, so 100 queries over six full sources are 17, 17, 17, 17, 16, 16. Query ids are
    ``N001``… (navigational) or ``T001``… (topical).
    """
    rng = random.Random(seed)
    orders: dict[str, list[dict[str, Any]]] = {}
    for source in SOURCES:
        items = list(pool[source])
        rng.shuffle(items)
        orders[source] = items
    chosen: list[dict[str, Any]] = []
    live = [s for s in SOURCES if orders[s]]
    while len(chosen) < total and live:
        for source in list(live):
            if len(chosen) == total:
                break
            while orders[source]:
                item = orders[source].pop(0)
                if indexed(item["url"], item["name"]):
                    chosen.append({"source": source, "kind": kind, **item})
                    break
            if not orders[source]:
                live.remove(source)
    chosen.sort(key=lambda item: list(SOURCES).index(item["source"]))
    for i, item in enumerate(chosen, start=1):
        item["qid"] = f"{kind[0].upper()}{i:03d}"
    return chosen


def read_run(path: Path) -> dict[str, list[str]]:
    """TREC run lines ``qid Q0 url rank score tag`` → qid → URLs by rank."""
    ranked: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) >= 6:
            ranked[parts[0]].append((int(parts[3]), parts[2]))
    return {qid: [u for _, u in sorted(items)] for qid, items in ranked.items()}


def evaluate(queries: list[dict[str, Any]], run: dict[str, list[str]], depth: int = DEPTH,
             field: str = "accept") -> dict[str, Any]:
    """MRR@depth, success@1 and success@depth over all queries, per kind and per host (source); ranks per qid.

    Each source is one host (``python`` = python.web.test …); a query without a ``kind`` is navigational.
    A query's acceptable URLs are its ``field`` (``target_accept``: the target page alone, without the
    equivalent pages of a topical query), else its ``accept``. ``by_half`` splits the queries into the
    tuning and the held-out half (:func:`by_half`).
    """
    ranks: dict[str, int | None] = {}
    for q in queries:
        accept = set(q.get(field) or q["accept"])
        ranks[q["qid"]] = next((i for i, u in enumerate(run.get(q["qid"], [])[:depth], start=1) if u in accept), None)
    n = len(queries)

    def summary(qids: list[str]) -> dict[str, Any]:
        m = len(qids)
        return {"queries": m,
                f"mrr@{depth}": round(sum(1 / ranks[q] for q in qids if ranks[q]) / m, 4) if m else None,
                "success@1": round(sum(1 for q in qids if ranks[q] == 1) / m, 4) if m else None,
                f"success@{depth}": round(sum(1 for q in qids if ranks[q]) / m, 4) if m else None}

    def by_host(items: list[dict[str, Any]]) -> dict[str, Any]:
        groups: dict[str, list[str]] = defaultdict(list)
        for q in items:
            groups[q["source"]].append(q["qid"])
        return {s: summary(qids) for s, qids in groups.items()}

    kinds: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in queries:
        kinds[q.get("kind", "navigational")].append(q)
    return {**summary([q["qid"] for q in queries]), "answered": sum(1 for q in queries if run.get(q["qid"])),
            "by_kind": {k: {**summary([q["qid"] for q in items]), "by_host": by_host(items)}
                        for k, items in kinds.items()},
            "by_host": by_host(queries), "by_half": by_half(queries, summary), "ranks": ranks, "n": n}


def by_half(queries: list[dict[str, Any]], summary: Callable[[list[str]], dict[str, Any]]) -> dict[str, Any]:
    """``summary`` of the *tuning* half (odd query numbers: ``N001``, ``T001`` …) and the *held-out* half (even).

    Ranking parameters (the field boosts, the description factor, the semantic fusion) are chosen on the
    tuning half only; the held-out half shows what that choice does on queries it never saw.
    """
    out: dict[str, Any] = {}
    for half, parity in (("tuning", 1), ("held_out", 0)):
        kinds: dict[str, list[str]] = defaultdict(list)
        for q in queries:
            if int(q["qid"][1:]) % 2 == parity:
                kinds[q.get("kind", "navigational")].append(q["qid"])
        out[half] = {**summary([qid for qids in kinds.values() for qid in qids]),
                     "by_kind": {kind: summary(qids) for kind, qids in kinds.items()}}
    return out


def _summary(metrics: dict[str, Any]) -> dict[str, Any]:
    """The overall and per-kind figures of :func:`evaluate`'s answer, without hosts and ranks."""
    figures = (f"mrr@{DEPTH}", "success@1", f"success@{DEPTH}", "queries")
    return {**{k: metrics[k] for k in figures},
            "by_kind": {kind: {k: m[k] for k in figures} for kind, m in metrics["by_kind"].items()},
            "by_half": metrics["by_half"]}


def _indexed_checker(crawl: Path) -> Any:
    """``indexed(url, name)``: whether the crawl's index holds the page (``Broker.explain`` finds it).

    Also returns the broker (to close) and, per ``url<TAB>query`` of an indexed page, whether the page
    matches its query at all (``matches`` of the explanation; recorded, not used to choose).
    """
    from gossamer.core.settings import load_settings
    from gossamer.search.searcher import open_searcher

    broker = open_searcher(crawl, load_settings(crawl, env=os.environ))
    matches: dict[str, bool] = {}

    def indexed(url: str, name: str) -> bool:
        answer = broker.explain(url, name)
        if answer is not None:
            matches[f"{url}\t{name}"] = bool(answer.get("matches"))
        return answer is not None

    return indexed, broker, matches


def _write_files(queries: list[dict[str, Any]]) -> tuple[Path, Path]:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / ".gitignore").write_text("*\n")
    topics, qrels = OUT_DIR / "topics.tsv", OUT_DIR / "qrels.txt"
    topics.write_text("".join(f"{q['qid']}\t{q['name']}\n" for q in queries), encoding="utf-8")
    qrels.write_text("".join(f"{q['qid']} 0 {u} 1\n" for q in queries for u in q["accept"]), encoding="utf-8")
    return topics, qrels


NUTCH_LINKS: dict[str, Any] = {"linkdb.ignore.internal.links": True}
"""The ``nutch_links`` variant: Nutch's linkdb default, links inside a host give no anchor text."""
GROUPED: str = "anchors_per_site_2"
"""The run of the ``anchors`` index with ``--per-site 2``: batch ranking as it was before issue 20."""

STATIC_RANKS: dict[str, dict[str, Any]] = {
    "static_none": {"index.static.rank": "none"},
    "linkrank": {"index.static.rank": "linkrank"},
    "linkrank_internal": {"index.static.rank": "linkrank", "link.ignore.internal.host": False,
                          "link.ignore.internal.domain": False},
    "linkrank_all": {"index.static.rank": "linkrank", "link.ignore.internal.host": False,
                     "link.ignore.internal.domain": False, "link.ignore.limit.page": False,
                     "link.ignore.limit.domain": False},
}
"""Static-rank variants (each with anchors, like ``anchors``, whose static rank is OPIC's): none; LinkRank of
the graph built with Nutch's defaults (links inside a host or domain ignored); LinkRank with them kept (but
one counted inlink per source domain, Nutch's ``link.ignore.limit.domain``); LinkRank with every link counted."""

RANKING_OPTIONS: dict[str, dict[str, Any]] = {
    "semantic": {"search.semantic": True},
    "soft": {"query.soft": True},
    "stemmed": {"index.analysis.fields": ["title", "anchor", "content"], "query.stem.boost": 0.5},
    "stemmed_soft": {"index.analysis.fields": ["title", "anchor", "content"], "query.stem.boost": 0.5,
                     "query.soft": True},
    "opening_repeats": {"opening.distinct.words": False},
    "unstemmed": {"index.analysis.fields": [], "query.stem.boost": 0.0},
}
"""Ranking options, each as ``anchors`` plus the option: ``soft`` matching (now the default) and
``stemmed`` shadow fields of ``title``, ``anchor`` and ``content`` (issue 20 points 2–3; the default stems
``title`` and ``opening``), and both (``stemmed_soft``); ``unstemmed``: no stemming (as before 2026-11-27);
``semantic``: hybrid semantic ranking (point 4): page vectors in the index and the nearest pages fused with
the text ranking (the fusion settings' defaults; ``bench.semantic_tune`` chooses them on one half of the
queries). Its ``index`` step measures indexing with embeddings; ``index_bytes_per_page`` the size.
``opening_repeats``: the opening field as written (a repeated word counts again) instead of each word once."""


QUERY_VARIANTS: dict[str, dict[str, Any]] = {
    "no_opening": {"query.opening.boost": 0.0},
    "no_names": {"query.name.boost": 1.0},
    "no_opening_no_names": {"query.opening.boost": 0.0, "query.name.boost": 1.0},
    "no_description_match": {"query.opening.all.boost": 1.0},
}
"""Query-time variants, run on the ``anchors`` index with ``-D``: the opening field not scored (it still
matches; no description match either), no name matching, neither, and no description match (a page whose
opening holds every query word not multiplied; issue 20: what each part of the ranking brings)."""


def _bytes_per_page(index: Path) -> float | None:
    """Bytes of the live index version per indexed page (``None`` without one)."""
    live = index / "current"
    try:
        docs = json.loads((live / "_index.json").read_text(encoding="utf-8"))["docs"]
    except (OSError, ValueError, KeyError):
        return None
    size = sum(f.stat().st_size for f in live.rglob("*") if f.is_file())
    return round(size / docs, 1) if docs else None


def _index_applies(index: Path, settings: dict[str, Any]) -> bool:
    """Whether the live index of ``index`` has the shadow fields of ``index.analysis.fields`` and the page
    vectors of ``search.semantic`` when ``settings`` ask for them (a variant that silently indexed as the
    defaults would measure nothing)."""
    live = index / "current"
    try:
        fields = {f if isinstance(f, str) else f.get("name")
                  for f in json.loads((live / "_index.json").read_text(encoding="utf-8"))["fields"]}
    except (OSError, ValueError, KeyError, AttributeError):
        return False
    stemmed = all(any(isinstance(f, str) and is_stem_field(f) and f.startswith(f"{name}_stem") for f in fields)
                  for name in settings.get("index.analysis.fields", []))
    vectors = not settings.get("search.semantic") or any(live.rglob("vectors.npy"))
    return stemmed and vectors


def link_analysis(setup: StepRunner, crawl: Path, variant: str, facts: dict[str, Any]) -> bool:
    """``webgraph`` then ``linkrank`` over the work crawl (settings from its ``gossamer.toml``).

    A graph without nodes (every link ignored by the settings) is recorded in ``facts`` and not
    scored: the index then gives every page the score of a page outside the graph.
    """
    gossamer = gossamer_executable()
    built = setup.step(f"{variant}_webgraph", [gossamer, "webgraph", "-d", str(crawl), "--json"])
    if built is None:
        return False
    report = json.loads(built.stdout)
    facts[variant] = {key: report.get(key) for key in ("nodes", "outlinks", "inlinks", "counters")}
    if not report.get("nodes"):
        return True
    ranked = setup.step(f"{variant}_linkrank", [gossamer, "linkrank", "-d", str(crawl), "--json"])
    if ranked is not None:
        facts[variant]["linkrank"] = {key: json.loads(ranked.stdout).get(key)
                                      for key in ("links", "iterations", "top_score", "seconds")}
    return ranked is not None


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the benchmark in a fresh directory under ``opts.workdir`` (the crawl is cached elsewhere)."""
    total = opts.urls or (QUICK_QUERIES if opts.quick else QUERIES)
    if opts.outlinks:
        from bench.relevance_outlinks import run_caps  # imports this module

        return run_caps(opts, total)
    with work_dir(opts, NAME, log) as work:
        setup = StepRunner(work / "logs", 0, log)
        result: dict[str, Any] = {"params": {"queries": total, "depth": DEPTH, "seed": opts.seed, "quick": opts.quick,
                                             "sources": {s: [p.pattern for p in rules] for s, rules in SOURCES.items()},
                                             "gossamer": gossamer_executable(),
                                             "workdir": str(work) if opts.keep else None}}
        empty = {"steps": {}, "goals": []}
        cache = cached_crawl(opts, setup, log)
        if cache is None:
            return {**result, **empty, "setup": setup.steps, "checks": setup.checks}
        result["crawl"] = crawl_facts(cache)
        crawls = {"anchors": work_crawl(cache, work / "crawl-anchors", ANCHOR_SETTINGS),
                  "no_anchors": work_crawl(cache, work / "crawl-no-anchors",
                                           {**ANCHOR_SETTINGS, "plugin.excludes": "index-anchor"})}
        crawls.update({variant: work_crawl(cache, work / f"crawl-{variant}", {**ANCHOR_SETTINGS, **extra})
                       for variant, extra in {**STATIC_RANKS, **RANKING_OPTIONS}.items()})
        crawls["nutch_links"] = work_crawl(cache, work / "crawl-nutch-links", NUTCH_LINKS)
        built = {"anchors": index_steps(setup, crawls["anchors"], prefix="anchors_", extra_defines=ANCHOR_SETTINGS),
                 "nutch_links": index_steps(setup, crawls["nutch_links"], prefix="nutch_links_",
                                            extra_defines=NUTCH_LINKS)}
        graphs: dict[str, Any] = {}
        result["graphs"] = graphs
        for variant in ("no_anchors", *STATIC_RANKS, *RANKING_OPTIONS):
            if "linkrank" in variant and not link_analysis(setup, crawls[variant], variant, graphs):
                built[variant] = {"ok": False}
                continue
            built[variant] = index_steps(setup, crawls[variant], prefix=f"{variant}_",
                                         linkdb=crawls["anchors"] / "linkdb")
        result["indexes"] = {k: v.get("index") for k, v in built.items()}
        result["index_bytes_per_page"] = {k: _bytes_per_page(crawls[k] / "index")
                                          for k in ("anchors", *RANKING_OPTIONS)}
        result["linkdb"] = built["anchors"].get("linkdb")
        if not all(b["ok"] for b in built.values()):
            return {**result, **empty, "setup": setup.steps, "checks": setup.checks}

        drawn = draw_queries(setup, crawls["anchors"], total, opts.seed, work)
        if drawn is None:
            return {**result, **empty, "setup": setup.steps, "checks": setup.checks}
        queries = drawn["queries"]
        result["candidates"], result["topical_candidates"] = drawn["candidates"], drawn["topical_candidates"]
        run_ = StepRunner(work / "logs", len(queries), log)
        runs = {variant: (crawl, []) for variant, crawl in crawls.items()}
        runs[GROUPED] = (crawls["anchors"], ["--per-site", "2"])
        for variant, values in QUERY_VARIANTS.items():
            runs[variant] = (crawls["anchors"], [arg for k, v in values.items() for arg in ("-D", f"{k}={v}")])
        metrics = search_runs(run_, drawn, runs, total, result)
        for variant, extra in RANKING_OPTIONS.items():
            run_.check(f"{variant}_index_applies", _index_applies(crawls[variant] / "index", extra),
                       f"the {variant} index has the fields its settings ask for: {sorted(extra)}")
        cache_untouched_check(run_, cache)
        a, b = metrics.get("anchors", {}), metrics.get("no_anchors", {})
        key = f"mrr@{DEPTH}"
        if a.get(key) is not None and b.get(key):
            result["ratios"] = {"mrr_anchors_vs_no_anchors": round(a[key] / b[key], 3)}
        none = metrics.get("static_none", {})
        for variant in ("anchors", *(v for v in STATIC_RANKS if v.startswith("linkrank"))):
            if none.get(key) and metrics.get(variant, {}).get(key) is not None:
                name = "opic" if variant == "anchors" else variant
                result.setdefault("ratios", {})[f"mrr_{name}_vs_no_static_rank"] = round(
                    metrics[variant][key] / none[key], 3)
        result.update({"setup": setup.steps, "steps": run_.steps, "checks": setup.checks + run_.checks,
                       "goals": []})
        return result


def draw_queries(setup: StepRunner, crawl: Path, total: int, seed: int, work: Path) -> dict[str, Any] | None:
    """The measured ``draw_queries`` step over ``crawl`` (:func:`main`'s ``draw``): its JSON answer, None on failure."""
    drawn_file = work / "queries.json"
    made = setup.step("draw_queries", [sys.executable, "-m", "bench.relevance_bench", "draw",
                                       str(crawl), str(total), str(seed), str(drawn_file)])
    return None if made is None else json.loads(drawn_file.read_text(encoding="utf-8"))


def search_runs(run_: StepRunner, drawn: dict[str, Any], runs: dict[str, tuple[Path, list[str]]], total: int,
                result: dict[str, Any]) -> dict[str, Any]:
    """Search every run's crawl with the drawn queries (one measured step per run) and score it.

    ``runs``: variant → (work crawl, extra ``gossamer search`` arguments). Writes the topics, qrels and
    runs (:data:`OUT_DIR`), puts ``files``, ``queries`` (each with its rank per variant) and ``metrics``
    (:func:`evaluate`, with ``target_only``) into ``result`` and records the ``queries_drawn`` and
    ``<variant>_answered`` checks in ``run_``. Returns the metrics.
    """
    queries, matches = drawn["queries"], drawn["matches"]
    topics, qrels = _write_files(queries)
    log(f"{len(queries)} queries from {drawn['candidates']}; topics {topics}, qrels {qrels}")
    metrics: dict[str, Any] = {}
    for variant, (crawl, extra) in runs.items():
        out = OUT_DIR / f"run-{variant}.txt"
        m = run_.step(variant, [gossamer_executable(), "search", "-d", str(crawl), "--topics", str(topics),
                                "--run", str(out), "-n", str(DEPTH), "--tag", variant, *extra])
        run_.steps.get(variant, {}).pop("urls_per_s", None)
        if m is not None:
            metrics[variant] = evaluate(queries, read_run(out))
            metrics[variant]["target_only"] = _summary(evaluate(queries, read_run(out), field="target_accept"))
    result["files"] = {"topics": str(topics), "qrels": str(qrels),
                       "runs": {v: str(OUT_DIR / f"run-{v}.txt") for v in runs}}
    result["queries"] = [{"qid": q["qid"], "source": q["source"], "query": q["name"], "accept": q["accept"],
                          "kind": q["kind"], "equivalents": q.get("equivalents", []),
                          "target_matches_query": matches.get(f"{q['url']}\t{q['name']}"),
                          **{f"rank_{v}": metrics[v]["ranks"].get(q["qid"]) for v in metrics}} for q in queries]
    for v in metrics:
        metrics[v].pop("ranks")
    result["metrics"] = metrics
    run_.check("queries_drawn", len(queries) == 2 * total, f"{len(queries)} of {2 * total} queries drawn "
               f"(candidates per source: {drawn['candidates']}, topical: {drawn['topical_candidates']})")
    for v, m in metrics.items():
        run_.check(f"{v}_answered", m["answered"] == len(queries),
                   f"{m['answered']} of {len(queries)} queries with results")
    return metrics


def main(argv: list[str]) -> None:
    """``python -m bench.relevance_bench draw CRAWL COUNT SEED OUT``: the queries, as JSON.

    Reads the parsed pages of ``CRAWL/segments``, keeps the reference pages (:func:`candidates`) and
    draws ``COUNT`` navigational queries (seed ``SEED``) and ``COUNT`` topical ones (descriptions by
    :mod:`bench.topical_queries` with seed ``SEED``, drawn with ``SEED + 1``) whose pages ``CRAWL``'s
    index holds (:func:`draw`). Run as a subprocess so the benchmark's own process stays small
    (measured steps inherit its RSS in ``ru_maxrss``).
    """
    if len(argv) != 5 or argv[0] != "draw":
        raise SystemExit("usage: python -m bench.relevance_bench draw CRAWL COUNT SEED OUT")
    crawl, count, seed = Path(argv[1]), int(argv[2]), int(argv[3])
    pages = parsed_pages(crawl / "segments")
    pool = candidates(pages)
    topical = make_queries(topical_pool(crawl / "segments", pool, dict(pages)), seed)
    indexed, broker, matches = _indexed_checker(crawl)
    try:
        queries = draw(pool, count, seed, indexed) + draw(topical, count, seed + 1, indexed, "topical")
    finally:
        broker.close()
    Path(argv[4]).write_text(json.dumps({"queries": queries, "matches": matches,
                                         "candidates": {s: len(items) for s, items in pool.items()},
                                         "topical_candidates": {s: len(items) for s, items in topical.items()}},
                                        ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
