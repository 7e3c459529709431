"""The crawl benchmark's alternating pairs: their order, each pair's CPU-per-page ratio, and their median."""

from __future__ import annotations

from bench.crawl_pairs import median_ratio, more_pairs, pair_order, pair_ratios


def test_pairs_alternate_which_crawler_runs_first_and_count_only_whole_pairs() -> None:
    calls: list[str] = []

    def run_one(crawler: str, name: str) -> bool:
        calls.append(name)
        return name != "wget_pair3"  # pair 3's wget saved nothing

    assert more_pairs(4, run_one) == ["_pair1", "_pair2", "_pair4"]
    assert calls == ["wget_pair1", "gossamer_crawl_pair1", "gossamer_crawl_pair2", "wget_pair2",
                     "wget_pair3", "gossamer_crawl_pair3", "gossamer_crawl_pair4", "wget_pair4"]
    assert pair_order(1) == ("wget", "gossamer_crawl") and pair_order(2) == ("gossamer_crawl", "wget")
    assert more_pairs(0, run_one) == []


def _step(ms: float, pages: int = 1000) -> dict[str, float]:
    return {"cpu_ms_per_page": ms, "pages": pages, "cpu_s": ms * pages / 1000}


def test_each_pair_is_its_own_ratio_and_the_goal_reads_their_median() -> None:
    steps = {"gossamer_crawl": _step(2.15), "wget": _step(1.74),                  # 1.236
             "gossamer_crawl_pair1": _step(2.4), "wget_pair1": _step(2.4),        # 1.0
             "gossamer_crawl_pair2": _step(2.55), "wget_pair2": _step(3.17),      # 0.804
             "gossamer_crawl_pair3": _step(2.0), "wget_pair3": {"error": "x"}}    # no ratio
    pairs = pair_ratios(steps, ["", "_pair1", "_pair2", "_pair3"])
    assert [p["pair"] for p in pairs] == ["_pair0", "_pair1", "_pair2"]
    assert [p["ratio"] for p in pairs] == [1.236, 1.0, 0.804]
    assert pairs[0]["gossamer_cpu_ms_per_page"] == 2.15 and pairs[0]["wget_pages"] == 1000
    assert median_ratio(pairs) == 1.0
    assert median_ratio(pairs[:2]) == 1.118
    assert median_ratio([]) is None


def test_cpu_per_mebibyte_reads_the_bytes_the_crawler_received() -> None:
    from bench.crawl_bench import _cpu_ms_per_mb

    step = {"cpu_s": 36.38}
    assert _cpu_ms_per_mb(step, {"traffic": {"bytes": 795_200_912}}) == 47.97
    assert step["cpu_ms_per_mb"] == 47.97
    assert _cpu_ms_per_mb({"cpu_s": 1.0}, {"traffic": {}}) is None
    assert _cpu_ms_per_mb({}, {"traffic": {"bytes": 10}}) is None
