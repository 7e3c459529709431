"""The index benchmark's alternating pairs: each pair's docs/s ratio, and their median."""

from __future__ import annotations

from bench.index_pairs import median_ratio, pair_ratios


def _step(docs: int, wall: float) -> dict[str, float]:
    return {"docs": docs, "wall_s": wall, "cpu_s": 2 * wall}


def test_each_pair_is_its_own_ratio_and_the_goal_reads_their_median() -> None:
    steps = {"index": _step(1000, 8.0), "tantivy_floor": _step(1000, 4.0),        # 0.5
             "index_pair1": _step(1000, 10.0), "tantivy_floor_pair1": _step(1000, 4.0),  # 0.4
             "index_pair2": _step(1000, 6.0), "tantivy_floor_pair2": _step(1200, 3.0),  # (1000/6)/(400) = 0.417
             "index_pair3": _step(1000, 7.0)}  # its floor failed: no pair
    pairs = pair_ratios(steps, ["", "_pair1", "_pair2", "_pair3"])
    assert [p["pair"] for p in pairs] == ["_pair0", "_pair1", "_pair2"]
    assert [p["ratio"] for p in pairs] == [0.5, 0.4, 0.417]
    assert pairs[0]["index_wall_s"] == 8.0 and pairs[0]["floor_cpu_s"] == 8.0
    assert median_ratio(pairs) == 0.417
    assert median_ratio([]) is None
