"""linkrank and scoreupdater: LinkRank equals an independent PageRank; loops, limits, convergence; atomic installs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from gossamer.core import load_settings
from gossamer.graph import GraphError, link_rank, update_scores, write_graph
from gossamer.graph import node_scores as node_scores_module
from gossamer.store import open_live
from tests.conftest import write_lines

D = 0.85


def _graph(seed: int = 7, nodes: int = 60, links: int = 400) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """Random distinct links without self links among ``nodes`` URLs on a few hosts."""
    rng = np.random.default_rng(seed)
    urls = pa.array([f"http://h{i % 5}.test/p{i}" for i in range(nodes)])
    pairs = rng.integers(0, nodes, size=(links, 2))
    pairs = np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)
    return urls, pairs[:, 0], pairs[:, 1]


def _reference(nodes: int, src: np.ndarray, dst: np.ndarray, counted: np.ndarray, iterations: int = 10,
               damping: float = D) -> dict[int, float]:
    """Power iteration with a dense matrix, written from the formula, over the URLs that have a link."""
    used = np.zeros(nodes, bool)
    used[src] = used[dst] = True
    index = {old: new for new, old in enumerate(np.flatnonzero(used))}
    n = len(index)
    outdeg = np.zeros(n)
    for a in src:
        outdeg[index[a]] += 1  # every kept outlink counts in the division, counted or not
    matrix = np.zeros((n, n))
    for a, b, c in zip(src, dst, counted, strict=True):
        if c:
            matrix[index[b], index[a]] += 1.0 / outdeg[index[a]]
    rank = np.ones(n)
    for _ in range(iterations):
        rank = (1 - damping) + damping * (1.0 / n + matrix @ rank)
    return {old: float(rank[new]) for old, new in index.items()}


def _scores(graph: Path) -> dict[str, float]:
    with open_live(graph / "nodes") as version:
        table = pa.Table.from_batches(list(version.iter_batches()))
    return dict(zip(table.column("url").to_pylist(), table.column("score").to_pylist(), strict=True))


def _l1(got: dict[str, float], want: dict[int, float], urls: pa.Array) -> float:
    assert len(got) == len(want)
    return sum(abs(got[urls[i].as_py()] - score) for i, score in want.items())


def test_linkrank_equals_an_independent_pagerank(cli, tmp_path: Path) -> None:
    urls, src, dst = _graph()
    write_graph(tmp_path / "webgraph", urls, src, dst, load_settings())
    result = cli("linkrank", "-d", tmp_path)
    assert result.code == 0, result.err
    assert "10 iterations" in result.out
    want = _reference(len(urls), src, dst, np.ones(len(src), bool))
    assert _l1(_scores(tmp_path / "webgraph"), want, urls) < 1e-6


def test_links_not_counted_pass_nothing_but_still_divide(tmp_path: Path) -> None:
    urls, src, dst = _graph(seed=3)
    counted = np.random.default_rng(3).random(len(src)) < 0.6
    settings = load_settings()
    write_graph(tmp_path, urls, src, dst, settings, counted=counted)
    report = link_rank(tmp_path, settings)
    assert report.links == int(counted.sum()) and report.stored_links == len(src)
    assert _l1(_scores(tmp_path), _reference(len(urls), src, dst, counted), urls) < 1e-6


def test_reciprocal_links_are_removed_when_asked(tmp_path: Path) -> None:
    urls = pa.array([f"http://h{i}.test/" for i in range(6)])
    links = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 2), (4, 2), (5, 4), (2, 5)]
    src, dst = np.array([a for a, _ in links]), np.array([b for _, b in links])
    settings = load_settings(overrides=["link.analyze.remove.loops=true"])
    write_graph(tmp_path, urls, src, dst, settings)
    report = link_rank(tmp_path, settings)
    loops = {(0, 1), (1, 0), (2, 3), (3, 2)}
    assert report.loop_links == 4 and report.links == 4
    counted = np.array([(a, b) not in loops for a, b in links])
    assert _l1(_scores(tmp_path), _reference(6, src, dst, counted), urls) < 1e-9


def test_convergence_stops_early_and_iterations_and_damping_are_read(tmp_path: Path) -> None:
    urls, src, dst = _graph(seed=11)
    write_graph(tmp_path, urls, src, dst, load_settings())
    settings = load_settings(overrides=["link.analyze.convergence=0.01", "link.analyze.num.iterations=200"])
    report = link_rank(tmp_path, settings)
    assert 3 < report.iterations < 200 and report.changes[-1] < 0.01 <= report.changes[-2]
    settings = load_settings(overrides=["link.analyze.num.iterations=4", "link.analyze.damping.factor=0.5"])
    report = link_rank(tmp_path, settings)
    assert report.iterations == 4
    want = _reference(len(urls), src, dst, np.ones(len(src), bool), iterations=4, damping=0.5)
    assert _l1(_scores(tmp_path), want, urls) < 1e-6


def test_node_rows_and_ids_survive_a_linkrank_run(tmp_path: Path) -> None:
    urls, src, dst = _graph(seed=5)
    write_graph(tmp_path, urls, src, dst, load_settings())
    before = ds.dataset(tmp_path / "nodes" / "current").to_table()
    link_rank(tmp_path, load_settings())
    after = ds.dataset(tmp_path / "nodes" / "current").to_table()
    assert after.drop_columns(["score"]).equals(before.drop_columns(["score"]))
    assert after.column("score") != before.column("score")


def test_a_failure_while_writing_scores_keeps_the_previous_version(tmp_path: Path, monkeypatch) -> None:
    urls, src, dst = _graph(seed=9)
    settings = load_settings(overrides=["store.parts=3"])
    write_graph(tmp_path, urls, src, dst, settings)
    before = _scores(tmp_path)
    calls = {"n": 0}
    real = node_scores_module.PartWriter.write

    def failing(self, batch):  # noqa: ANN001 - the patched method's own signature
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        return real(self, batch)

    monkeypatch.setattr(node_scores_module.PartWriter, "write", failing)
    with pytest.raises(OSError):
        link_rank(tmp_path, settings)
    monkeypatch.undo()
    assert _scores(tmp_path) == before
    assert [p.name for p in (tmp_path / "nodes").iterdir() if p.name.startswith(".") and p.name != ".locked"] == []
    assert link_rank(tmp_path, settings).done


def test_tables_of_different_generations_are_refused(cli, tmp_path: Path) -> None:
    urls, src, dst = _graph(seed=2)
    settings = load_settings()
    write_graph(tmp_path / "webgraph", urls, src, dst, settings)
    kept = tmp_path / "kept-inlinks"
    (tmp_path / "webgraph" / "inlinks").rename(kept)
    write_graph(tmp_path / "webgraph", urls, src[:-5], dst[:-5], settings)
    (tmp_path / "webgraph" / "inlinks").rename(tmp_path / "newer")
    kept.rename(tmp_path / "webgraph" / "inlinks")
    with pytest.raises(GraphError, match="different webgraph runs"):
        link_rank(tmp_path / "webgraph", settings)
    result = cli("linkrank", "-d", tmp_path)
    assert result.code == 2 and "different webgraph runs" in result.err


def test_no_graph_and_an_empty_graph(cli, tmp_path: Path) -> None:
    result = cli("linkrank", "-d", tmp_path)
    assert result.code == 2 and "gossamer webgraph" in result.err
    write_graph(tmp_path / "webgraph", pa.array(["http://a.test/"]), np.array([], int), np.array([], int),
                load_settings())
    result = cli("linkrank", "-webgraphdb", tmp_path / "webgraph")
    assert result.code == 1 and "no nodes" in result.out


def _crawldb(cli, root: Path, urls: list[str]) -> None:
    seeds = write_lines(root / "seeds.txt", urls)
    assert cli("inject", root / "crawldb", seeds).code == 0


def _db_rows(root: Path) -> dict[str, dict]:
    table = ds.dataset(root / "crawldb" / "current").to_table()
    return {row["url"]: row for row in table.to_pylist()}


@pytest.mark.parametrize("graph_parts", [None, 3])
def test_scoreupdater_copies_node_scores_and_clears_the_rest(cli, tmp_path: Path, graph_parts: int | None) -> None:
    urls, src, dst = _graph(seed=4, nodes=30, links=80)
    overrides = [] if graph_parts is None else [f"store.parts={graph_parts}"]
    write_graph(tmp_path / "webgraph", urls, src, dst, load_settings(overrides=overrides))
    assert cli("linkrank", "-d", tmp_path).code == 0
    scores = _scores(tmp_path / "webgraph")
    in_db = [urls[i].as_py() for i in range(0, 30, 2)] + ["http://elsewhere.test/"]
    _crawldb(cli, tmp_path, in_db)
    before = _db_rows(tmp_path)
    result = cli("scoreupdater", "-d", tmp_path)
    assert result.code == 0, result.err
    after = _db_rows(tmp_path)
    assert after.keys() == before.keys()
    for url, row in after.items():
        want = scores.get(url, 0.0)
        assert row["score"] == pytest.approx(want, rel=1e-6), url
        assert {k: v for k, v in row.items() if k != "score"} == {k: v for k, v in before[url].items()
                                                                    if k != "score"}
    matched = sum(1 for url in in_db if url in scores)
    assert f"{matched} URLs took their node's score" in result.out


def test_scoreupdater_clear_score_setting_and_missing_tables(cli, tmp_path: Path) -> None:
    urls, src, dst = _graph(seed=6, nodes=10, links=20)
    write_graph(tmp_path / "webgraph", urls, src, dst, load_settings())
    _crawldb(cli, tmp_path, ["http://nowhere.test/"])
    settings = load_settings(overrides=["link.score.updater.clear.score=0.25"])
    update_scores(tmp_path / "crawldb", tmp_path / "webgraph", settings)
    assert _db_rows(tmp_path)["http://nowhere.test/"]["score"] == pytest.approx(0.25)
    result = cli("scoreupdater", "-crawldb", tmp_path / "nothing", "-webgraphdb", tmp_path / "webgraph")
    assert result.code == 2
    result = cli("scoreupdater", "-d", tmp_path / "no-crawl")
    assert result.code == 2


def test_a_failing_scoreupdater_leaves_the_crawldb_as_it_was(cli, tmp_path: Path, monkeypatch) -> None:
    from gossamer.graph import scoreupdater

    urls, src, dst = _graph(seed=8, nodes=20, links=60)
    write_graph(tmp_path / "webgraph", urls, src, dst, load_settings())
    _crawldb(cli, tmp_path, [urls[i].as_py() for i in range(20)])
    before = _db_rows(tmp_path)

    def broken(self, batch, ctx):  # noqa: ANN001 - the patched method's own signature
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(scoreupdater.UpdateScores, "__call__", broken)
    result = cli("scoreupdater", "-d", tmp_path)
    assert result.code != 0 and "No space left" in result.err
    assert _db_rows(tmp_path) == before
