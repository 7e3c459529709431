"""Hybrid semantic ranking (search.semantic): page vectors in the index, nearest pages, fusion, explain."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gossamer.index.embeddings import EmbeddingError, embedder, page_text
from gossamer.index.store import live_index, shard_name
from gossamer.index.vectors import VECTOR_IDS_FILE, VECTORS_FILE, read_vectors
from gossamer.search.searcher import open_searcher
from gossamer.store import TableError
from tests.index_fixtures import Page, make_crawl, write_segment

ON = {"search.semantic": True}

TOPICS = [
    ("http://lang.test/copy", "copy — Shallow and deep copy operations",
     "Assignment statements do not duplicate objects. A deep copy constructs a new compound object and "
     "then recursively inserts duplicates of the objects found in the original."),
    ("http://lang.test/json", "json — JSON encoder and decoder",
     "JSON is a lightweight data interchange format inspired by JavaScript object literal syntax."),
    ("http://lang.test/cookies", "http.cookies — HTTP state management",
     "The module defines classes for abstracting the concept of cookies, an HTTP state management mechanism."),
    ("http://db.test/create-index", "CREATE INDEX — define a new index",
     "CREATE INDEX constructs an index on the specified column of the specified relation, which can speed "
     "up retrieval of rows."),
    ("http://db.test/vacuum", "VACUUM — garbage-collect and optionally analyze a database",
     "VACUUM reclaims storage occupied by dead tuples left behind by updates and deletes."),
    ("http://lang.test/sorting", "Sorting HOW TO",
     "Lists have a built-in sort method that modifies the list in-place, and a sorted function that builds a "
     "new sorted list from an iterable."),
    ("http://lang.test/threads", "threading — Thread-based parallelism",
     "This module constructs higher-level threading interfaces on top of the lower level thread module."),
    ("http://lang.test/datetime", "datetime — Basic date and time types",
     "The datetime module supplies classes for manipulating dates and times, with time zone support."),
]


def _pages() -> list[Page]:
    return [Page(url, title, text) for url, title, text in TOPICS]


@pytest.fixture(scope="module")
def crawls(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Path, object]]:
    root = tmp_path_factory.mktemp("semantic")
    return {shards: make_crawl(root / f"crawl-{shards}", _pages(), shards=shards, **ON) for shards in (1, 3)}


def test_model_ships_in_its_package_and_embeds_to_unit_vectors() -> None:
    model = embedder()
    vectors = model.embed(["deep copy of a list", "", "!!!"])
    assert vectors.shape == (3, model.dim) and vectors.dtype == np.float32
    assert np.linalg.norm(vectors[0]) == pytest.approx(1.0, abs=1e-5)
    assert not vectors[1].any()
    assert np.array_equal(model.embed(["deep copy of a list"])[0], vectors[0])
    with pytest.raises(EmbeddingError, match="unknown embedding model"):
        embedder("no-such-model")
    assert page_text({"title": "T", "content": "abcdef"}, 3) == "T\nabc"


NO_NETWORK = """
import socket
def refuse(*args, **kwargs):
    raise OSError("the network was used at run time")
socket.socket.connect = socket.socket.connect_ex = refuse
socket.getaddrinfo = socket.create_connection = refuse
from gossamer.index.embeddings import embedder
vectors = embedder().embed(["deep copy of a list", "Kopie einer Liste"])
assert vectors.shape == (2, 64) and vectors.all(axis=1).any()
print("embedded offline")
"""


def test_the_weights_ship_in_the_wheel_and_nothing_is_fetched(tmp_path: Path) -> None:
    """The model's files are part of the installed distribution, and a fresh process with every socket
    refused (and an empty home and cache) loads the model and embeds: nothing is downloaded at run time."""
    import importlib.metadata
    import os
    import subprocess
    import sys

    shipped = {Path(str(f)).name for f in importlib.metadata.files("tokenlearn-static-model") or []}
    assert {"model.safetensors", "tokenizer.json", "config.json"} <= shipped
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "GOSSAMER_"))}
    env.update(HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"), HF_HUB_OFFLINE="0")
    done = subprocess.run([sys.executable, "-c", NO_NETWORK], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "embedded offline" in done.stdout, done.stderr


def test_vectors_are_stored_with_every_shard(crawls: dict[int, tuple[Path, object]]) -> None:
    root, _ = crawls[3]
    live = live_index(root / "index")
    assert live is not None
    urls: list[str] = []
    for i in range(3):
        vectors = read_vectors(live / shard_name(i))
        assert vectors is not None and vectors.matrix.dtype == np.float16 and vectors.dim == 64
        urls.extend(vectors.ids)
    assert sorted(urls) == sorted(url for url, _, _ in TOPICS)


def test_paraphrase_sharing_no_word_finds_its_page(crawls: dict[int, tuple[Path, object]]) -> None:
    root, conf = crawls[1]
    query = "clock calendar timezone"  # no word of any page
    plain = open_searcher(root, conf.with_values([("search.semantic", False)], "test"))
    hybrid = open_searcher(root, conf)
    try:
        assert not plain.search(query).hits
        found = hybrid.search(query, 3)
        assert found.hits and found.hits[0].url == "http://lang.test/datetime"
        assert found.total >= 1
        assert "http://lang.test/copy" in [h.url for h in hybrid.search("duplicate nested containers", 3).hits]
    finally:
        plain.close()
        hybrid.close()


def test_same_ranking_on_one_and_three_shards(crawls: dict[int, tuple[Path, object]]) -> None:
    brokers = [open_searcher(root, conf) for root, conf in crawls.values()]
    try:
        for query in ("copy objects", "time zones and calendars", "json", "state of the browser", "index"):
            one, three = (b.search(query, 5) for b in brokers)
            assert [h.url for h in one.hits] == [h.url for h in three.hits], query
            assert [h.score for h in one.hits] == pytest.approx([h.score for h in three.hits], rel=1e-9)
    finally:
        for broker in brokers:
            broker.close()


def test_explain_shows_both_parts_and_filters_stay_text_only(crawls: dict[int, tuple[Path, object]]) -> None:
    root, conf = crawls[3]
    broker = open_searcher(root, conf)
    try:
        hit = broker.search("deep copy", 1).hits[0]
        detail = broker.explain(hit.url, "deep copy")
        assert detail is not None and detail["leaves"]
        part = detail["semantic"]
        assert part["text_rank"] == 1 and part["semantic_rank"] >= 1 and -1 <= part["similarity"] <= 1
        assert part["score"] == pytest.approx(hit.score) and "cosine" in part["formula"]
        # a field clause: the nearest pages are not filtered, so only the text ranking counts
        filtered = broker.search("site:db.test index", 5).hits
        assert {h.url for h in filtered} <= {"http://db.test/create-index", "http://db.test/vacuum"}
    finally:
        broker.close()


def test_incremental_index_replaces_and_drops_vectors(tmp_path: Path) -> None:
    from gossamer.index.documents import IndexOptions
    from gossamer.index.indexer import index as run_index

    root, conf = make_crawl(tmp_path / "crawl", _pages()[:3], **ON)
    before = read_vectors(live_index(root / "index") / shard_name(0))
    changed = Page("http://lang.test/json", "json — renamed", "Completely different words about gardening.")
    segment = write_segment(root / "segments", "20260102000000", [changed, Page("http://new.test/", "New", "fresh")])
    run_index(root / "index", root / "crawldb", root / "linkdb", [segment], conf, IndexOptions())
    after = read_vectors(live_index(root / "index") / shard_name(0))
    assert before is not None and after is not None
    assert sorted(after.ids) == sorted([*before.ids, "http://new.test/"])
    old_row, new_row = before.ids.index("http://lang.test/json"), after.ids.index("http://lang.test/json")
    assert not np.array_equal(before.matrix[old_row], after.matrix[new_row])
    # indexing with the semantic part off leaves no stale vectors behind
    run_index(root / "index", root / "crawldb", root / "linkdb", [segment],
              conf.with_values([("search.semantic", False)], "test"), IndexOptions())
    assert read_vectors(live_index(root / "index") / shard_name(0)) is None


def test_damaged_vectors_are_a_clear_error(tmp_path: Path) -> None:
    root, conf = make_crawl(tmp_path / "crawl", _pages()[:2], **ON)
    shard = live_index(root / "index") / shard_name(0)
    meta = json.loads((shard / VECTOR_IDS_FILE).read_text())
    meta["ids"] = meta["ids"][:1]
    (shard / VECTOR_IDS_FILE).unlink()
    (shard / VECTOR_IDS_FILE).write_text(json.dumps(meta))
    with pytest.raises(TableError, match="disagree"):
        read_vectors(shard)
    (shard / VECTORS_FILE).unlink()
    with pytest.raises(TableError, match="unreadable"):
        read_vectors(shard)


def test_same_ranking_through_search_nodes(crawls: dict[int, tuple[Path, object]], tmp_path: Path) -> None:
    from tests.test_search_nodes import start_nodes

    root, conf = crawls[3]
    nodes = start_nodes(root, ["0,1", "2"], tmp_path)
    # a node loads the embedding model at its first semantic query: seconds on a loaded machine
    patient = conf.with_values([("searcher.node.timeout", 60.0)], "test")
    remote = open_searcher(root, patient, [n.address for n in nodes])
    local = open_searcher(root, conf)
    try:
        for query in ("clock calendar timezone", "copy objects", "index"):
            got, want = remote.search(query, 5), local.search(query, 5)
            assert [h.url for h in got.hits] == [h.url for h in want.hits], query
            assert [h.score for h in got.hits] == pytest.approx([h.score for h in want.hits], rel=1e-9)
        assert remote.explain("http://lang.test/datetime", "clock calendar timezone")["semantic"]["semantic_rank"] == 1
    finally:
        remote.close()
        local.close()
        for node in nodes:
            node.stop()


def test_web_explain_page_shows_the_fused_score(crawls: dict[int, tuple[Path, object]]) -> None:
    from urllib.parse import quote

    from gossamer.web import create_app
    from tests.web_fixtures import fetch
    from tests.web_server import serve_app

    root, conf = crawls[1]
    with serve_app(create_app(root, conf)) as base:
        html = fetch(base, "/explain?q=deep+copy&url=" + quote("http://lang.test/copy", safe="")).text
    assert 'id="semantic"' in html and "cosine" in html and "text rank 1" in html


def test_cli_explain_prints_the_fused_score(crawls: dict[int, tuple[Path, object]], cli) -> None:
    root, _ = crawls[1]
    out = cli("search", "-d", root, "deep copy", "-n", "1", "--explain", "-D", "search.semantic=true")
    assert out.code == 0, out.err
    assert "text ×" in out.out and "fused" in out.out and "text rank 1, semantic rank" in out.out
