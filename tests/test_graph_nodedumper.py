"""nodedumper (API and CLI) and the webgraph command end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gossamer.graph import build_webgraph, dump_nodes, top_nodes
from gossamer.store import TableError

from .graph_fixtures import Page, conf, links_of, write_segment

A, B, C, D, X = "http://a.com/", "http://b.org/", "http://www.c.net/", "http://d.io/", "http://x.c.net/"
PAGES = [Page(A, [(B, ""), (C, ""), (D, "")]), Page(B, [(C, ""), (X, "")]), Page(C, [(D, "")])]


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    crawl = tmp_path / "crawl"
    write_segment(crawl / "segments", "20260101000000", PAGES)
    return crawl


@pytest.fixture
def graph(crawl: Path) -> Path:
    build_webgraph(crawl / "webgraph", [crawl / "segments" / "20260101000000"], conf())
    return crawl / "webgraph"


def test_top_nodes_by_each_measure(graph: Path) -> None:
    assert dump_nodes(graph, "inlinks", 2) == [f"{D}\t2", f"{C}\t2"]  # ties: by URL
    assert dump_nodes(graph, "outlinks", 1, as_eff=True) == [f"{A}=3"]
    assert [(e.key, e.value) for e in top_nodes(graph, "scores", 2)] == [(A, 1.0), (B, 1.0)]
    assert len(dump_nodes(graph, "inlinks")) == 5 and dump_nodes(graph, "inlinks", 0) == []


def test_grouped_by_host_or_domain(graph: Path) -> None:
    assert dump_nodes(graph, "inlinks", None, ("domain", "sum")) == [
        "c.net\t3", "d.io\t2", "b.org\t1", "a.com\t0"]
    assert dump_nodes(graph, "inlinks", 3, ("host", "max")) == ["d.io\t2", "www.c.net\t2", "b.org\t1"]
    assert dump_nodes(graph, "outlinks", 1, ("domain", "max")) == ["a.com\t3"]


def test_bad_requests(graph: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown measure"):
        dump_nodes(graph, "pagerank", 3)
    with pytest.raises(ValueError, match="host\\|domain"):
        dump_nodes(graph, "inlinks", 3, ("site", "sum"))
    with pytest.raises(TableError):
        dump_nodes(tmp_path / "nothing", "inlinks", 3)


def test_webgraph_and_nodedumper_commands(cli, crawl: Path, tmp_path: Path) -> None:
    result = cli("webgraph", "-d", crawl)
    assert result.code == 0, result.err
    assert "WebGraph: 1 segment(s), 0 skipped; pages 3" in result.out
    assert "WebGraph: nodes 5, links 6" in result.out
    assert cli("nodedumper", "-d", crawl, "-inlinks", "-topn", "2").out.splitlines() == [f"{D}\t2", f"{C}\t2"]
    assert cli("nodedumper", "-d", crawl, "--outlinks", "--top-n", "1", "--as-eff").out == f"{A}=3\n"
    assert cli("nodedumper", "-d", crawl, "-inlinks", "-group", "domain", "sum", "-topn", "1").out == "c.net\t3\n"
    data = json.loads(cli("nodedumper", "-d", crawl, "-scores", "-topn", "1", "--json").out)
    assert data == [{"key": A, "value": 1.0}]
    out = tmp_path / "top.txt"
    result = cli("nodedumper", "-webgraphdb", crawl / "webgraph", "-outlinks", "-output", out)
    assert result.code == 0 and out.read_text().splitlines()[0] == f"{A}\t3"
    # Nutch spellings, -D, JSON report; a second run over the same segment changes nothing
    result = cli("webgraph", "-webgraphdb", crawl / "other", "-segmentDir", crawl / "segments",
                 "-D", "link.ignore.internal.domain=false", "-normalize", "-filter", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["nodes"] == 5 and report["generation"].startswith("graph:")
    assert cli("webgraph", "-d", crawl, "-segment", crawl / "segments" / "20260101000000").code == 0
    assert links_of(crawl / "webgraph") == {(A, B), (A, C), (A, D), (B, C), (B, X), (C, D)}


def test_command_errors_and_nothing_to_do(cli, tmp_path: Path, crawl: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("webgraph", "-d", empty)
    assert result.code == 1 and "nothing to do" in result.out
    assert cli("webgraph").code == 2
    assert cli("webgraph", "-d", crawl, tmp_path / "no-such-segment").code == 2
    assert cli("nodedumper", "-d", crawl).code == 2
    assert cli("nodedumper", "-d", crawl, "-inlinks", "-scores").code == 2
    assert cli("nodedumper", "-d", empty, "-inlinks").code == 2  # no graph yet
    assert cli("nodedumper", "-d", crawl, "-inlinks", "-group", "site", "sum").code == 2
    assert cli("nodedumper", "-d", crawl, "-inlinks", "-topn", "-1").code == 2
