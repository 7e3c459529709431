"""index and clean: documents built by the indexing filters, replaced by URL, deleted, installed atomically."""

from __future__ import annotations

from pathlib import Path

import pytest
import tantivy

from gossamer.core import CrawlStatus
from gossamer.crawl.updatedb.updater import updatedb
from gossamer.index.ballast import BALLAST_ID
from gossamer.index.documents import IndexOptions
from gossamer.index.indexer import clean, index
from gossamer.index.store import IndexDescription, shard_name, shard_of
from gossamer.search.searcher import open_searcher
from gossamer.store.install import live_version_dir
from tests.index_fixtures import Page, make_crawl, write_segment


def _pages() -> list[Page]:
    return [
        Page("http://a.test/", "Home of A", "welcome to site a, see the kettle page",
             outlinks=[("http://b.test/kettle", "copper kettle")], meta={"metatag.description": "the A home"}),
        Page("http://b.test/kettle", "Kettle", "a copper kettle boils water for tea",
             headers={"Content-Type": "text/html", "Last-Modified": "Tue, 02 Jan 2024 10:00:00 GMT",
                      "Content-Language": "en"}),
        Page("http://b.test/gone", "Gone", "this page will disappear"),
        Page("http://b.test/hidden", "Hidden", "secret words", meta={"robots": "noindex,follow"}),
        Page("http://c.test/doc.txt", "", "plain text document about kettles",
             headers={"Content-Type": "text/plain"}),
    ]


def _docs(crawl: Path, index: Path | None = None) -> dict[str, dict]:
    """Every document of the live index (``<crawl>/index``, or the local copy ``index`` of a remote one)."""
    live = index if index is not None else live_version_dir(crawl / "index")
    assert live is not None
    description = IndexDescription.read(live)
    docs = {}
    for i in range(description.shards):
        shard = tantivy.Index.open(str(live / shard_name(i)))
        searcher = shard.searcher()
        for _, address in searcher.search(tantivy.Query.all_query(), 1000).hits:
            doc = searcher.doc(address).to_dict()
            if doc["id"][0] == BALLAST_ID:
                continue
            assert shard_of(doc["id"][0], description.shards) == i
            docs[doc["id"][0]] = doc
    return docs


def test_index_builds_documents_with_every_filter(tmp_path: Path) -> None:
    crawl, _ = make_crawl(tmp_path / "crawl", _pages(), shards=3)
    docs = _docs(crawl)
    assert set(docs) == {"http://a.test/", "http://b.test/kettle", "http://b.test/gone", "http://c.test/doc.txt"}
    kettle = docs["http://b.test/kettle"]
    assert kettle["title"] == ["Kettle"] and kettle["site"] == ["b.test"]
    assert kettle["anchor"] == ["copper kettle"]  # index-anchor, from the linkdb
    assert kettle["type"] == ["text/html", "text", "html"]  # index-more
    assert kettle["last_modified"][0].year == 2024 and kettle["date"] == kettle["last_modified"]
    assert kettle["lang"] == ["en"]  # declared by Content-Language
    assert docs["http://a.test/"]["meta"] == [{"metatag.description": "the A home"}]  # index-metadata
    assert docs["http://c.test/doc.txt"]["type"][0] == "text/plain"
    assert all(d["boost"][0] > 0 and d["segment"] == ["20260101000000"] for d in docs.values())
    description = IndexDescription.read(live_version_dir(crawl / "index"))
    assert description.shards == 3 and description.docs == 4
    # shards whose average lengths fell behind the index-wide ones got a ballast document (search speed)
    assert any(description.ballast) and all(b is None or b["docs"] == 1 for b in description.ballast)


def test_reindex_replaces_by_url_and_delete_gone(tmp_path: Path) -> None:
    crawl, conf = make_crawl(tmp_path / "crawl", _pages())
    second = write_segment(crawl / "segments", "20260102000000", [
        Page("http://b.test/kettle", "Kettle v2", "a steel kettle now"),
        Page("http://b.test/gone", "", "", status=CrawlStatus.FETCH_GONE),
        Page("http://a.test/", "Home of A", "welcome", meta={"robots": "none"}),
    ])
    updatedb(crawl / "crawldb", [second], conf)
    report = index(crawl / "index", crawl / "crawldb", crawl / "linkdb", [second], conf, IndexOptions())
    docs = _docs(crawl)
    assert docs["http://b.test/kettle"]["title"] == ["Kettle v2"]  # replaced, not added twice
    assert "http://b.test/gone" in docs  # without -deleteGone a gone page stays
    assert "http://a.test/" not in docs  # a noindex page is always removed
    assert report.counters["skipped_db_gone"] == 1
    report = index(crawl / "index", crawl / "crawldb", crawl / "linkdb", [second], conf,
                   IndexOptions(delete_gone=True))
    assert "http://b.test/gone" not in _docs(crawl)
    assert len(_docs(crawl)) == 2


def test_clean_removes_gone_and_duplicate_pages(tmp_path: Path) -> None:
    crawl, conf = make_crawl(tmp_path / "crawl", _pages())
    second = write_segment(crawl / "segments", "20260102000000",
                           [Page("http://b.test/gone", "", "", status=CrawlStatus.FETCH_GONE)])
    updatedb(crawl / "crawldb", [second], conf)
    assert "http://b.test/gone" in _docs(crawl)
    report = clean(crawl / "index", crawl / "crawldb", conf)
    assert report.deleted == 1 and "http://b.test/gone" not in _docs(crawl)


def test_a_failing_index_run_leaves_the_last_good_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crawl, conf = make_crawl(tmp_path / "crawl", _pages())
    before = _docs(crawl)
    second = write_segment(crawl / "segments", "20260102000000", [Page("http://b.test/kettle", "New", "new")])

    def broken(self, doc):
        raise OSError("disk full")

    monkeypatch.setattr("gossamer.index.tantivy_writer.TantivyIndexWriter.write", broken)
    with pytest.raises(OSError):
        index(crawl / "index", crawl / "crawldb", None, [second], conf)
    monkeypatch.undo()
    assert _docs(crawl).keys() == before.keys() and _docs(crawl)["http://b.test/kettle"]["title"] == ["Kettle"]
    assert not list((crawl / "index").glob("tmp-*"))
    index(crawl / "index", crawl / "crawldb", None, [second], conf)  # the lock was released
    assert _docs(crawl)["http://b.test/kettle"]["title"] == ["New"]


def test_index_cli_and_nothing_to_index(cli, tmp_path: Path) -> None:
    crawl, _ = make_crawl(tmp_path / "crawl", _pages(), index=False)
    empty = tmp_path / "crawl" / "segments" / "20250101000000"
    empty.mkdir()
    result = cli("index", crawl / "crawldb", "-linkdb", crawl / "linkdb", "-dir", crawl / "segments",
                 "-deleteGone", "-D", "http.agent.name=t")
    assert result.code == 0, result.err
    assert "documents added/replaced: 4" in result.out and "segment 20250101000000" in result.out
    none = cli("index", crawl / "crawldb", empty, "-D", "http.agent.name=t")
    assert none.code == 2 and "none of the segments has fetched and parsed data" in none.err
    searcher = open_searcher(crawl, load_conf(crawl))
    try:
        # a.test and b.test/kettle match exactly; "kettles" is in c.test's text only, which is not stemmed
        assert searcher.search("kettle").total == 2
    finally:
        searcher.close()


def load_conf(crawl: Path):
    from tests.index_fixtures import settings_for_test

    return settings_for_test(crawl)
