"""``warc.warc_date``: the WARC-Date text, reused within a second, the same as formatting it anew."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from gossamer.crawl.fetch.warc import warc_date


def _plain(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_same_text_as_formatting_every_time() -> None:
    start = datetime(2026, 11, 27, 18, 59, 58, 999_000, tzinfo=UTC)
    moments = [start + timedelta(microseconds=k * 250_000) for k in range(12)]
    moments += [start, start - timedelta(days=400), start + timedelta(seconds=1)]
    for moment in moments:
        assert warc_date(moment) == _plain(moment)


def test_other_zones_and_naive_times_are_converted() -> None:
    aware = datetime(2026, 11, 27, 20, 0, 1, 5, tzinfo=timezone(timedelta(hours=2)))
    assert warc_date(datetime(2026, 11, 27, 18, 0, 1, tzinfo=UTC)) == "2026-11-27T18:00:01Z"
    assert warc_date(aware) == "2026-11-27T18:00:01Z"
    naive = datetime(2026, 11, 27, 18, 0, 1)
    assert warc_date(naive) == _plain(naive)
