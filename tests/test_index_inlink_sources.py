"""The index job leaves the inlinks' source URLs out of its shuffle only when no active filter reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from gossamer.core import Inlink
from gossamer.engine import run_job
from gossamer.index.documents import IndexOptions
from gossamer.index.job import (
    INLINKS_TYPE,
    _inlink_lists,
    _without_sources,
    actions_job,
    index_inputs,
    inlink_sources_read,
)
from gossamer.plugins import IndexingFilter, PluginRepository, ScoringFilter
from gossamer.store import TableVersion, as_place, live_version_dir, part_name

from .index_fixtures import Page, make_crawl


def test_without_sources_keeps_lists_nulls_and_anchors_of_a_sliced_column() -> None:
    rows = [[{"from_url": "http://a/", "anchor": "x"}, {"from_url": None, "anchor": None}], None, [],
            [{"from_url": "http://c/", "anchor": "z"}]]
    first = [{"from_url": "http://0/", "anchor": "s"}]
    for column in (pa.array(rows, INLINKS_TYPE), pa.array([first, *rows], INLINKS_TYPE).slice(1),
                   pa.array(rows, INLINKS_TYPE).slice(3)):
        out = _without_sources(column)
        out.validate(full=True)
        assert out.type == INLINKS_TYPE and out.is_null().to_pylist() == column.is_null().to_pylist()
        got = [None if g is None else list(g) for g in _inlink_lists(out)]
        want = [None if r is None else [Inlink("", i.anchor) for i in r] for r in _inlink_lists(column)]
        assert got == want


class _Repo:
    def __init__(self, indexing: list[Any], scoring: list[Any]) -> None:
        self.chains = {IndexingFilter: indexing, ScoringFilter: scoring}

    def chain(self, point: type) -> list[Any]:
        return self.chains[point]


class _ReadsSources(IndexingFilter):
    def filter(self, doc: dict[str, Any], page: Any) -> dict[str, Any] | None:
        doc["sources"] = [i.from_url for i in page.inlinks]
        return doc


class _Quiet(_ReadsSources):
    reads_inlink_sources = False


class _Scores(ScoringFilter):
    def indexer_score(self, url: str, doc: Any, db: Any, fetch: Any, parse: Any, inlinks: Any,
                      init_score: float) -> float:
        return init_score * len(inlinks)


def test_a_filter_reads_sources_unless_it_says_it_does_not(tmp_path: Path) -> None:
    _, settings = make_crawl(tmp_path / "c", [Page("http://a.test/", "A", "a")], index=False)
    assert not inlink_sources_read(PluginRepository(settings))  # every built-in, the default chains
    assert inlink_sources_read(_Repo([_Quiet(), _ReadsSources()], []))  # type: ignore[arg-type]
    assert not inlink_sources_read(_Repo([_Quiet()], [ScoringFilter()]))  # type: ignore[arg-type]
    assert inlink_sources_read(_Repo([_Quiet()], [_Scores()]))  # type: ignore[arg-type]


def _actions(crawl: Path, out: Path, settings: Any, sources: bool) -> list[bytes]:
    db = TableVersion(live_version_dir(crawl / "crawldb"))
    links = TableVersion(live_version_dir(crawl / "linkdb"))
    try:
        inputs, _ = index_inputs(db, links, list((crawl / "segments").iterdir()), inlink_sources=sources)
        out.mkdir()
        run_job(actions_job(inputs, IndexOptions(delete_gone=True), 3), as_place(str(out)), settings)
    finally:
        db.close()
        links.close()
    tables = [pq.read_table(out / part_name(i)) for i in range(3) if (out / part_name(i)).is_file()]
    return [repr(t.to_pylist()).encode() for t in tables]


def test_the_documents_are_the_same_without_the_sources(tmp_path: Path) -> None:
    pages = [Page(f"http://s{i % 5}.test/p{i}", f"Page {i}", f"words of page {i} about kettles",
                  outlinks=[(f"http://s{(i + j) % 5}.test/p{(i + j) % 40}", f"link {i} {j}" if j % 3 else "")
                            for j in range(1, 6)]) for i in range(40)]
    crawl, settings = make_crawl(tmp_path / "crawl", pages, index=False)
    with_sources = _actions(crawl, tmp_path / "with", settings, True)
    without = _actions(crawl, tmp_path / "without", settings, False)
    assert with_sources == without
    assert any(b'"anchor"' in part for part in without)
