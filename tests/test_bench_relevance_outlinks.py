"""The plumbing of ``scripts/bench relevance --outlinks``: caps parsed, passed on, crawled and cached apart."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest
from bench import BenchOptions, relevance_bench, relevance_outlinks
from bench.__main__ import parse_args
from bench.doc_index import MARKER, cached_crawl, crawl_params, inventory
from bench.relevance_outlinks import parse_caps, reach, variant_name
from bench.steps import StepRunner


def _opts(tmp_path: Path, outlinks: tuple[int, ...] = ()) -> BenchOptions:
    return BenchOptions(quick=False, urls=None, hosts=None, seed=42, workdir=tmp_path, keep=False,
                        outlinks=outlinks)


def test_caps_are_sorted_distinct_and_always_end_with_every_link() -> None:
    assert parse_caps("1000,100") == (100, 1000, -1)
    assert parse_caps("100, 100,-1") == (100, -1)
    assert parse_caps("-1") == (-1,)
    for bad in ("0", "-5", "ten", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_caps(bad)
    assert [variant_name(c) for c in parse_caps("100")] == ["outlinks_100", "outlinks_all"]


def test_the_command_line_passes_the_caps_to_the_benchmark() -> None:
    assert parse_args(["relevance", "--outlinks", "100,1000"]).outlinks == (100, 1000, -1)
    assert parse_args(["relevance"]).outlinks == ()


def test_relevance_runs_the_outlinks_mode_when_caps_are_given(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[tuple[int, ...], int]] = []

    def fake(opts: BenchOptions, total: int) -> dict[str, Any]:
        seen.append((opts.outlinks, total))
        return {"steps": {}, "checks": [], "goals": []}

    monkeypatch.setattr(relevance_outlinks, "run_caps", fake)
    relevance_bench.run(_opts(tmp_path, (100, -1)))
    assert seen == [((100, -1), relevance_bench.QUERIES)]


def test_a_capped_crawl_differs_only_by_its_cap_and_is_cached_apart(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCH_MAX_OUTLINKS", raising=False)
    every, capped = crawl_params(False), crawl_params(False, 100)
    assert every["settings"]["db.max.outlinks.per.page"] == -1 and crawl_params(False, -1) == every
    assert capped["settings"] == {**every["settings"], "db.max.outlinks.per.page": 100}
    assert {k: v for k, v in capped.items() if k not in ("kind", "settings")} == \
        {k: v for k, v in every.items() if k not in ("kind", "settings")}
    assert (every["kind"], capped["kind"]) == ("full", "full-outlinks100")
    monkeypatch.setenv("BENCH_MAX_OUTLINKS", "100")
    assert crawl_params(False) == capped  # the older way to ask for it

    # A complete capped crawl under $BENCH_OUTLINKS_CACHE is reused from there, not crawled again.
    monkeypatch.delenv("BENCH_MAX_OUTLINKS")
    monkeypatch.setenv("BENCH_CACHE", str(tmp_path / "usual"))
    monkeypatch.setenv("BENCH_OUTLINKS_CACHE", str(tmp_path / "capped"))
    crawl = tmp_path / "capped" / "doc-full-outlinks100" / "crawl"
    for sub in ("crawldb", "segments/s1"):
        (crawl / sub).mkdir(parents=True)
        (crawl / sub / "part-0.parquet").write_bytes(b"x" * 10)
    (crawl / MARKER).write_text(json.dumps({"params": capped, "inventory": inventory(crawl), "pages": 2,
                                            "created_utc": "2026-11-27T00:00:00+00:00"}))
    setup = StepRunner(tmp_path / "logs", 0, lambda _: None)
    cache = cached_crawl(_opts(tmp_path), setup, lambda _: None, cap=100)
    assert cache is not None and cache.reused and cache.crawl == crawl
    assert setup.steps == {}


def test_reach_names_the_queries_whose_pages_the_crawl_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pages = [("http://a.web.test:8080/x.html", "x"), ("http://a.web.test:8080/y.html", "y"),
             ("http://b.web.test:8080/z.html", "z")]
    closed: list[bool] = []

    class Broker:
        def close(self) -> None:
            closed.append(True)

    def checker(crawl: Path) -> tuple[Any, Broker, dict[str, bool]]:
        return (lambda url, name: url in {u for u, _ in pages}), Broker(), {}

    monkeypatch.setattr(relevance_outlinks, "parsed_pages", lambda segments: pages)
    monkeypatch.setattr(relevance_outlinks, "_indexed_checker", checker)
    queries = [{"qid": "N001", "name": "x", "url": pages[0][0], "accept": [pages[0][0]]},
               {"qid": "T001", "name": "w", "url": "http://a.web.test:8080/w.html",
                "accept": ["http://a.web.test:8080/w.html", pages[1][0]]},
               {"qid": "T002", "name": "v", "url": "http://b.web.test:8080/v.html",
                "accept": ["http://b.web.test:8080/v.html"]}]
    answer = reach(tmp_path, queries)
    assert answer == {"pages": 3, "pages_by_host": {"a.web.test": 2, "b.web.test": 1},
                      "targets_lost": ["T001", "T002"], "all_accepted_lost": ["T002"]}
    assert closed == [True]


def test_the_reach_prediction_keeps_each_pages_first_links_for_the_crawls_rounds() -> None:
    from bench.outlink_reach import by_host, reached

    links = {"http://a/": ["http://a/1", "http://a/2", "http://a/3"], "http://a/1": ["http://a/4"],
             "http://a/2": [], "http://a/3": ["http://a/5"], "http://a/4": [], "http://a/5": [],
             "http://b/doc/": ["http://b/x"], "http://b/x": []}
    moved = {"http://b/": "http://b/doc/"}
    seeds = ["http://a/", "http://b/", "http://c/"]  # c: neither parsed nor redirected
    assert reached(links, moved, seeds, -1, 3) == set(links)
    assert reached(links, moved, seeds, 1, 3) == {"http://a/", "http://a/1", "http://a/4", "http://b/doc/",
                                                  "http://b/x"}
    assert reached(links, moved, seeds, 0, 3) == {"http://a/", "http://b/doc/"}
    assert reached(links, moved, seeds, -1, 1) == {"http://a/", "http://b/doc/"}
    assert by_host(reached(links, moved, seeds, 2, 2)) == {"a": 3, "b": 2}
