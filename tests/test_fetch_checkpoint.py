"""Checkpoints committed on the sink's syncer thread: the mark covers the moment the checkpoint began."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pytest

from gossamer.core import CrawlDatum, CrawlStatus, HttpExchange, Settings
from gossamer.crawl.fetch.results import FetchResult
from gossamer.crawl.fetch.resume import MARKS, FetchJournal, recover_journals
from gossamer.crawl.fetch.segment_sink import SegmentSink

BATCH = pa.record_batch({"x": pa.array([1, 2, 3])})


def _marks(journal: FetchJournal) -> list[dict]:
    return [json.loads(line) for line in (journal.directory / MARKS).read_text().splitlines()]


def test_a_commit_marks_the_batches_of_its_beginning_not_those_journaled_meanwhile(tmp_path: Path) -> None:
    journal = FetchJournal(tmp_path, parse=False)
    journal.append("t", BATCH)
    commit = journal.begin_checkpoint(["a.warc.gz"], 10)
    journal.append("t", BATCH)  # while the commit would run on the syncer thread
    assert not (journal.directory / MARKS).read_bytes()  # nothing is committed before the commit runs
    commit()
    assert _marks(journal) == [{"batches": {"t": 1}, "parse": False, "warc": ["a.warc.gz"], "warc_length": 10}]
    journal.checkpoint([], 0)
    assert _marks(journal)[-1]["batches"] == {"t": 2} and journal.checkpoints == 2
    journal.close()


def test_a_commit_closes_the_descriptors_it_was_given(tmp_path: Path) -> None:
    journal = FetchJournal(tmp_path, parse=False)
    journal.append("t", BATCH)
    fd = os.open(tmp_path / "w", os.O_CREAT | os.O_WRONLY)
    before = len(os.listdir("/proc/self/fd"))
    commit = journal.begin_checkpoint(["w"], 0, fd)
    assert len(os.listdir("/proc/self/fd")) == before + 1  # the stream's duplicate
    commit()
    assert len(os.listdir("/proc/self/fd")) == before - 1  # both closed, the WARC one too
    journal.close()


def _exchange(url: str) -> HttpExchange:
    return HttpExchange(url, "GET", "/", "HTTP/1.1", [("Host", "h")], 200, "OK",
                        [("Content-Type", "text/html")], b"<html>x</html>", datetime.now(UTC))


def _sink(staging: Path) -> SegmentSink:
    settings = Settings().with_values([("fetcher.checkpoint.seconds", 0.0)], "test")
    return SegmentSink(staging, 0, settings, parse=False, store_content=True, warc_prefix="t",
                       journal=FetchJournal(staging, parse=False))


def _result(i: int) -> FetchResult:
    url = f"http://h.test/p{i}"
    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, fetch_time=0, fetch_interval=3600, score=1.0)
    return FetchResult(url, datum, None, _exchange(url), [])


def test_background_checkpoints_then_close_leave_a_journal_that_covers_every_row(tmp_path: Path) -> None:
    staging = tmp_path / "staging"
    sink = _sink(staging)
    for i in range(50):
        sink.result(_result(i))  # checkpoint.seconds 0: each result starts one, unless one still runs
    journal = sink.journal
    assert journal is not None
    sink.close()
    assert journal.checkpoints >= 2  # background ones, then the closing one
    last = _marks(journal)[-1]
    assert len(last["warc"]) == 1
    assert last["warc_length"] == (staging / "content" / last["warc"][0]).stat().st_size
    recovered = recover_journals(staging, parse=False)
    assert recovered.rows == 50 and recovered.fetched == 50


def test_a_failed_background_commit_is_raised_by_the_next_checkpoint(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sink = _sink(tmp_path / "staging")
    sink.result(_result(0))
    sink.checkpoint()

    def broken(fd: int) -> None:
        raise OSError(5, "disk gone")

    monkeypatch.setattr(os, "fsync", broken)
    sink.checkpoint(background=True)
    with pytest.raises(OSError, match="disk gone"):
        sink.checkpoint()
    monkeypatch.undo()
    sink.abort()
