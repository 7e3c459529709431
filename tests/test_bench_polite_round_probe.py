"""bench.polite_round_probe: one more round of a polite crawl, with the polite benchmark's command line."""

from __future__ import annotations

from pathlib import Path

from bench.polite_bench import crawl_settings, threads_for, top_n_for
from bench.polite_round_probe import round_argv


def test_one_round_without_seeds_and_the_benchmarks_settings() -> None:
    argv = round_argv("gossamer", Path("/w/crawl"), 5_000)
    assert argv[:6] == ["gossamer", "crawl", "-d", "/w/crawl", "-r", "1"]
    assert argv[argv.index("-topN") + 1] == str(top_n_for(5_000))
    assert argv[argv.index("-threads") + 1] == str(threads_for(5_000))
    settings = dict(argv[i + 1].split("=", 1) for i, word in enumerate(argv) if word == "-D")
    assert settings == {key: str(value) for key, value in crawl_settings(5_000, 5.0).items()}
    assert settings["fetcher.queue.readahead"] == "100000" and settings["fetcher.server.delay"] == "5.0"


def test_the_rate_goal_is_not_rounded_up() -> None:
    from bench.polite_bench import pct_of_limit

    assert pct_of_limit({"rate_middle": 947.1, "limit": 980.0, "pct_of_limit": 97}) == 96.6
    assert pct_of_limit({"rate_middle": 955.0, "limit": 980.0, "pct_of_limit": 97}) == 97.4
    assert pct_of_limit({"rate_middle": None, "limit": 980.0, "pct_of_limit": 97}) == 97


def test_extra_settings_override_the_benchmarks() -> None:
    argv = round_argv("gossamer", Path("/w/crawl"), 5_000, {"fetcher.turn.page.ms": "0", "fetcher.server.delay": "1"})
    settings = dict(argv[i + 1].split("=", 1) for i, word in enumerate(argv) if word == "-D")
    assert settings["fetcher.turn.page.ms"] == "0" and settings["fetcher.server.delay"] == "1"
