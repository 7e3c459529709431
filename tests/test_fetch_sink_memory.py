"""A fetch process's sink: its four part writers under one sort budget; the parser let go before the merges."""

from __future__ import annotations

import random
import weakref
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from gossamer.core import Content, CrawlDatum, CrawlStatus, HttpExchange, Settings
from gossamer.crawl.fetch import segment_sink
from gossamer.crawl.fetch.results import FetchResult
from gossamer.crawl.fetch.segment_sink import SegmentSink
from gossamer.engine import SortedPartWriter

WORDS = "alpha beta gamma delta epsilon zeta theta iota kappa lambda".split()


def _page(rng: random.Random, i: int) -> FetchResult:
    url = f"http://h{rng.randrange(50)}.test/p{i}"
    text = " ".join(rng.choice(WORDS) for _ in range(400))
    links = "".join(f'<a href="/p{rng.randrange(5000)}">link {j}</a>' for j in range(8))
    body = f"<html><head><title>page {i}</title></head><body><p>{text}</p>{links}</body></html>".encode()
    headers = [("Content-Type", "text/html")]
    content = Content(url, url, body, "text/html", headers, {})
    exchange = HttpExchange(url, "GET", "/", "HTTP/1.1", [("Host", "h")], 200, "OK", headers, body,
                            datetime.now(UTC))
    datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, fetch_time=0, fetch_interval=3600, score=1.0)
    return FetchResult(url, datum, content, exchange, [])


def _sink(staging: Path, budget_mb: int) -> SegmentSink:
    settings = Settings().with_values([("engine.memory.budget.mb", budget_mb), ("http.agent.name", "t")], "test")
    return SegmentSink(staging, 0, settings, parse=True, store_content=True, warc_prefix="t")


def test_the_four_writers_share_half_the_budget_and_spill_the_largest(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    sink = _sink(tmp_path / "staging", budget_mb=4)
    budget = sink.sort_budget
    assert budget.memory_bytes == (4 << 20) // segment_sink.SORT_SHARES
    writers = list(sink.plain_writers.values())
    assert len(writers) == 4 and all(w._budget is budget for w in writers)  # noqa: SLF001
    most = [0]
    real_grew = budget.grew

    def grew() -> None:
        real_grew()
        most[0] = max(most[0], budget.buffered_bytes())

    monkeypatch.setattr(budget, "grew", grew)
    rng = random.Random(3)
    for i in range(2500):
        sink.result(_page(rng, i))
    assert budget.spills >= 2 and most[0] < budget.spill_bytes
    runs = {name: writer.spilled_runs for name, writer in sink.plain_writers.items()}
    assert runs["parse_text"] == max(runs.values())  # the widest table fills fastest, spills most
    rows = sink.close()
    assert rows["crawl_fetch"] == rows["parse_text"] == rows["parse_data"] == 2500
    for table in ("crawl_fetch", "parse_text", "parse_data", "crawl_parse"):
        urls = pq.read_table(tmp_path / "staging" / table / "part-00000.parquet", columns=["url"]).column(0).to_pylist()
        assert urls == sorted(urls)
    assert not list((tmp_path / "staging").rglob("*.runs"))


def test_close_lets_the_parser_go_before_any_part_is_merged_and_merges_the_most_runs_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sink = _sink(tmp_path / "staging", budget_mb=4)
    rng = random.Random(5)
    for i in range(2500):
        sink.result(_page(rng, i))
    parser = weakref.ref(sink.parser)
    closed: list[tuple[str, int, bool]] = []
    real_close = SortedPartWriter.close

    def close(writer: SortedPartWriter) -> int:
        closed.append((writer.path.parent.name, writer.spilled_runs, parser() is None))
        return real_close(writer)

    monkeypatch.setattr(SortedPartWriter, "close", close)
    sink.close()
    assert sink.parser is None and all(gone for _, _, gone in closed)
    parse_tables = [(name, runs) for name, runs, _ in closed if name != "crawl_fetch"]
    assert [runs for _, runs in parse_tables] == sorted(runs for _, runs in parse_tables)
    assert parse_tables[-1][0] == "parse_text"


def test_abort_after_spills_leaves_no_runs_and_no_spill_thread(tmp_path: Path) -> None:
    import threading

    sink = _sink(tmp_path / "staging", budget_mb=4)
    rng = random.Random(7)
    for i in range(2200):
        sink.result(_page(rng, i))
    assert sink.sort_budget.spills >= 1
    sink.abort()
    assert sink.parser is None
    assert not list((tmp_path / "staging").rglob("*.runs"))
    assert not any(t.name.startswith("sorted-part-spill") for t in threading.enumerate())
