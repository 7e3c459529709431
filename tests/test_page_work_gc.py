"""The garbage collector's pace while pages are fetched and parsed (issue 22)."""

import gc

import pytest

from gossamer.core import page_work_gc
from gossamer.core.processes import PAGE_WORK_GC_THRESHOLDS


def test_thresholds_apply_inside_and_are_restored_after() -> None:
    before = gc.get_threshold()
    with page_work_gc():
        assert gc.get_threshold() == PAGE_WORK_GC_THRESHOLDS
    assert gc.get_threshold() == before


def test_thresholds_are_restored_when_the_block_raises() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), page_work_gc():
        raise RuntimeError("page work failed")
    assert gc.get_threshold() == before


def test_the_collector_still_runs() -> None:
    with page_work_gc():
        assert gc.isenabled()
        cycle: list[object] = []
        cycle.append(cycle)
        del cycle
        assert gc.collect() >= 1
