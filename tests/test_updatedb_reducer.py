"""updatedb's reducer and the engine helpers it was optimized with (see bench/README.md, ``updatedb``).

The reducer copies crawldb-only URLs column-wise and runs every other URL through
:func:`reduce_values`; whatever the mix, its output must be exactly what running
:func:`reduce_values` on every URL gives, in URL order.
"""

from __future__ import annotations

import gc
import hashlib
import random
from concurrent.futures import Executor, Future
from typing import Any

import pyarrow as pa
import pytest

from gossamer.core.datum import CrawlDatum
from gossamer.core.settings import load_settings
from gossamer.core.status import CrawlStatus
from gossamer.crawl.updatedb.state_machine import (
    UpdateContext,
    UpdateSettings,
    best_inlinks,
    copy_datum,
    group_values,
    reduce_values,
)
from gossamer.crawl.updatedb.updater import UpdateReducer
from gossamer.engine import arange
from gossamer.engine.api import SEQ_COLUMN, SRC_COLUMN, TaskContext
from gossamer.engine.local import LocalEngine
from gossamer.plugins.api import ScoringFilter
from gossamer.plugins.builtin import fetchschedule_default, scoring_opic
from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA, batch_to_datums, datums_to_batch
from gossamer.store.partitioning import hosts_of

NOW = 1_800_000_000_000
DAY = 86_400_000
CRAWLDB, FETCH, PARSE = 0, 1, 2


def engine_batch(rows: list[tuple[str, int, CrawlDatum]]) -> pa.RecordBatch:
    """Rows ``(url, src, datum)`` as the engine hands them to reduce: sorted by (url, _src, _seq)."""
    rows = sorted(rows, key=lambda r: (r[0], r[1]))
    batch = datums_to_batch([(url, datum) for url, _, datum in rows])
    arrays = [*batch.columns, pa.array([src for _, src, _ in rows], pa.int16()),
              pa.array(range(len(rows)), pa.int64())]
    schema = CRAWLDB_SCHEMA.append(pa.field(SRC_COLUMN, pa.int16())).append(pa.field(SEQ_COLUMN, pa.int64()))
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def context() -> UpdateContext:
    settings = load_settings()
    return UpdateContext(fetchschedule_default.PLUGIN.factory(settings), [scoring_opic.PLUGIN.factory(settings)],
                         NOW, UpdateSettings.from_settings(settings))


def reference(batch: pa.RecordBatch, update: UpdateContext) -> list[tuple[str, CrawlDatum]]:
    """reduce_values on every URL of ``batch``: what the reducer must produce."""
    out: list[tuple[str, CrawlDatum]] = []
    groups: dict[str, list[CrawlDatum]] = {}
    for url, datum in batch_to_datums(batch):
        groups.setdefault(url, []).append(datum)
    for url, values in groups.items():
        result = reduce_values(url, values, update)
        if result is not None:
            out.append((url, result))
    return out


def run_reducer(batch: pa.RecordBatch, crawldb_src: int | None = CRAWLDB,
                additions: bool = True) -> tuple[pa.Table, TaskContext]:
    ctx = TaskContext(load_settings())
    out = list(UpdateReducer(NOW, crawldb_src, additions)(batch, ctx))
    table = pa.Table.from_batches(out, schema=CRAWLDB_SCHEMA) if out else CRAWLDB_SCHEMA.empty_table()
    return table, ctx


def mixed_rows(seed: int, urls: int = 400) -> list[tuple[str, int, CrawlDatum]]:
    """Crawldb URLs, most untouched, some fetched / linked / signed; new URLs with links or a lone signature."""
    rng = random.Random(seed)
    rows: list[tuple[str, int, CrawlDatum]] = []
    for i in range(urls):
        host = f"h{rng.randrange(7)}.example"
        url = f"http://{host}/p{i:04d}"
        new = rng.random() < 0.2
        if not new:
            meta = {"category": "news"} if rng.random() < 0.1 else {}
            rows.append((url, CRAWLDB, CrawlDatum(CrawlStatus.DB_UNFETCHED, NOW - DAY, 0, 2_592_000, 1.0,
                                                  metadata=meta)))
        r = rng.random()
        if not new and r < 0.15:
            status = rng.choice([CrawlStatus.FETCH_SUCCESS, CrawlStatus.FETCH_GONE, CrawlStatus.FETCH_RETRY,
                                 CrawlStatus.FETCH_REDIR_PERM])
            rows.append((url, FETCH, CrawlDatum(status, NOW - 1000, 0, 2_592_000, 1.0,
                                                metadata={"_ngt_": "1", "_pst_": "success(1)"})))
            if status == CrawlStatus.FETCH_SUCCESS:
                rows.append((url, PARSE, CrawlDatum(CrawlStatus.SIGNATURE, NOW,
                                                    signature=hashlib.md5(url.encode()).digest())))
        if new or r > 0.7:
            for _ in range(rng.randrange(1, 4)):
                rows.append((url, PARSE, CrawlDatum(CrawlStatus.LINKED, NOW, 0, 2_592_000, 0.125)))
        if new and rng.random() < 0.1:  # a lone signature: nothing is written
            rows[-1] = (url, PARSE, CrawlDatum(CrawlStatus.SIGNATURE, NOW, signature=b"x" * 16))
    return rows


@pytest.mark.parametrize("seed", range(5))
def test_reducer_output_equals_reduce_values_on_every_url(seed: int) -> None:
    batch = engine_batch(mixed_rows(seed))
    table, ctx = run_reducer(batch)
    expected = reference(batch, context())
    assert batch_to_datums(table) == expected
    assert table.schema == CRAWLDB_SCHEMA
    assert table.column("host").to_pylist() == hosts_of(table.column("url")).to_pylist()
    singles = [u for u, n in _counts(batch).items() if n == 1]
    crawldb_only = {u for u, src, _ in _rows(batch) if src == CRAWLDB and u in singles}
    assert ctx.counters["urls_unchanged"] == len(crawldb_only)
    assert ctx.counters["urls_updated"] == len(expected) - len(crawldb_only)
    assert ctx.counters["urls_dropped"] == len(_counts(batch)) - len(expected)


def _rows(batch: pa.RecordBatch) -> list[tuple[str, int, Any]]:
    return list(zip(batch.column("url").to_pylist(), batch.column(SRC_COLUMN).to_pylist(),
                    range(batch.num_rows), strict=True))


def _counts(batch: pa.RecordBatch) -> dict[str, int]:
    counts: dict[str, int] = {}
    for url in batch.column("url").to_pylist():
        counts[url] = counts.get(url, 0) + 1
    return counts


def test_host_of_a_new_url_is_derived_and_a_crawldb_host_is_kept() -> None:
    rows = [("http://Old.Example/a", CRAWLDB, CrawlDatum(CrawlStatus.DB_UNFETCHED, NOW, 0, 100, 1.0)),
            ("http://Old.Example/a", PARSE, CrawlDatum(CrawlStatus.LINKED, NOW, 0, 100, 0.5)),
            ("http://New.Example:8080/b", PARSE, CrawlDatum(CrawlStatus.LINKED, NOW, 0, 100, 0.5))]
    batch = engine_batch(rows)
    hosts = pa.array(["wrong", "kept-as-stored", "ignored"])  # rows: new (link), old (crawldb), old (link)
    batch = batch.set_column(1, "host", hosts)
    table, _ = run_reducer(batch)
    assert table.column("url").to_pylist() == ["http://New.Example:8080/b", "http://Old.Example/a"]
    assert table.column("host").to_pylist() == ["new.example", "kept-as-stored"]


def test_all_copied_none_copied_and_single_rows() -> None:
    old = CrawlDatum(CrawlStatus.DB_FETCHED, NOW, 0, 100, 2.0, metadata={"k": "v"})
    only_db = engine_batch([(f"http://a.example/{i}", CRAWLDB, old) for i in range(5)])
    table, ctx = run_reducer(only_db)
    assert table.equals(pa.Table.from_batches([only_db.select(CRAWLDB_SCHEMA.names)]).cast(CRAWLDB_SCHEMA))
    assert ctx.counters["urls_unchanged"] == 5
    only_links = engine_batch([(f"http://b.example/{i}", PARSE, CrawlDatum(CrawlStatus.LINKED, NOW, 0, 100, 0.5))
                               for i in range(3)])
    table, ctx = run_reducer(only_links)
    assert batch_to_datums(table) == reference(only_links, context())
    assert ctx.counters["urls_unchanged"] == 0 and ctx.counters["urls_updated"] == 3
    one = engine_batch([("http://c.example/", PARSE, CrawlDatum(CrawlStatus.LINKED, NOW, 0, 100, 0.5))])
    assert run_reducer(one)[0].num_rows == 1
    dropped = engine_batch([("http://c.example/", PARSE, CrawlDatum(CrawlStatus.LINKED, NOW, 0, 100, 0.5))])
    table, ctx = run_reducer(dropped, additions=False)
    assert table.num_rows == 0 and ctx.counters["urls_dropped"] == 1


def test_without_crawldb_or_with_an_orphan_hook_nothing_is_copied(monkeypatch: pytest.MonkeyPatch) -> None:
    batch = engine_batch(mixed_rows(7, urls=60))
    table, ctx = run_reducer(batch, crawldb_src=None)  # a new crawldb: every row goes through reduce
    assert ctx.counters["urls_unchanged"] == 0
    assert batch_to_datums(table) == reference(batch, context())

    class Orphans(ScoringFilter):
        def orphaned_score(self, url: str, datum: CrawlDatum) -> None:
            datum.score = -1.0

    update = UpdateContext(context().schedule, [Orphans()], NOW, UpdateSettings())
    monkeypatch.setattr(UpdateReducer, "_context", lambda self, ctx: (update, False))
    table, ctx = run_reducer(batch)
    assert ctx.counters["urls_unchanged"] == 0
    assert batch_to_datums(table) == reference(batch, update)
    assert -1.0 in table.column("score").to_pylist()


@pytest.mark.parametrize("enabled", [True, False])
def test_reducer_leaves_the_garbage_collector_as_it_found_it(enabled: bool) -> None:
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        run_reducer(engine_batch(mixed_rows(3, urls=50)))
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_copy_datum_is_an_independent_copy() -> None:
    datum = CrawlDatum(CrawlStatus.DB_FETCHED, 5, 1, 2, 3.0, b"sig", 4, {"a": "b"})
    copied = copy_datum(datum)
    assert copied == datum.copy() == datum
    copied.metadata["c"] = "d"
    assert datum.metadata == {"a": "b"}


def test_best_inlinks_and_grouping_keep_their_contract() -> None:
    links = [CrawlDatum(CrawlStatus.LINKED, 0, score=s) for s in (0.1, 0.5, 0.5, 0.3)]
    assert best_inlinks(links, 3) == [links[1], links[2], links[3]]
    assert best_inlinks(iter(links[:1]), 5) == links[:1]
    assert best_inlinks(links[:1], 0) == []
    old1 = CrawlDatum(CrawlStatus.DB_FETCHED, 10)
    old2 = CrawlDatum(CrawlStatus.DB_GONE, 20)
    fetch = CrawlDatum(CrawlStatus.PARSE_FAILED, 30)
    meta = CrawlDatum(CrawlStatus.PARSE_META, 0, metadata={"m": "1"})
    grouped = group_values([old1, links[0], old2, fetch, meta, CrawlDatum(CrawlStatus.INJECTED, 0)])
    assert (grouped.old, grouped.fetches, grouped.linked, grouped.parse_meta) == (old2, [fetch], [links[0]],
                                                                                  {"m": "1"})


def test_arange() -> None:
    assert arange(5, 3).to_pylist() == [5, 6, 7]
    assert arange(0, 0).to_pylist() == []
    big = arange(1 << 41, 70_000)
    assert len(big) == 70_000 and big[0].as_py() == 1 << 41 and big[-1].as_py() == (1 << 41) + 69_999
    assert big.type == pa.int64()


class _Recorder(Executor):
    """Runs tasks at once and records the order they were submitted in."""

    def __init__(self) -> None:
        self.order: list[Any] = []

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.order.append(args[0])
        future: Future[Any] = Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_tasks_start_largest_first_but_results_come_in_task_order() -> None:
    engine = LocalEngine(load_settings())
    pool = _Recorder()
    results = list(engine._gather(pool, lambda task, settings, budget: task * 10, [1, 2, 3, 4], None,  # type: ignore[arg-type]
                                  "map", [5, 50, 7, 50]))
    assert pool.order == [2, 4, 3, 1]
    assert results == [10, 20, 30, 40]
