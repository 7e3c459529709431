"""The crawl benchmark's CPU comparison with wget: alternating pairs on the same pages, and wget's fixed work."""

from __future__ import annotations

from pathlib import Path

from bench.crawl_pairs import median_ratio, more_pairs, pair_order, pair_ratios


def test_pairs_alternate_which_crawler_runs_first_and_count_only_whole_pairs() -> None:
    calls: list[str] = []

    def run_one(crawler: str, name: str) -> bool:
        calls.append(name)
        return name != "wget_pair3"  # pair 3's wget saved nothing

    assert more_pairs(4, run_one) == ["_pair1", "_pair2", "_pair4"]
    assert calls == ["gossamer_same_pages_pair1", "wget_pair1", "wget_pair2", "gossamer_same_pages_pair2",
                     "gossamer_same_pages_pair3", "wget_pair3", "wget_pair4", "gossamer_same_pages_pair4"]
    # pair 0 runs wget first: Gossamer crawls the pages it saved
    assert pair_order(0) == ("wget", "gossamer_same_pages") and pair_order(1) == ("gossamer_same_pages", "wget")
    assert more_pairs(0, run_one) == []


def _step(ms: float, pages: int = 1000) -> dict[str, float]:
    return {"cpu_ms_per_page": ms, "pages": pages, "cpu_s": ms * pages / 1000}


def test_each_pair_is_its_own_ratio_and_the_goal_reads_their_median() -> None:
    steps = {"gossamer_same_pages": _step(2.15), "wget": _step(1.74),                  # 1.236
             "gossamer_same_pages_pair1": _step(2.4), "wget_pair1": _step(2.4),        # 1.0
             "gossamer_same_pages_pair2": _step(2.55), "wget_pair2": _step(3.17),      # 0.804
             "gossamer_same_pages_pair3": _step(2.0), "wget_pair3": {"error": "x"},    # no ratio
             "gossamer_crawl": _step(9.0)}                                             # not a pair
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


_WGET_LOG = """\
http://python.web.test:8080/robots.txt:
2026-11-28 19:14:56 ERROR 404: Not Found.
2026-11-28 19:14:56 URL:http://python.web.test:8080/ [13011/13011] -> "/m/python.web.test:8080/index.html" [1]
2026-11-28 19:14:56 URL:http://python.web.test:8080/about.html [12209/12209] -> "/m/python.web.test:8080/about.html" [1]
2026-11-28 19:15:00 URL:http://java.web.test:8080/robots.txt [124/124] -> "/m/java.web.test:8080/robots.txt.tmp" [1]
2026-11-28 19:15:01 URL: http://boost.web.test:8080/doc/html/ [900/900] -> "/m/boost.web.test:8080/index.html" [1]
FINISHED --2026-11-28 19:16:19--
Total wall clock time: 1m 23s
Downloaded: 4 files, 26K in 0.1s (260 MB/s)
Download quota of 700M EXCEEDED!
"""


def test_wget_log_gives_the_saved_pages_in_order_and_whether_the_quota_ended_the_run() -> None:
    from bench.peers import wget_counts, wget_quota_reached, wget_saved_pages

    assert wget_saved_pages(_WGET_LOG) == ["http://python.web.test:8080/", "http://python.web.test:8080/about.html",
                                           "http://boost.web.test:8080/doc/html/"]
    assert wget_counts(_WGET_LOG)["html_pages"] == 3 and wget_counts(_WGET_LOG)["responses_saved"] == 4
    assert wget_quota_reached(_WGET_LOG)
    stopped = _WGET_LOG.replace("Download quota of 700M EXCEEDED!\n", "")  # timeout ended it part way
    assert not wget_quota_reached(stopped)


def test_wget_ends_on_a_download_quota_with_timeout_only_as_a_safety_net(tmp_path: Path) -> None:
    from bench.peers import wget_argv

    argv = wget_argv(tmp_path / "seeds.txt", ["a.web.test", "b.web.test"], tmp_path / "m", 700, 600)
    assert argv[:4] == ["timeout", "600", "wget", "--mirror"] and "--quota=700m" in argv
    assert "--domains=a.web.test,b.web.test" in argv and f"--input-file={tmp_path / 'seeds.txt'}" in argv


def test_same_work_check_wants_the_quota_reached_and_equal_pages_every_time(tmp_path: Path) -> None:
    from bench.crawl_bench import _check_same_work, _Runner

    def checks(wget2: dict[str, object], ours2: int) -> dict[str, bool]:
        run = _Runner(tmp_path, 100, lambda _m: None)
        run.steps.update({"wget": {"quota_reached": True, "pages": 1000}, "gossamer_same_pages": {"pages": 993},
                          "wget_pair1": wget2, "gossamer_same_pages_pair1": {"pages": ours2}})
        _check_same_work(run, 1000, ["_pair1"])
        return {c["name"]: c["ok"] for c in run.checks}

    assert checks({"quota_reached": True, "pages": 1000}, 990) == {"wget_fixed_work": True,
                                                                    "gossamer_same_pages_stored": True}
    assert checks({"quota_reached": False, "pages": 870}, 990)["wget_fixed_work"] is False
    assert checks({"quota_reached": True, "pages": 1000}, 900)["gossamer_same_pages_stored"] is False
