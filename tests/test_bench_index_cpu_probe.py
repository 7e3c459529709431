"""bench.index_cpu_probe's timeline: CPU per second by driver thread and workers, from cumulative samples."""

from __future__ import annotations

import os

from bench.index_cpu_probe import _bucketed, timeline


def test_bucketed_puts_each_interval_into_the_bucket_of_its_middle() -> None:
    samples = [(10.0, 0.0), (10.5, 0.4), (11.2, 1.0), (12.4, 1.1)]
    assert [round(v, 2) for v in _bucketed(samples, 10.0, 1.0, 3)] == [1.0, 0.1, 0.0]  # middles 10.25, 10.85, 11.8


def test_timeline_sums_threads_by_name_and_workers_and_leaves_the_rest_idle() -> None:
    start = 100.0
    procs = {1: {"cmd": "gossamer index", "samples": [(100.0, 0.0), (101.9, 1.0)]},
             2: {"cmd": "python -c from multiprocessing.spawn import spawn_main",
                 "samples": [(100.0, 0.0), (100.9, 0.5), (101.9, 1.5)]}}
    # two threads of one name, one of which ends (its CPU must not count as negative)
    threads = [(100.0, {"tantivy/11": 0.0, "tantivy/12": 0.0}), (100.9, {"tantivy/11": 0.3, "tantivy/12": 0.2}),
               (101.9, {"tantivy/11": 0.8})]
    rows = timeline(procs, threads, 1, start, 101.9)
    assert [row["workers"] for row in rows] == [0.5, 1.0]
    assert [row["tantivy"] for row in rows] == [0.5, 0.5]
    cores = os.cpu_count() or 1
    assert rows[0]["idle"] == round(max(0.0, cores - 1.0), 2)
