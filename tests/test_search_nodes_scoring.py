"""Issue 20's scoring through search nodes: name, description, soft and stemmed matches score as on one index.

One crawl indexed into 1 shard and into 3 shards with stemmed shadow fields and soft matching on; the
3-shard index is also served by two ``gossamer searchnode`` processes, which read the same settings from
the crawl's ``gossamer.toml``.  Every query must give the same hits, scores and totals on the three.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from gossamer.core.settings import Settings
from gossamer.search.broker import Broker
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl
from tests.test_search_analysis import pages as analysis_pages
from tests.test_search_nodes import Node, start_nodes

ON: dict[str, object] = {"index.analysis.fields": ["title", "anchor", "content"], "query.stem.boost": 0.5,
                         "query.soft": True}

QUERIES = [
    "os.path.join",                          # a name: the page titled so
    "shallow copy",                          # description match: every word in one page's opening
    "copy list without shared duplicates",   # soft: no page has every word
    "crawl",                                 # stemmed: "Crawling" by its stem, below the exact "Crawl"
    "haus cafe",                             # stems and accent folding by page language, soft
    "os.path.join components kettle",        # a word the index splits stays required in the soft tier
]


def pages() -> list[Page]:
    """The pages of the analysis tests, the copy page with an opening that states its subject."""
    opening = {"opening": "Shallow and deep copy operations on lists"}
    return [replace(p, meta={**p.meta, **opening}) if p.url == "http://c.test/copy" else p for p in analysis_pages()]


def _toml(value: object) -> str:
    return "[" + ", ".join(json.dumps(v) for v in value) + "]" if isinstance(value, list) else json.dumps(value)


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, Settings]]:
    root = tmp_path_factory.mktemp("nodes-scoring")
    made = {n: make_crawl(root / f"shards{n}", pages(), shards=n, **ON) for n in (1, 3)}
    # the nodes read their settings from the crawl directory, as `gossamer searchnode -d` does
    (made[3][0] / "gossamer.toml").write_text("".join(f"{json.dumps(k)} = {_toml(v)}\n" for k, v in ON.items()))
    return made


@pytest.fixture(scope="module")
def brokers(crawls: dict[int, tuple[Path, Settings]],
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Broker]]:
    root, conf = crawls[3]
    nodes: list[Node] = start_nodes(root, ["0,1", "2"], tmp_path_factory.mktemp("logs"))
    opened = {"one": open_searcher(*crawls[1]), "three": open_searcher(root, conf),
              "nodes": open_searcher(root, conf.with_values([("searcher.node.timeout", 30.0)], "test"),
                                     [n.address for n in nodes])}
    try:
        yield opened
    finally:
        for broker in opened.values():
            broker.close()
        for node in nodes:
            node.stop()


@pytest.mark.parametrize("query", QUERIES)
def test_same_hits_and_scores_on_1_shard_3_shards_and_2_nodes(brokers: dict[str, Broker], query: str) -> None:
    answers = {name: broker.search(query, n=20, per_site=0) for name, broker in brokers.items()}
    want = answers["one"]
    assert want.hits, query
    for name in ("three", "nodes"):
        got = answers[name]
        assert not got.partial and got.total == want.total, (name, query)
        assert {h.url: h.score for h in got.hits} == pytest.approx({h.url: h.score for h in want.hits}, rel=1e-9)
    grouped = [[h.score for h in broker.search(query, n=3, per_site=1).hits] for broker in brokers.values()]
    assert grouped[1] == pytest.approx(grouped[0], rel=1e-9) and grouped[2] == pytest.approx(grouped[0], rel=1e-9)


def test_the_scoring_parts_are_exercised_and_explained_alike(brokers: dict[str, Broker]) -> None:
    """Each query above really takes the part it is there for, and nodes explain it as one index does."""
    cases = [("os.path.join", "http://c.test/join", "name_factor", lambda v: v > 1),
             ("shallow copy", "http://c.test/copy", "opening_factor", lambda v: v > 1),
             ("copy list without shared duplicates", "http://c.test/copy", "coordination", lambda v: 0 < v < 1)]
    for query, url, part, taken in cases:
        details = [brokers[name].explain(url, query) for name in ("one", "nodes")]
        assert details[0] is not None and details[1] is not None, query
        assert taken(details[0][part]), (query, part, details[0][part])
        assert details[1][part] == pytest.approx(details[0][part]), (query, part)
        assert details[1]["score"] == pytest.approx(details[0]["score"], rel=1e-9), query
    stemmed = brokers["nodes"].explain("http://a.test/crawling", "crawl")
    assert stemmed is not None and {leaf["field"] for leaf in stemmed["leaves"]} <= {
        "title_stem_en", "content_stem_en", "anchor_stem_en"}
