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


def test_frozen_heap_leaves_the_objects_alive_at_entry_out_and_puts_them_back() -> None:
    from gossamer.core import frozen_heap

    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > 0
        # nested: nothing more is frozen, nothing put back early (a frozen object may still die by its
        # reference count meanwhile, e.g. in another test's thread that is winding down: never more)
        with frozen_heap():
            assert 0.99 * frozen <= gc.get_freeze_count() <= frozen
        assert 0.99 * frozen <= gc.get_freeze_count() <= frozen
        made: list[object] = []
        made.append(made)
        del made
        assert gc.collect() >= 1  # what the block made is still collected
    assert gc.get_freeze_count() == 0
