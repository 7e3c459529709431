"""search.semantic's nearest-neighbour graph (usearch HNSW) for large shards: built, searched, replaced, refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gossamer.index.ann import ANN_FILE, ann_rows, open_ann, set_expansion, write_ann
from gossamer.index.store import live_index, shard_name
from gossamer.search.searcher import open_searcher
from tests.index_fixtures import Page, make_crawl
from tests.test_semantic import TOPICS


def _unit_rows(n: int, dim: int = 32, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((20, dim))
    rows = centres[rng.integers(0, 20, n)] + 0.3 * rng.standard_normal((n, dim))
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float16)


def test_graph_finds_the_exact_neighbours_of_clustered_vectors(tmp_path: Path) -> None:
    matrix = _unit_rows(3000)
    assert write_ann(tmp_path, matrix, 1000) and (tmp_path / ANN_FILE).is_file()
    graph = open_ann(tmp_path, len(matrix))
    assert graph is not None
    set_expansion(graph, 10)
    queries = _unit_rows(50, seed=8).astype(np.float32)
    exact = np.argsort(-(queries @ matrix.astype(np.float32).T), axis=1)[:, :10]
    recall = np.mean([len(set(ann_rows(graph, q, 10)) & set(e)) / 10 for q, e in zip(queries, exact, strict=True)])
    assert recall >= 0.9
    assert not write_ann(tmp_path, matrix, 5000) and not (tmp_path / ANN_FILE).exists()  # below: removed
    assert not write_ann(tmp_path, matrix, 0)


def test_a_damaged_or_mismatched_graph_is_ignored(tmp_path: Path) -> None:
    matrix = _unit_rows(500)
    write_ann(tmp_path, matrix, 1)
    assert open_ann(tmp_path, 499) is None  # not this shard's vectors
    (tmp_path / ANN_FILE).write_bytes(b"not a graph")
    assert open_ann(tmp_path, 500) is None
    assert open_ann(tmp_path / "missing", 500) is None


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, object]]:
    root = tmp_path_factory.mktemp("ann")
    pages = [Page(url, title, text) for url, title, text in TOPICS]
    return {name: make_crawl(root / name, pages, shards=2, **{"search.semantic": True,
                                                              "search.semantic.ann.min.vectors": minimum})
            for name, minimum in (("graph", 1), ("exact", 0))}


def test_shards_with_graphs_rank_like_exact_search(crawls: dict[str, tuple[Path, object]]) -> None:
    graph_root, graph_conf = crawls["graph"]
    live = live_index(graph_root / "index")
    assert live is not None and all((live / shard_name(i) / ANN_FILE).is_file() for i in range(2))
    exact_live = live_index(crawls["exact"][0] / "index")
    assert exact_live is not None and not any((exact_live / shard_name(i) / ANN_FILE).exists() for i in range(2))
    with_graph, exact = open_searcher(graph_root, graph_conf), open_searcher(*crawls["exact"])
    try:
        for query in ("clock calendar timezone", "garbage storage reclaim", "copy objects"):
            a, b = with_graph.search(query, n=5, per_site=0), exact.search(query, n=5, per_site=0)
            assert [(h.url, round(h.score, 6)) for h in a.hits] == [(h.url, round(h.score, 6)) for h in b.hits]
    finally:
        with_graph.close()
        exact.close()
