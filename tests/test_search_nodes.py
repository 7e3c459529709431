"""Distributed search: search nodes run as real subprocesses, a broker over RemoteNodes.

One crawl with a 4-shard index; nodes serve shards {0,1}, {2} and {3}.  The
broker over the nodes must answer exactly as the local searcher over all
shards; a killed node or a node that never answers makes the answer partial.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gossamer.core.settings import Settings
from gossamer.search.backend import SearchPage
from gossamer.search.broker import Broker, SearchResults
from gossamer.search.node_server import serve
from gossamer.search.query_parse import QuerySyntaxError
from gossamer.search.remote import NodeError, NodeUnavailable, RemoteCandidate, RemoteNode, parse_address
from gossamer.search.scoring import Stats
from gossamer.search.searcher import open_searcher
from gossamer.search.shards import ShardSet
from tests.index_fixtures import Page, make_crawl

WORDS = "alpha beta gamma delta epsilon zeta eta theta iota kappa".split()
QUERIES = [("alpha", 10, 0, None), ("beta gamma", 5, 5, None), ("alpha", 10, 0, 0), ("gamma delta", 3, 2, 1),
           ('"alpha beta"', 10, 0, None), ("site:h1.test gamma", 10, 0, 0), ("kappa -alpha", 20, 0, 2),
           ("title:theta iota", 10, 0, None), ("epsilon", 4, 6, 2)]


def _pages() -> list[Page]:
    pages = []
    for i in range(48):
        text = " ".join(WORDS[(i * j + j // 3) % 10] for j in range(1, 6 + i % 11)) + f" number{i}"
        pages.append(Page(f"http://h{i % 6}.test/p{i}", f"Page {i} {WORDS[i % 10]} {WORDS[(i * 7) % 10]}", text,
                          outlinks=[(f"http://h{(i + 1) % 6}.test/p{(i + 5) % 48}", f"see {WORDS[(i + 2) % 10]}")]))
    return pages


@dataclass
class Node:
    """A ``gossamer searchnode`` subprocess."""

    process: subprocess.Popen[str]
    address: str

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GOSSAMER_")}
    root = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


def start_nodes(crawl: Path, shard_lists: list[str], log_dir: Path) -> list[Node]:
    """Start one node per shard list (on free ports) and wait until each answers /health."""
    started: list[Node] = []
    try:
        for n, shards in enumerate(shard_lists):
            with open(log_dir / f"node-{shards}-{n}.err", "w") as err:
                process = subprocess.Popen([sys.executable, "-m", "gossamer.cli.main", "searchnode", "-d", str(crawl),
                                            "--shards", shards, "--port", "0"], stdout=subprocess.PIPE, stderr=err,
                                           text=True, env=_env())
            started.append(Node(process, ""))
        for node in started:
            line: list[str] = []
            stdout = node.process.stdout
            assert stdout is not None
            reader = threading.Thread(target=lambda out=stdout, got=line: got.append(out.readline()), daemon=True)
            reader.start()
            reader.join(30)
            assert line and line[0].startswith("searchnode serving shards"), f"node did not start: {line}"
            node.address = "127.0.0.1:" + line[0].rsplit(":", 1)[1].strip()
            RemoteNode(node.address, 5.0).health()
        return started
    except BaseException:
        for node in started:
            node.stop()
        raise


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Settings]:
    root, conf = make_crawl(tmp_path_factory.mktemp("nodes") / "crawl", _pages(), shards=4)
    return root, conf.with_values([("searcher.node.timeout", 10.0)], "test")


@pytest.fixture(scope="module")
def nodes(crawl: tuple[Path, Settings], tmp_path_factory: pytest.TempPathFactory,
          request: pytest.FixtureRequest) -> list[Node]:
    started = start_nodes(crawl[0], ["0,1", "2", "3"], tmp_path_factory.mktemp("logs"))
    for node in started:
        request.addfinalizer(node.stop)
    return started


@pytest.fixture
def remote(crawl: tuple[Path, Settings], nodes: list[Node]) -> Iterator[Broker]:
    broker = open_searcher(crawl[0], crawl[1], [n.address for n in nodes])
    yield broker
    broker.close()


@pytest.fixture(scope="module")
def local(crawl: tuple[Path, Settings]) -> Iterator[Broker]:
    broker = open_searcher(crawl[0], crawl[1])
    yield broker
    broker.close()


def assert_same(got: SearchResults, want: SearchResults) -> None:
    assert [h.url for h in got.hits] == [h.url for h in want.hits]
    assert [h.score for h in got.hits] == pytest.approx([h.score for h in want.hits], rel=1e-9)
    assert [h.more_from_site for h in got.hits] == [h.more_from_site for h in want.hits]
    assert [(h.details.title, h.details.snippet) for h in got.hits] == \
        [(h.details.title, h.details.snippet) for h in want.hits]
    assert got.total == want.total


def test_nodes_report_health(nodes: list[Node]) -> None:
    answers = [RemoteNode(n.address, 5.0).health() for n in nodes]
    assert [a["shards"] for a in answers] == [[0, 1], [2], [3]]
    assert sum(a["docs"] for a in answers) == 48
    assert len({a["generation"] for a in answers}) == 1


@pytest.mark.parametrize(("query", "n", "start", "per_site"), QUERIES)
def test_nodes_answer_like_the_local_index(remote: Broker, local: Broker, query: str, n: int, start: int,
                                           per_site: int | None) -> None:
    want = local.search(query, n, start, per_site)
    got = remote.search(query, n, start, per_site)
    assert want.hits and not got.partial and not got.failures
    assert_same(got, want)


def test_explain_through_nodes(remote: Broker, local: Broker) -> None:
    url = local.search("gamma delta", 1).hits[0].url
    got, want = remote.explain(url, "gamma delta"), local.explain(url, "gamma delta")
    assert got is not None and want is not None and got.keys() == want.keys()
    assert got["score"] == pytest.approx(want["score"], rel=1e-9) and len(got["leaves"]) == len(want["leaves"]) > 1
    for mine, theirs in zip(got["leaves"], want["leaves"], strict=True):
        assert (mine["field"], mine["term"]) == (theirs["field"], theirs["term"])
        assert mine["value"] == pytest.approx(theirs["value"], rel=1e-9)
    assert remote.explain("http://nowhere.test/", "gamma") is None


def test_bad_query_is_a_syntax_error_not_a_node_failure(remote: Broker, nodes: list[Node]) -> None:
    with pytest.raises(QuerySyntaxError, match="unterminated quote"):
        remote.search('"alpha beta', 10)
    with pytest.raises(QuerySyntaxError) as info:
        RemoteNode(nodes[0].address, 5.0).stats('gamma "delta')
    assert info.value.position == 6


def test_node_refusals(crawl: tuple[Path, Settings], nodes: list[Node]) -> None:
    node = RemoteNode(nodes[1].address, 5.0)
    stats = node.stats("alpha")
    page = node.search("alpha", 3, 0, stats)
    assert all(isinstance(c, RemoteCandidate) and c.generation == page.generation for c in page.candidates)
    stale = [RemoteCandidate(c.score, c.shard, c.segment, c.doc, c.site, c.more, "old") for c in page.candidates]
    with pytest.raises(NodeError, match="index changed"):
        node.details(stale, "alpha")
    with pytest.raises(NodeError, match="413|body size|connection"):
        node.stats("alpha " * 200_000)
    assert node.health()["shards"] == [2]
    with pytest.raises(ValueError):
        parse_address("no-port")


def test_killed_node_gives_partial_results(crawl: tuple[Path, Settings], nodes: list[Node],
                                           tmp_path: Path) -> None:
    root, conf = crawl
    (extra,) = start_nodes(root, ["2"], tmp_path)
    addresses = [nodes[0].address, extra.address, nodes[2].address]
    broker = open_searcher(root, conf, addresses)
    survivors = Broker([ShardSet(root / "index", conf, shards=[0, 1, 3])], conf)
    try:
        assert not broker.search("alpha", 10).partial  # connections to every node are open now
        extra.process.send_signal(signal.SIGKILL)
        extra.process.wait(10)
        for query, n, start, per_site in QUERIES[:4]:
            got = broker.search(query, n, start, per_site)
            assert got.partial and len(got.failures) == 1 and extra.address in got.failures[0]
            assert_same(got, survivors.search(query, n, start, per_site))
        with pytest.raises(NodeUnavailable, match=extra.address):
            RemoteNode(extra.address, 1.0).stats("alpha")
    finally:
        broker.close()
        survivors.close()
        extra.stop()


@pytest.fixture
def hanging_address() -> Iterator[str]:
    """A server that accepts connections and never answers."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(5)
    for connection in held:
        connection.close()
    server.close()


def test_hanging_node_times_out(crawl: tuple[Path, Settings], nodes: list[Node], hanging_address: str) -> None:
    root, conf = crawl
    conf = conf.with_values([("searcher.node.timeout", 1.0)], "test")
    broker = open_searcher(root, conf, [nodes[0].address, hanging_address, nodes[2].address])
    survivors = Broker([ShardSet(root / "index", conf, shards=[0, 1, 3])], conf)
    try:
        started = time.monotonic()
        got = broker.search("beta gamma", 10)
        assert time.monotonic() - started < 2.5
        assert got.partial and len(got.failures) == 1 and hanging_address in got.failures[0]
        assert_same(got, survivors.search("beta gamma", 10))
    finally:
        broker.close()
        survivors.close()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gossamer.cli.main", *args], capture_output=True, text=True,
                          env=_env(), timeout=60)


def test_search_cli_through_nodes(crawl: tuple[Path, Settings], nodes: list[Node], local: Broker) -> None:
    root = str(crawl[0])
    done = _cli("search", "-d", root, "--nodes", ",".join(n.address for n in nodes), "--json", "-n", "5",
                "alpha gamma")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    want = local.search("alpha gamma", 5)
    assert [h["url"] for h in answer["hits"]] == [h.url for h in want.hits]
    assert [h["score"] for h in answer["hits"]] == pytest.approx([h.score for h in want.hits], rel=1e-9)
    assert answer["partial"] is False and answer["total"] == want.total
    bad = _cli("search", "-d", root, "--nodes", nodes[0].address, '"alpha')
    assert bad.returncode == 2 and "bad query" in bad.stderr
    missing = _cli("searchnode", "-d", root, "--shards", "0,9", "--port", "0")
    assert missing.returncode == 1 and "no shard 9" in missing.stderr


class SlowShards:
    """Stands in for a ShardSet: a search that takes a second, an explain that fails."""

    shards: list[object] = []
    generation = "g"

    def search(self, text: str, want: int, per_site: int, stats: Stats, semantic: int = 0) -> SearchPage:
        time.sleep(1.0)
        return SearchPage([], 0, self.generation)

    def explain(self, url: str, text: str, stats: Stats) -> None:
        raise RuntimeError("boom")


@pytest.fixture
def slow_node() -> Iterator[str]:
    """An in-process node (its own event loop in a thread) over :class:`SlowShards`."""
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    ports: list[int] = []
    ready = threading.Event()

    def announce(host: str, port: int) -> None:
        ports.append(port)
        ready.set()

    thread = threading.Thread(target=lambda: loop.run_until_complete(
        serve(SlowShards(), "127.0.0.1", 0, announce, stop)), daemon=True)  # type: ignore[arg-type]
    thread.start()
    assert ready.wait(10)
    yield f"127.0.0.1:{ports[0]}"
    loop.call_soon_threadsafe(stop.set)
    thread.join(10)
    loop.close()


def test_slow_query_does_not_stall_health_and_errors_hide_tracebacks(slow_node: str) -> None:
    node = RemoteNode(slow_node, 5.0)
    worker = threading.Thread(target=lambda: node.search("x", 1, 0, Stats()))
    started = time.monotonic()
    worker.start()
    time.sleep(0.1)
    assert node.health() == {"shards": [], "docs": 0, "generation": "g"}
    assert time.monotonic() - started < 0.8
    worker.join(10)
    with pytest.raises(NodeUnavailable, match="HTTP 500: RuntimeError: boom") as info:
        node.explain("http://x.test/", "x", Stats())
    assert "Traceback" not in str(info.value)
