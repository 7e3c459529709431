"""mergedb's per-URL rule (Nutch's CrawlDbMerger): the datum fetched last wins, metadata merged."""

from __future__ import annotations

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.crawl.mergedb import last_fetch_time, merge_datums

DAY = 86400


def test_latest_fetch_wins_and_metadata_of_all_inputs_is_merged_newer_overriding() -> None:
    old = CrawlDatum(CrawlStatus.DB_FETCHED, 10 * DAY * 1000, 0, DAY, 1.0, metadata={"a": "old", "b": "old"})
    new = CrawlDatum(CrawlStatus.DB_FETCHED, 20 * DAY * 1000, 0, DAY, 2.0, metadata={"a": "new"})
    unfetched = CrawlDatum(CrawlStatus.DB_UNFETCHED, 99 * DAY * 1000, metadata={"c": "seed"})
    assert last_fetch_time(unfetched) == 0 and last_fetch_time(old) == 9 * DAY * 1000
    for order in ([old, new, unfetched], [unfetched, new, old], [new, old]):
        merged = merge_datums(order)
        assert (merged.score, merged.metadata["a"], merged.metadata["b"]) == (2.0, "new", "old")
    assert merge_datums([old, new, unfetched]).metadata["c"] == "seed"
    tie = CrawlDatum(CrawlStatus.DB_FETCHED, 20 * DAY * 1000, 0, DAY, 3.0)
    assert merge_datums([new, tie]).score == 2.0  # on a tie the earlier input wins
