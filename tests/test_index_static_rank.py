"""index.static.rank: the document boost from the scoring filters (OPIC), from LinkRank, or none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from gossamer.core import load_settings
from gossamer.graph import link_rank, write_graph
from gossamer.index.documents import IndexOptions
from gossamer.index.indexer import index
from gossamer.store import TableError
from tests.index_fixtures import Page, make_crawl
from tests.test_graph_linkrank import _scores
from tests.test_index import _docs

URLS = ["http://a.test/", "http://b.test/", "http://c.test/", "http://d.test/"]


def _crawl(tmp_path: Path) -> tuple[Path, object]:
    pages = [Page(url, f"Page {i}", f"kettle page number {i}") for i, url in enumerate(URLS)]
    return make_crawl(tmp_path / "crawl", pages, index=False)


def _index(crawl: Path, rank: str) -> dict[str, float]:
    settings = load_settings(crawl, overrides=[f"index.static.rank={rank}"])
    index(crawl / "index", crawl / "crawldb", crawl / "linkdb", sorted((crawl / "segments").iterdir()), settings,
          IndexOptions(delete_gone=True))
    return {url: doc["boost"][0] for url, doc in _docs(crawl).items()}


def test_linkrank_static_rank_reads_the_web_graph_and_leaves_the_crawldb_alone(tmp_path: Path) -> None:
    crawl, _ = _crawl(tmp_path)
    # b gets the most links; d is not in the graph at all
    write_graph(crawl / "webgraph", pa.array(URLS), np.array([0, 2, 0, 1]), np.array([1, 1, 2, 0]), load_settings())
    link_rank(crawl / "webgraph", load_settings())
    scores = _scores(crawl / "webgraph")
    boosts = _index(crawl, "linkrank")
    for url in URLS[:3]:
        assert boosts[url] == pytest.approx(scores[url], rel=1e-6)
    assert boosts["http://d.test/"] == 0.0  # link.score.updater.clear.score
    assert boosts["http://b.test/"] == max(boosts.values())
    assert set(_index(crawl, "none").values()) == {1.0}
    opic = _index(crawl, "scoring")
    assert all(boost > 0 for boost in opic.values()) and opic != boosts


def test_linkrank_static_rank_without_a_graph_is_a_clear_error(tmp_path: Path) -> None:
    crawl, _ = _crawl(tmp_path)
    with pytest.raises(TableError, match="run gossamer webgraph and gossamer linkrank"):
        _index(crawl, "linkrank")
    with pytest.raises(ValueError, match="index.static.rank"):
        load_settings(overrides=["index.static.rank=pagerank"])
