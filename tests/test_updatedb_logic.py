"""updatedb's per-URL merge: every case of vectors/crawldb_states.json plus the rules of reference §5."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gossamer.core.datum import CrawlDatum
from gossamer.core.settings import load_settings
from gossamer.core.status import CrawlStatus, status_by_name
from gossamer.crawl.updatedb.state_machine import (
    UpdateContext,
    UpdateSettings,
    best_inlinks,
    group_values,
    keep_old,
    reduce_values,
    update_url,
)
from gossamer.plugins.api import ScoringFilter
from gossamer.plugins.builtin import fetchschedule_adaptive, fetchschedule_default, scoring_opic
from tests.conftest import VECTORS

VECTOR = json.loads((VECTORS / "crawldb_states.json").read_text())
T = 1_700_000_000_000
D = 86_400_000
URL = "http://www.example.com/"
S1, S2 = bytes.fromhex("00112233445566778899aabbccddeeff"), bytes.fromhex("ffeeddccbbaa99887766554433221100")
SCHEDULES = {"DefaultFetchSchedule": fetchschedule_default.PLUGIN,
             "AdaptiveFetchSchedule": fetchschedule_adaptive.PLUGIN}


def context(schedule: str = "DefaultFetchSchedule", *defines: str, now: int = T) -> UpdateContext:
    settings = load_settings(overrides=list(defines))
    return UpdateContext(
        schedule=SCHEDULES[schedule].factory(settings),
        scoring=[scoring_opic.PLUGIN.factory(settings)],
        now=now,
        settings=UpdateSettings.from_settings(settings),
    )


def old_datum(status: int, **fields: Any) -> CrawlDatum:
    base = dict(fetch_time=T - D, fetch_interval=2_592_000, score=1.0, retries=0)
    base.update(fields)
    return CrawlDatum(status=status, **base)


def fetch_of(old: CrawlDatum | None, status: int, fetch_time: int = T, ctx: UpdateContext | None = None) -> CrawlDatum:
    """A fetch datum as the fetcher writes it: the generated copy of old (or a new datum) with the result."""
    if old is not None:
        fetch = old.copy()
    else:
        fetch = CrawlDatum(score=1.0)
        (ctx or context()).schedule.initialize_schedule(URL, fetch, T - D)
    fetch.status, fetch.fetch_time, fetch.signature = status, fetch_time, None
    return fetch


def links(count: int) -> list[CrawlDatum]:
    return [CrawlDatum(status=CrawlStatus.LINKED, fetch_time=T, score=0.1) for _ in range(count)]


def matrix_params() -> list[Any]:
    params = []
    for case in VECTOR["cases"]:
        low = 1 if case["inlinks"].startswith("1") else 0
        for schedule in case["schedules"]:
            for count in range(low, 3):
                name = f"{case['old_status']}+{case['fetch_status']}-{schedule}-{count}"
                params.append(pytest.param(case, schedule, count, id=name))
    return params


@pytest.mark.parametrize(("case", "schedule", "inlink_count"), matrix_params())
def test_state_matrix_vectors(case: dict[str, Any], schedule: str, inlink_count: int) -> None:
    ctx = context(schedule)
    old = None if case["old_status"].startswith("<") else old_datum(status_by_name(case["old_status"]))
    only_links = case["fetch_status"].startswith("<")
    fetches = [] if only_links else [fetch_of(old, status_by_name(case["fetch_status"]), ctx=ctx)]
    result = update_url(URL, old, fetches, links(inlink_count), None, None, ctx)
    assert result is not None
    assert result.status_name == case["expected_new_status"]
    base_score = old.score if old is not None else (0.0 if only_links else 1.0)
    assert result.score == pytest.approx(base_score + 0.1 * inlink_count)
    if case["fetch_status"] == "fetch_retry":
        assert result.retries == 1
        assert result.fetch_time == T + D
    elif not only_links:
        assert result.retries == 0
    if only_links:
        assert result.fetch_time == old.fetch_time and result.fetch_interval == old.fetch_interval


def extra(index: int) -> dict[str, Any]:
    return VECTOR["extra_cases"][index]


def run_extra(case: dict[str, Any], ctx: UpdateContext) -> tuple[CrawlDatum, CrawlDatum | None]:
    spec = dict(case.get("old", {}))
    if "signature" in spec:
        spec["signature"] = {"S1": S1}[spec["signature"]]
    old = old_datum(status_by_name(case["old_status"]), **spec)
    fetch = fetch_of(old, status_by_name(case["fetch_status"]), case.get("fetch", {}).get("fetch_time", T))
    signature = next((S1 for p in case.get("parse", []) if p["status"] == "signature"), None)
    return old, update_url(URL, old, [fetch], [], signature, None, ctx)


@pytest.mark.parametrize("schedule", list(SCHEDULES))
def test_extra_signature_equal_is_notmodified(schedule: str) -> None:
    case = extra(0)
    old, result = run_extra(case, context(schedule))
    assert result is not None and result.status_name == case["expected_new_status"]
    assert result.signature == S1 and result.retries == 0
    assert result.modified_time == old.modified_time == case["old"]["modified_time"]


@pytest.mark.parametrize("index", [1, 2, 3])
def test_extra_notmodified_and_redirects(index: int) -> None:
    case = extra(index)
    _, result = run_extra(case, context())
    assert result is not None and result.status_name == case["expected_new_status"]
    expected = None if case["expected"]["signature"].startswith("null") else S1
    assert result.signature == expected


@pytest.mark.parametrize("index", [4, 5])
def test_extra_gone_schedule(index: int) -> None:
    case = extra(index)
    _, result = run_extra(case, context())
    assert result is not None and result.status_name == case["expected_new_status"]
    assert result.fetch_interval == case["expected"]["fetch_interval"]
    assert result.fetch_time == case["expected"]["fetch_time"]
    if "signature" in case["expected"]:
        assert result.signature == S1


def test_extra_parse_failed() -> None:
    case = extra(6)
    _, result = run_extra(case, context())
    assert result is not None and result.status_name == case["expected_new_status"] == "db_parse_failed"
    assert result.signature == S1
    assert result.fetch_interval == 3_888_000 and result.fetch_time == T + 3_888_000_000


def test_extra_purge_404_and_orphans() -> None:
    assert extra(7)["config"] == {"db.update.purge.404": True}
    gone, orphan = old_datum(CrawlStatus.DB_GONE), old_datum(CrawlStatus.DB_ORPHAN)
    assert keep_old(gone, load_settings()) and keep_old(orphan, UpdateSettings())
    assert not keep_old(gone, load_settings(overrides=["db.update.purge.404=true"]))
    assert keep_old(orphan, UpdateSettings(purge_404=True))
    assert not keep_old(orphan, UpdateSettings(purge_orphans=True))


def test_extra_latest_datums_win() -> None:
    assert extra(8)["notes"].startswith("when several")
    older = old_datum(CrawlStatus.DB_FETCHED, fetch_time=T - 5 * D, signature=S2)
    newer = old_datum(CrawlStatus.DB_GONE, fetch_time=T - D)
    fetch_old = fetch_of(older, CrawlStatus.FETCH_GONE, T - D)
    fetch_new = fetch_of(older, CrawlStatus.FETCH_SUCCESS, T)
    grouped = group_values([older, fetch_new, newer, fetch_old])
    assert grouped.old is newer
    result = reduce_values(URL, [older, fetch_new, newer, fetch_old], context())
    assert result is not None and result.status == CrawlStatus.DB_FETCHED


# --- further rules of reference §5 -------------------------------------------------------------


def test_retries_become_gone_at_retry_max() -> None:
    ctx = context("DefaultFetchSchedule", "db.fetch.retry.max=3")
    old = old_datum(CrawlStatus.DB_UNFETCHED, retries=1, signature=S1)
    fetch = fetch_of(old, CrawlStatus.FETCH_RETRY)
    result = update_url(URL, old, [fetch], [], None, None, ctx)
    assert result is not None and (result.status, result.retries) == (CrawlStatus.DB_UNFETCHED, 2)
    assert result.signature == S1
    old2 = old_datum(CrawlStatus.DB_UNFETCHED, retries=2)
    result = update_url(URL, old2, [fetch_of(old2, CrawlStatus.FETCH_RETRY)], [], None, None, ctx)
    assert result is not None and (result.status, result.retries) == (CrawlStatus.DB_GONE, 3)
    # gone: retry schedule (+1 day) then the gone schedule from the fetch time
    assert result.fetch_interval == 3_888_000 and result.fetch_time == T + 3_888_000_000


def test_notmodified_without_old_signature_keeps_fetch_signature() -> None:
    ctx = context()
    old = old_datum(CrawlStatus.DB_FETCHED, modified_time=T - 3 * D)
    fetch = fetch_of(old, CrawlStatus.FETCH_NOTMODIFIED)
    result = update_url(URL, old, [fetch], [], S2, None, ctx)
    assert result is not None and result.status == CrawlStatus.DB_NOTMODIFIED
    assert result.signature is None  # old's (null) signature
    assert result.modified_time == T - 3 * D
    assert result.fetch_time == T + 2_592_000_000
    new = fetch_of(None, CrawlStatus.FETCH_NOTMODIFIED)
    new.signature = S1
    result = update_url(URL, None, [new], [], None, None, ctx)
    assert result is not None and result.signature == S1 and result.modified_time == 0


def test_changed_signature_is_modified() -> None:
    ctx = context("AdaptiveFetchSchedule")
    old = old_datum(CrawlStatus.DB_FETCHED, signature=S1, modified_time=T - 2 * D, fetch_interval=100_000)
    fetch = fetch_of(old, CrawlStatus.FETCH_SUCCESS)
    result = update_url(URL, old, [fetch], [], S2, {"lang": "en"}, ctx)
    assert result is not None and result.status == CrawlStatus.DB_FETCHED
    assert result.signature == S2 and result.modified_time == T
    assert result.fetch_interval == 80_000  # dec_rate 0.2
    assert result.metadata["lang"] == "en"


def test_redirect_is_never_compared_by_signature() -> None:
    old = old_datum(CrawlStatus.DB_FETCHED, signature=S1)
    for status, expected in ((CrawlStatus.FETCH_REDIR_PERM, CrawlStatus.DB_REDIR_PERM),
                             (CrawlStatus.FETCH_REDIR_TEMP, CrawlStatus.DB_REDIR_TEMP)):
        result = update_url(URL, old, [fetch_of(old, status)], [], S1, None, context())
        assert result is not None and result.status == expected and result.signature == S1


def test_force_refetch_when_interval_exceeds_max() -> None:
    ctx = context("AdaptiveFetchSchedule")  # adaptive max 365 days > db.fetch.interval.max 90 days
    old = old_datum(CrawlStatus.DB_NOTMODIFIED, signature=S1, fetch_interval=7_000_000, modified_time=T - D)
    result = update_url(URL, old, [fetch_of(old, CrawlStatus.FETCH_NOTMODIFIED)], [], None, None, ctx)
    assert result is not None
    assert result.status == CrawlStatus.DB_UNFETCHED
    assert (result.fetch_interval, result.signature, result.modified_time, result.retries) == (6_998_400, None, 0, 0)


def test_metadata_old_then_fetch_and_generate_marker_removed() -> None:
    old = old_datum(CrawlStatus.DB_FETCHED, metadata={"a": "old", "b": "old", "_ngt_": "123"})
    fetch = fetch_of(old, CrawlStatus.FETCH_SUCCESS)
    fetch.metadata = {"b": "fetch", "c": "fetch", "_ngt_": "456"}
    result = update_url(URL, old, [fetch], [], None, None, context())
    assert result is not None and result.metadata == {"a": "old", "b": "fetch", "c": "fetch"}
    linked_only = update_url(URL, old, [], links(1), None, None, context())
    assert linked_only is not None and "_ngt_" not in linked_only.metadata
    assert old.metadata["_ngt_"] == "123"  # input untouched


def test_new_url_from_links_and_additions() -> None:
    result = update_url(URL, None, [], links(2), None, None, context(now=T + 5))
    assert result is not None and result.status == CrawlStatus.DB_UNFETCHED
    assert (result.fetch_time, result.fetch_interval, result.retries) == (T + 5, 2_592_000, 0)
    assert result.score == pytest.approx(0.2)
    no_add = context("DefaultFetchSchedule", "db.update.additions.allowed=false")
    assert update_url(URL, None, [], links(2), None, None, no_add) is None
    old = old_datum(CrawlStatus.DB_FETCHED)
    assert update_url(URL, old, [], links(1), None, None, no_add) is not None


def test_lone_signature_and_old_only() -> None:
    assert update_url(URL, None, [], [], S1, None, context()) is None
    old = old_datum(CrawlStatus.DB_FETCHED, metadata={"_ngt_": "1"})
    assert update_url(URL, old, [], [], S1, None, context()) is old


def test_orphaned_score_hook_runs_for_old_only() -> None:
    class Halve(ScoringFilter):
        def orphaned_score(self, url: str, datum: CrawlDatum) -> None:
            datum.score /= 2

    ctx = context()
    ctx.scoring = [Halve()]
    old = old_datum(CrawlStatus.DB_FETCHED)
    result = update_url(URL, old, [], [], None, None, ctx)
    assert result is not None and result.score == 0.5


def test_inlinks_capped_by_score() -> None:
    many = [CrawlDatum(status=CrawlStatus.LINKED, score=s) for s in (0.1, 0.5, 0.3, 0.2)]
    assert [d.score for d in best_inlinks(many, 2)] == [0.5, 0.3]
    ctx = context("DefaultFetchSchedule", "db.update.max.inlinks=2")
    result = update_url(URL, old_datum(CrawlStatus.DB_FETCHED), [], many, None, None, ctx)
    assert result is not None and result.score == pytest.approx(1.8)


def test_failing_scoring_filter_does_not_stop_update() -> None:
    class Broken(ScoringFilter):
        def initial_score(self, url: str, datum: CrawlDatum) -> None:
            raise RuntimeError("boom")

        def update_db_score(self, url: str, old: CrawlDatum | None, datum: CrawlDatum, inlinks: Any) -> None:
            raise RuntimeError("boom")

    ctx = context()
    ctx.scoring = [Broken()]
    result = update_url(URL, None, [], links(1), None, None, ctx)
    assert result is not None and result.score == 0.0


def test_unknown_fetch_status_raises() -> None:
    bad = CrawlDatum(status=0x30, fetch_time=T)
    with pytest.raises(ValueError, match="unknown fetch status"):
        update_url(URL, None, [bad], [], None, None, context())
