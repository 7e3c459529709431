"""bench.crawl_cpu_probe: the crawl's phases from its stdout lines, and CPU attributed to them per process."""

from __future__ import annotations

import os
import sys

from bench.crawl_cpu_probe import _cpu, attribute, phases_of, run_sampled

LINES = [
    (10.0, "Injector: finished in 0.10 s"),
    (11.0, "== round 1 of 2"),
    (12.0, "Generator: finished in 0.50 s"),
    (20.0, "Fetcher: segment 1: 10 pages, 1 KB, 0 errors in 8.0 s (1.2 pages/s, 2 process(es))"),
    (21.0, "CrawlDb update: 1 segment(s); URLs updated: 5"),
    (21.5, "CrawlDb update: total URLs 5, finished in 0.40 s"),
    (22.0, "== round 2 of 2"),
    (22.5, "Generator: 0 records selected for fetching, exiting ..."),
]


def test_phases_follow_the_rounds() -> None:
    phases = phases_of(LINES, 0.0, 30.0)
    assert phases == [("startup+inject", 0.0), ("r1 generate", 11.0), ("r1 fetch", 12.0), ("r1 updatedb", 20.0),
                      ("r1 after", 21.5), ("r2 generate", 22.0), ("r2 fetch", 22.5)]


def test_cpu_growth_goes_to_the_phase_of_its_sample() -> None:
    phases = phases_of(LINES, 0.0, 30.0)
    procs = {
        1: {"parent": 0, "cmd": "gossamer crawl", "samples": [(5.0, 1.0), (11.5, 1.5), (25.0, 2.0)], "system": 0.2},
        2: {"parent": 1, "cmd": "python -c spawn_main", "samples": [(13.0, 0.5), (19.0, 4.5)]},
    }
    result = attribute(procs, phases, root=1)
    driver, fetch = result["table"]["1 driver"], result["table"]["2 python -c spawn_main"]
    assert driver == {"startup+inject": 1.0, "r1 generate": 0.5, "r2 fetch": 0.5}
    assert fetch == {"r1 fetch": 4.5}
    assert result["system"] == {"1 driver": 0.2, "2 python -c spawn_main": 0.0}


def test_cpu_of_this_process_and_of_a_gone_one() -> None:
    user, system = _cpu(os.getpid()) or (-1.0, -1.0)
    assert user >= 0 and system >= 0
    assert _cpu(1 << 30) is None


def test_run_sampled_keeps_the_lines_exit_code_and_the_root() -> None:
    seen: list[int] = []
    run = run_sampled([sys.executable, "-c", "print('one'); print('two'); raise SystemExit(3)"], dict(os.environ),
                      0.01, seen.append)
    assert run.code == 3 and [text for _, text in run.lines] == ["one", "two"]
    assert seen == [run.root] and run.start <= run.end and run.tree_cpu >= 0
