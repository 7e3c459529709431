"""Typed job reports: merge by field type, one sample limit, one JSON form."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from gossamer.core.reports import DEFAULT_SAMPLE_LIMIT, Report, sample_limit
from gossamer.core.settings import Settings
from gossamer.crawl.dedup import DedupReport
from gossamer.crawl.fetch import FetchReport
from gossamer.crawl.fetch.results import FetchSummary
from gossamer.crawl.generate import GenerateReport
from gossamer.crawl.inject import InjectReport
from gossamer.crawl.linkdb import InvertReport
from gossamer.crawl.mergedb import MergeReport
from gossamer.crawl.parse import ParseReport
from gossamer.crawl.updatedb import UpdateReport
from gossamer.index import IndexReport

JOB_REPORTS = [FetchReport("s"), ParseReport("s"), FetchSummary(), InjectReport(), UpdateReport(), MergeReport(),
               GenerateReport(), DedupReport(), InvertReport(), IndexReport()]


def test_shares_merge_field_by_field() -> None:
    one = FetchReport("20260101", processes=2, seconds=3.0, pages=5, bytes=100, by_status=Counter(fetch_success=4),
                      parse_errors=["a"], files=["x"], stopped=["time limit"], sample_limit=2)
    two = FetchReport("20260101", seconds=5.0, pages=7, bytes=50, by_status=Counter(fetch_success=1, fetch_gone=6),
                      parse_errors=["b", "c"], files=["y"])
    one.merge(two)
    assert (one.pages, one.bytes, one.processes, one.seconds) == (12, 150, 2, 5.0)  # seconds: the longest share
    assert one.by_status == Counter(fetch_success=5, fetch_gone=6)
    assert one.parse_errors == ["a", "b"]  # capped at the sample limit, the count is elsewhere
    assert one.files == ["x", "y"] and one.stopped == ["time limit"] and one.segment == "20260101"


def test_only_reports_of_the_same_job_merge() -> None:
    with pytest.raises(TypeError, match="cannot merge a ParseReport into a FetchReport"):
        FetchReport("s").merge(ParseReport("s"))  # type: ignore[arg-type]


def test_one_sample_limit_from_the_settings() -> None:
    assert sample_limit(None) == DEFAULT_SAMPLE_LIMIT == Settings().get_int("cli.max.reported.errors")
    settings = Settings().with_values([("cli.max.reported.errors", 3)], "test")
    report = ParseReport("s", sample_limit=sample_limit(settings))
    for i in range(5):
        report.add_sample(f"error {i}")
    assert report.errors == ["error 0", "error 1", "error 2"]


@pytest.mark.parametrize("report", JOB_REPORTS, ids=lambda r: type(r).__name__)
def test_every_job_report_is_a_report_with_one_json_form(report: Report) -> None:
    assert isinstance(report, Report)
    data = report.to_json()
    assert json.loads(json.dumps(data)) == data and "sample_limit" not in data
    merged = type(report)(**{k: v for k, v in vars(report).items()}).merge(report)
    assert type(merged) is type(report)


def test_fetch_summary_json_has_its_rate() -> None:
    summary = FetchSummary(elapsed=2.0, pages=10, by_status=Counter(fetch_success=10))
    assert summary.to_json()["pages_per_second"] == 5.0 and summary.to_json()["by_status"] == {"fetch_success": 10}
