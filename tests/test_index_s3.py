"""The full-text index on ``s3://`` (a real S3 server on loopback): ``index`` and ``clean`` from S3
inputs give the documents, hits and scores the same commands give on local paths; a failure before
the pointer PUT leaves the previous version live and its orphan to the next writer; searchers
(``search``, ``serve``) read a local copy of the live version and switch when a new one is installed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pyarrow.fs as pafs
import pytest
import tantivy

from gossamer.core import CrawlStatus
from gossamer.core.settings import Settings
from gossamer.crawl.updatedb.updater import updatedb
from gossamer.index.ballast import BALLAST_ID
from gossamer.index.cache import IndexCache
from gossamer.index.indexer import index
from gossamer.index.store import IndexDescription, shard_name
from gossamer.store.install import live_version_dir
from gossamer.store.install_remote import read_pointer
from gossamer.store.location import Location
from gossamer.store.transfer import copy_tree
from gossamer.web import create_app
from tests.index_fixtures import Page, make_crawl, settings_for_test, write_segment
from tests.s3_server import S3Server, s3_server
from tests.test_index import _pages
from tests.web_fixtures import fetch
from tests.web_server import serve_app

QUERIES = ["kettle", "copper kettle", "site:b.test water", "welcome OR plain"]
SECOND = "20260102000000"


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    with s3_server() as server:
        yield server


def docs_in(version: Path) -> dict[str, dict]:
    """Every document of an index version directory, by URL (ballast left out)."""
    description = IndexDescription.read(version)
    docs = {}
    for i in range(description.shards):
        searcher = tantivy.Index.open(str(version / shard_name(i))).searcher()
        for _, address in searcher.search(tantivy.Query.all_query(), 1000).hits:
            doc = searcher.doc(address).to_dict()
            if doc["id"][0] != BALLAST_ID:
                docs[doc["id"][0]] = doc
    return docs


def local_docs(index_dir: Path) -> dict[str, dict]:
    live = live_version_dir(index_dir)
    assert isinstance(live, Path)
    return docs_in(live)


def remote_docs(uri: str, settings: Settings) -> dict[str, dict]:
    fetched = IndexCache(Location.parse(uri, settings), settings).fetch_live()
    assert fetched is not None
    return docs_in(fetched[0])


def upload(local: Path, uri: str, settings: Settings) -> None:
    """Copy a local segment (the very same files) to S3.

    The index fixtures' segments have no fetch list; on a remote store a segment exists by its
    ``crawl_generate/_SUCCESS`` (see test_segments_s3), so the marker is written as generate would.
    """
    target = Location.parse(uri, settings)
    copy_tree(local, target)
    (target / "crawl_generate" / "_SUCCESS").write_bytes(b"")


def search_json(cli, where: list[str | Path], query: str, defines: list[str]) -> dict:
    """``search --json`` (timing left out)."""
    result = cli("search", *where, query, "--json", "--per-site", "0", *defines)
    answer = json.loads(result.out)
    assert result.code == (0 if answer["total"] else 1), result.err  # 1: nothing found
    answer.pop("seconds", None)
    return answer


def answers(cli, where: list[str | Path], defines: list[str]) -> list[dict]:
    """``search --json`` for every query."""
    return [search_json(cli, where, query, defines) for query in QUERIES]


def s3_crawl(cli, s3: S3Server, tmp_path: Path, update: bool = True) -> tuple[Path, str, list[str], Settings]:
    """A local crawl (two segments, the second marking a page gone; the crawldb updated from it unless
    not ``update``) and the same crawl on S3.

    Returns the local crawl, the S3 crawl's URI, the ``-D`` options and the settings reaching S3.
    """
    crawl, conf = make_crawl(tmp_path / "crawl", _pages(), shards=2, index=False)
    second = write_segment(crawl / "segments", SECOND, [
        Page("http://b.test/kettle", "Kettle v2", "a steel kettle now"),
        Page("http://b.test/gone", "", "", status=CrawlStatus.FETCH_GONE),
        Page("http://d.test/", "Kettle shop", "every kettle you need, copper and steel")])
    if update:
        updatedb(crawl / "crawldb", [second], conf)
    values = [*s3.defines, f"index.cache.dir={tmp_path / 'cache'}", "index.remote.check.seconds=0",
              "index.shards=2", "http.agent.name=t", "engine.local.workers=1"]
    defines = [f"-D{v}" for v in values]
    root = f"s3://{s3.bucket()}/crawl"
    assert cli("mergedb", f"{root}/crawldb", crawl / "crawldb", *defines).code == 0
    assert cli("mergelinkdb", f"{root}/linkdb", crawl / "linkdb", *defines).code == 0
    settings = settings_for_test(tmp_path, **dict(v.split("=", 1) for v in values))
    for segment in sorted((crawl / "segments").iterdir()):
        upload(segment, f"{root}/segments/{segment.name}", settings)
    return crawl, root, defines, settings


def versions(uri: str, settings: Settings) -> set[str]:
    return {i.base_name for i in Location.parse(uri, settings).list() if i.base_name.startswith(("v-", "tmp-"))}


def test_index_and_clean_on_s3_equal_the_same_on_local_paths(cli, s3: S3Server, tmp_path: Path) -> None:
    crawl, root, d, settings = s3_crawl(cli, s3, tmp_path, update=False)
    first = crawl / "segments" / "20260101000000"
    local = cli("index", crawl / "crawldb", "-linkdb", crawl / "linkdb", first, *d)
    remote = cli("index", f"{root}/crawldb", "-linkdb", f"{root}/linkdb", f"{root}/segments/{first.name}", *d)
    assert local.code == 0 and remote.code == 0, remote.err
    assert "documents added/replaced: 4" in local.out and "documents added/replaced: 4" in remote.out
    assert "uploaded index version v-" in remote.out
    assert remote_docs(f"{root}/index", settings) == local_docs(crawl / "index")
    assert answers(cli, ["--index", f"{root}/index"], d) == answers(cli, ["-d", crawl], d)

    # incremental: every segment (-dir) into the existing index; the cached copy is reused, not downloaded
    for crawldb in (crawl / "crawldb", f"{root}/crawldb"):
        assert cli("updatedb", crawldb, crawl / "segments" / SECOND, *d).code == 0
    local = cli("index", crawl / "crawldb", "-linkdb", crawl / "linkdb", "-dir", crawl / "segments", *d)
    remote = cli("index", f"{root}/crawldb", "-linkdb", f"{root}/linkdb", "-dir", f"{root}/segments", *d)
    assert local.code == 0 and remote.code == 0, remote.err
    assert "downloaded index version" not in remote.out
    docs = remote_docs(f"{root}/index", settings)
    assert docs == local_docs(crawl / "index") and docs["http://b.test/kettle"]["title"] == ["Kettle v2"]
    assert "http://b.test/gone" in docs  # no -deleteGone: kept until clean
    assert answers(cli, ["-d", root], d) == answers(cli, ["-d", crawl], d)  # -d names the crawl on S3

    # clean: the gone page leaves both indexes
    local, remote = cli("clean", crawl / "crawldb", *d), cli("clean", f"{root}/crawldb", *d)
    assert local.code == 0 and remote.code == 0, remote.err
    assert "delete requests: 1" in local.out and "delete requests: 1" in remote.out
    docs = remote_docs(f"{root}/index", settings)
    assert docs == local_docs(crawl / "index") and "http://b.test/gone" not in docs
    assert answers(cli, ["--index", f"{root}/index"], d) == answers(cli, ["-d", crawl], d)
    pointer = read_pointer(Location.parse(f"{root}/index", settings))
    assert pointer is not None and versions(f"{root}/index", settings) == {pointer["current"], pointer["previous"]}
    # the cache holds the live version only (and no download or scratch directory)
    live = Location.parse(f"{root}/index", settings) / str(pointer["current"])
    (folder,) = list((tmp_path / "cache").iterdir())
    assert [p.name for p in folder.iterdir()] == [f"{live.name}-{IndexDescription.read(live).created}"]


def test_a_failure_before_the_pointer_put_leaves_the_previous_index(cli, s3: S3Server, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer dying between the upload and the ``CURRENT`` PUT: the old version stays live and
    searchable, and the next writer's recovery deletes the orphaned upload."""
    crawl, root, d, settings = s3_crawl(cli, s3, tmp_path)
    uri = f"{root}/index"
    place = Location.parse(uri, settings)
    segments = [Location.parse(f"{root}/segments/{name}", settings) for name in ("20260101000000", SECOND)]
    crawldb = Location.parse(f"{root}/crawldb", settings)
    index(place, crawldb, None, segments[:1], settings)
    before = read_pointer(place)
    searched_before = search_json(cli, ["--index", uri], "kettle", d)

    def crash(*args: object, **kwargs: object) -> None:
        raise RuntimeError("killed before the pointer PUT")

    monkeypatch.setattr("gossamer.store.install_remote.install", crash)
    monkeypatch.setattr("gossamer.index.target.discard", lambda staging: None)  # died: nothing cleans up
    with pytest.raises(RuntimeError, match="pointer PUT"):
        index(place, crawldb, None, segments[1:], settings)
    monkeypatch.undo()
    assert read_pointer(place) == before
    orphans = versions(uri, settings) - {before["current"]}
    assert len(orphans) == 1 and (place / orphans.pop() / "_SUCCESS").is_file()  # complete, but never installed
    assert remote_docs(uri, settings)["http://b.test/kettle"]["title"] == ["Kettle"]
    assert search_json(cli, ["--index", uri], "kettle", d) == searched_before
    assert not (place / ".locked").exists()

    report = index(place, crawldb, None, segments[1:], settings)
    assert any(note.startswith("removed unfinished version v-") for note in report.notes)
    pointer = read_pointer(place)
    assert pointer is not None and versions(uri, settings) == {pointer["current"], pointer["previous"]}
    assert remote_docs(uri, settings)["http://b.test/kettle"]["title"] == ["Kettle v2"]


def test_serve_searches_an_s3_index_and_switches_to_a_new_version(cli, s3: S3Server, tmp_path: Path) -> None:
    crawl, root, d, settings = s3_crawl(cli, s3, tmp_path)
    uri = f"{root}/index"
    assert cli("index", f"{root}/crawldb", f"{root}/segments/20260101000000", *d).code == 0
    assert cli("index", crawl / "crawldb", crawl / "segments" / "20260101000000", *d).code == 0
    reader_cache = tmp_path / "reader-cache"  # another machine's cache: it must download
    reader = settings.with_values([("index.cache.dir", str(reader_cache))], "test")
    local_app = create_app(crawl, settings)
    remote_app = create_app(tmp_path / "nowhere", reader, index=Location.parse(uri, reader))
    with serve_app(local_app) as local, serve_app(remote_app) as remote:
        for query in QUERIES:
            path = f"/api/search?q={query.replace(' ', '+')}&per_site=0"
            mine, theirs = fetch(remote, path).json(), fetch(local, path).json()
            mine.pop("seconds", None), theirs.pop("seconds", None)
            assert mine == theirs
        assert fetch(remote, "/api/search?q=shop").json()["total"] == 0
        assert cli("index", f"{root}/crawldb", f"{root}/segments/{SECOND}", *d).code == 0
        found = fetch(remote, "/api/search?q=shop").json()
        assert found["total"] == 1 and found["hits"][0]["url"] == "http://d.test/"
        assert "Kettle shop" in fetch(remote, "/search?q=shop").text
    pointer = read_pointer(Location.parse(uri, settings))
    assert pointer is not None
    (folder,) = list(reader_cache.iterdir())
    assert [p.name.split("-1")[0] for p in folder.iterdir()] == ["v"]  # the old copy was deleted
    assert next(folder.iterdir()).name.startswith(str(pointer["current"]))


def test_two_readers_sharing_a_cache_download_one_copy(cli, s3: S3Server, tmp_path: Path) -> None:
    crawl, root, d, settings = s3_crawl(cli, s3, tmp_path)
    assert cli("index", f"{root}/crawldb", f"{root}/segments/20260101000000", *d).code == 0
    fresh = settings.with_values([("index.cache.dir", str(tmp_path / "shared"))], "test")
    place = Location.parse(f"{root}/index", fresh)
    got: list[Path] = []

    def read() -> None:
        fetched = IndexCache(place, fresh).fetch_live()
        assert fetched is not None
        got.append(fetched[0])

    threads = [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 3 and len(set(got)) == 1
    assert [p.name for p in got[0].parent.iterdir()] == [got[0].name]  # no download left behind
    assert len(docs_in(got[0])) == 3  # the gone page is not indexed
    # a damaged copy is noticed and fetched again
    (got[0] / "_SUCCESS").unlink()
    fetched = IndexCache(place, fresh).fetch_live()
    assert fetched is not None and len(docs_in(fetched[0])) == 3


def test_bad_index_uris_are_usage_errors(cli, s3: S3Server, tmp_path: Path) -> None:
    crawl, _ = make_crawl(tmp_path / "crawl", _pages(), index=False)
    d = [f"-D{x}" for x in s3.defines]
    bad = cli("index", crawl / "crawldb", "-dir", crawl / "segments", "--index", "ftp://host/index", *d)
    assert bad.code == 2 and "unsupported filesystem" in bad.err
    missing = cli("search", "--index", f"s3://{s3.bucket()}/none/index", "kettle", *d)
    assert missing.code == 1 and "no index at s3://" in missing.err


def test_an_index_on_a_rename_filesystem_installs_by_rename(tmp_path: Path) -> None:
    """HDFS's protocol (``current``/``old``/``tmp-*``, through pyarrow; here a local filesystem seen as
    a remote one): the writer uploads into ``tmp-*`` and renames; searchers read a cached copy keyed by
    name and creation time, and switch to the next ``current``."""
    import shutil

    from gossamer.index.target import IndexTarget
    from gossamer.search.shards import ShardSet

    crawl, conf = make_crawl(tmp_path / "crawl", _pages())
    settings = conf.with_values([("index.cache.dir", str(tmp_path / "cache")), ("index.remote.check.seconds", 0.0)],
                                "test")
    place = Location.on(pafs.LocalFileSystem(), str(tmp_path / "remote" / "index"), rename_atomic=True)

    def install_copy_of_local_index() -> None:
        target = IndexTarget(place, settings)
        target.acquire()
        try:
            scratch = target.new_scratch()
            shutil.rmtree(scratch)
            shutil.copytree(crawl / "index" / "current", scratch)
            target.install(scratch)
        finally:
            target.release()

    install_copy_of_local_index()
    assert sorted(p.name for p in (tmp_path / "remote" / "index").iterdir()) == ["current"]
    shards = ShardSet(place, settings)
    assert shards.stats("kettle").docs == 4 and shards._key.startswith("current-")
    first = shards._key
    index(crawl / "index", crawl / "crawldb", None, [write_segment(crawl / "segments", SECOND, [
        Page("http://d.test/", "Kettle shop", "every kettle you need")])], settings)
    install_copy_of_local_index()
    assert sorted(p.name for p in (tmp_path / "remote" / "index").iterdir()) == ["current", "old"]
    shards.refresh()
    assert shards.stats("kettle").docs == 5 and shards._key != first
    assert [p.name for p in shards.cache.root.iterdir()] == [shards._key]
