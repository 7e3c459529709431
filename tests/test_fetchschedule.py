"""Fetch schedules: every case of vectors/adaptive_schedule.json plus the documented rules (reference §7.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gossamer.core import status
from gossamer.core.datum import CrawlDatum
from gossamer.core.settings import load_settings
from gossamer.core.status import CrawlStatus, status_by_name
from gossamer.plugins.api import FetchSchedule, PluginNotConfigured
from gossamer.plugins.builtin import fetchschedule_adaptive as adaptive
from gossamer.plugins.builtin import fetchschedule_default as default
from tests.conftest import VECTORS

VECTOR = json.loads((VECTORS / "adaptive_schedule.json").read_text())
T = 1_700_000_000_000
D = 86_400_000
URL = "http://www.example.com/page.html"

CONFIG_NAMES = {
    "inc_rate": "db.fetch.schedule.adaptive.inc_rate",
    "dec_rate": "db.fetch.schedule.adaptive.dec_rate",
    "min_interval": "db.fetch.schedule.adaptive.min_interval",
    "max_interval": "db.fetch.schedule.adaptive.max_interval",
    "sync_delta": "db.fetch.schedule.adaptive.sync_delta",
    "sync_delta_rate": "db.fetch.schedule.adaptive.sync_delta_rate",
    "default_interval": "db.fetch.interval.default",
}


def overrides(config: dict[str, Any]) -> list[str]:
    out = []
    for key, value in config.items():
        name = CONFIG_NAMES.get(key, key)
        out.append(f"{name}={str(value).lower() if isinstance(value, bool) else value}")
    return out


def build(kind: str, config: dict[str, Any] | None = None, conf: Path | None = None) -> FetchSchedule:
    settings = load_settings(conf=conf, overrides=overrides(config or {}))
    module = {"AdaptiveFetchSchedule": adaptive, "DefaultFetchSchedule": default}[kind]
    return module.PLUGIN.factory(settings)


@pytest.mark.parametrize("case", VECTOR["cases"], ids=lambda c: f"{c['schedule']}-{c['input']}")
def test_set_fetch_schedule_vectors(case: dict[str, Any]) -> None:
    schedule = build(case["schedule"], case["config"])
    given = case["input"]
    datum = CrawlDatum(status=CrawlStatus.DB_FETCHED, fetch_time=given["fetch_time"],
                       fetch_interval=given["fetch_interval"], modified_time=given["modified_time"], retries=2)
    schedule.set_fetch_schedule(URL, datum, given.get("prev_fetch_time", 0), given["modified_time"],
                                given["fetch_time"], given["modified_time"], given["state"])
    got = {k: getattr(datum, k) for k in case["expected"]}
    assert got == case["expected"]


@pytest.mark.parametrize("case", VECTOR["other_schedule_methods"], ids=lambda c: c["method"])
@pytest.mark.parametrize("kind", ["DefaultFetchSchedule", "AdaptiveFetchSchedule"])
def test_other_schedule_method_vectors(case: dict[str, Any], kind: str) -> None:
    schedule = build(kind, case.get("config"))
    given, expected = case["input"], case["expected"]
    datum = CrawlDatum(fetch_time=given.get("fetch_time", 0), fetch_interval=given.get("fetch_interval", 0),
                       retries=given.get("retries", 0), modified_time=given.get("modified_time", 0))
    if "status" in given:
        datum.status = status_by_name(given["status"])
    if given.get("signature"):
        datum.signature = bytes.fromhex(given["signature"])
    method = case["method"]
    before = datum.fetch_time
    if method == "setPageGoneSchedule":
        schedule.set_page_gone_schedule(URL, datum, 0, 0, given["fetch_time"])
    elif method == "setPageRetrySchedule":
        schedule.set_page_retry_schedule(URL, datum, 0, 0, given["fetch_time"])
    elif method.startswith("forceRefetch"):
        schedule.force_refetch(URL, datum, asap=False)
    elif method == "shouldFetch":
        assert schedule.should_fetch(URL, datum, given["cur_time"]) is expected["result"]
    elif method == "initializeSchedule":
        schedule.initialize_schedule(URL, datum, given["now"])
    elif method == "calculateLastFetchTime":
        assert schedule.calculate_last_fetch_time(datum) == expected["result"]
    else:  # pragma: no cover - a new kind of case in the vector file
        pytest.fail(f"unhandled method {method}")
    for key, value in expected.items():
        if key == "result":
            continue
        if key == "fetch_time" and value == "unchanged":
            value = before
        elif key == "status":
            value = status_by_name(value)
        assert getattr(datum, key) == value, key


def schedule_once(schedule: FetchSchedule, interval: int, fetch: int, modified: int, state: int,
                  url: str = URL, metadata: dict[str, str] | None = None) -> CrawlDatum:
    datum = CrawlDatum(fetch_interval=interval, metadata=dict(metadata or {}))
    schedule.set_fetch_schedule(url, datum, 0, 0, fetch, modified, state)
    return datum


def test_adaptive_modified_shrinks_and_notmodified_grows() -> None:
    schedule = build("AdaptiveFetchSchedule", {"sync_delta": False})
    assert schedule_once(schedule, 1000, T, T, status.STATE_MODIFIED).fetch_interval == 800
    assert schedule_once(schedule, 1000, T, T, status.STATE_NOTMODIFIED).fetch_interval == 1400
    assert schedule_once(schedule, 1000, T, T, status.STATE_UNKNOWN).fetch_interval == 1000
    assert schedule_once(schedule, 1000, T, T, 6).fetch_interval == 1000  # not a state: unknown


def test_adaptive_modified_sets_modified_time_to_fetch_time() -> None:
    schedule = build("AdaptiveFetchSchedule")
    datum = schedule_once(schedule, 1000, T, T - 10 * D, status.STATE_MODIFIED)
    assert datum.modified_time == T
    assert datum.fetch_time == T + 800_000  # delta 0: no shift


def test_adaptive_bounds_clamp() -> None:
    schedule = build("AdaptiveFetchSchedule", {"sync_delta": False, "min_interval": 500, "max_interval": 2000})
    assert schedule_once(schedule, 100, T, T, status.STATE_MODIFIED).fetch_interval == 500
    assert schedule_once(schedule, 1900, T, T, status.STATE_NOTMODIFIED).fetch_interval == 2000


def test_adaptive_sync_delta_shifts_towards_change_time() -> None:
    # delta = 10 s < interval: interval unchanged, next fetch shifted back by round(10000 × 0.3f) ms.
    schedule = build("AdaptiveFetchSchedule")
    datum = schedule_once(schedule, 1000, T, T - 10_000, status.STATE_UNKNOWN)
    assert datum.fetch_interval == 1000
    assert datum.fetch_time == T - 3000 + 1_000_000
    # delta larger than the interval: the interval becomes delta (seconds, long division).
    datum = schedule_once(schedule, 1000, T, T - 5_000_500, status.STATE_UNKNOWN)
    assert datum.fetch_interval == 5000
    assert datum.fetch_time == T - 1_500_150 + 5_000_000


def test_adaptive_sync_delta_offset_beyond_max_becomes_zero() -> None:
    # offset 0.3 × 100 days > max 7 days ⇒ Java computes offset/delta × max = 0.
    schedule = build("AdaptiveFetchSchedule", {"max_interval": 7 * 86400})
    datum = schedule_once(schedule, 86400, T, T - 100 * D, status.STATE_NOTMODIFIED)
    assert datum.fetch_interval == 7 * 86400
    assert datum.fetch_time == T + 7 * D


def test_adaptive_fixed_interval_metadata_wins() -> None:
    schedule = build("AdaptiveFetchSchedule")
    datum = schedule_once(schedule, 1000, T, 0, status.STATE_MODIFIED, metadata={"fixedInterval": "12.5"})
    assert datum.fetch_interval == 13  # Java Math.round: half up
    assert datum.fetch_time == T + 12_500
    assert datum.modified_time == 0  # untouched when the interval is fixed


def test_adaptive_zero_interval_uses_default_and_resets_retries() -> None:
    schedule = build("AdaptiveFetchSchedule", {"sync_delta": False, "default_interval": 5000})
    datum = CrawlDatum(fetch_interval=0, retries=3)
    schedule.set_fetch_schedule(URL, datum, 0, 0, T, 0, status.STATE_UNKNOWN)
    assert (datum.fetch_interval, datum.retries, datum.modified_time) == (5000, 0, T)


def test_float32_rates() -> None:
    # 0.3 is 0.30000001192092896 as a float: round(1e9 × 0.3f) = 300000012 ms, not 300000000.
    schedule = build("AdaptiveFetchSchedule", {"max_interval": 31536000.0})
    datum = schedule_once(schedule, 2_000_000, T, T - 1_000_000_000, status.STATE_UNKNOWN)
    assert datum.fetch_time == T - 300_000_012 + 2_000_000_000


def test_host_specific_intervals(tmp_path: Path) -> None:
    (tmp_path / "adaptive-host-specific-intervals.txt").write_text(
        "# comment\n"
        "www.apache.org       default     1728000\n"
        "www.example.org      1296000     0\n"
        "nutch.apache.org     864000      2160000\n"
        "bad.example          10          20\n"        # min below the global min: ignored
        "both.example         0           default\n"    # both default: ignored
        "malformed.example    5\n"
    )
    schedule = build("AdaptiveFetchSchedule", {"sync_delta": False, "min_interval": 60}, conf=tmp_path)
    assert isinstance(schedule, adaptive.AdaptiveFetchSchedule)
    assert set(schedule.host_intervals) == {"www.apache.org", "www.example.org", "nutch.apache.org"}
    assert schedule.bounds("http://www.apache.org/x") == (60.0, 1728000.0)
    assert schedule.bounds("http://www.example.org/") == (1296000.0, 31536000.0)
    assert schedule.bounds("http://other.example/") == (60.0, 31536000.0)
    up = status.STATE_NOTMODIFIED
    assert schedule_once(schedule, 2_000_000, T, T, up, "http://nutch.apache.org/").fetch_interval == 2160000
    assert schedule_once(schedule, 100, T, T, up, "http://nutch.apache.org/").fetch_interval == 864000
    assert schedule_once(schedule, 100, T, T, up, "http://bad.example/").fetch_interval == 140


def test_java_helpers() -> None:
    assert adaptive.java_round(2.5) == 3 and adaptive.java_round(-2.5) == -2
    assert adaptive.java_round(0.49999999999999994) == 0
    assert adaptive.java_round(float("nan")) == 0
    assert adaptive.java_round(1e20, bits=32) == 2**31 - 1
    assert adaptive.java_div(-7, 2) == -3 and adaptive.java_div(7, 2) == 3
    assert adaptive.f32(0.3) == 0.30000001192092896
    assert adaptive.f32(1e39) == float("inf")


def test_mime_adaptive_uses_rates_per_content_type(tmp_path: Path) -> None:
    rules = tmp_path / "rates.txt"
    rules.write_text("# mime\tinc\tdec\ntext/html\t0.5\t0.5\napplication/pdf\t0.1\t0.4\nbroken line\n")
    settings = load_settings(overrides=[f"db.fetch.schedule.mime.file={rules}",
                                        "db.fetch.schedule.adaptive.sync_delta=false"])
    schedule = adaptive.MIME_PLUGIN.factory(settings)
    html = {"Content-Type": "Text/HTML; charset=utf-8"}
    pdf = {"Content-Type": "application/pdf"}
    assert schedule_once(schedule, 1000, T, T, status.STATE_NOTMODIFIED, metadata=html).fetch_interval == 1500
    assert schedule_once(schedule, 1000, T, T, status.STATE_MODIFIED, metadata=pdf).fetch_interval == 600
    assert schedule_once(schedule, 1000, T, T, status.STATE_NOTMODIFIED).fetch_interval == 1400  # global 0.4


def test_mime_adaptive_default_file_and_errors(tmp_path: Path) -> None:
    schedule = adaptive.MIME_PLUGIN.factory(load_settings())
    assert schedule.mime_rates["application/pdf"] == (adaptive.f32(0.1), adaptive.f32(0.4))
    with pytest.raises(PluginNotConfigured):
        adaptive.MIME_PLUGIN.factory(load_settings(overrides=["db.fetch.schedule.mime.file=nope.txt"]))
    bad = tmp_path / "bad.txt"
    bad.write_text("text/html\tfast\t0.2\n")
    with pytest.raises(PluginNotConfigured, match="line 1"):
        adaptive.MIME_PLUGIN.factory(load_settings(overrides=[f"db.fetch.schedule.mime.file={bad}"]))


def test_default_schedule_rules() -> None:
    schedule = build("DefaultFetchSchedule")
    datum = schedule_once(schedule, 1000, T, T - D, status.STATE_NOTMODIFIED)
    assert (datum.fetch_interval, datum.fetch_time, datum.modified_time) == (1000, T + 1_000_000, T - D)
    datum = schedule_once(schedule, 1000, T, 0, status.STATE_NOTMODIFIED)
    assert datum.modified_time == T
    datum = schedule_once(schedule, 0, T, T - D, status.STATE_UNKNOWN)
    assert datum.fetch_interval == 2592000 and datum.fetch_time == T + 2592000 * 1000


def test_plugins_are_named_like_nutch() -> None:
    assert adaptive.PLUGIN.id == "fetchschedule-adaptive"
    assert "org.apache.nutch.crawl.AdaptiveFetchSchedule" in adaptive.PLUGIN.aliases
    assert "org.apache.nutch.crawl.MimeAdaptiveFetchSchedule" in adaptive.MIME_PLUGIN.aliases
