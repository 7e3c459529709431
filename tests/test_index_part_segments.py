"""Documents indexed in the index job's own tasks, adopted as segments: the index the driver's feeding makes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
import tantivy

from gossamer.core import CrawlStatus, Settings
from gossamer.crawl.updatedb.updater import updatedb
from gossamer.index.documents import IndexOptions
from gossamer.index.indexer import index
from gossamer.index.job import ACTIONS_SCHEMA
from gossamer.index.part_segments import (
    ACTIONS_FILE,
    PartSegments,
    attach_segments,
    part_actions,
    segment_files,
)
from gossamer.index.schema import build_schema
from gossamer.index.store import IndexDescription, shard_name, shard_of
from gossamer.plugins import IndexField
from gossamer.store import TableError, iter_arrow_part
from gossamer.store.install import live_version_dir
from tests.index_fixtures import Page, make_crawl, write_segment
from tests.test_index import _docs

WORDS = ("kettle", "copper", "über", "steam", "tea", "naïve", "boil", "water", "☕", "pot")


def _pages(n: int = 48) -> list[Page]:
    return [Page(f"http://s{i % 5}.test/p{i}", f"Page {i} {WORDS[i % len(WORDS)]}",
                 " ".join(WORDS[(i * k) % len(WORDS)] for k in range(1, 12 + i % 7)),
                 outlinks=[(f"http://s{(i + 1) % 5}.test/p{(i + 1) % n}", f"to {WORDS[i % 4]}")])
            for i in range(n)]


def _driver_fed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every document through ``IndexWriter.write``, as on a cluster engine."""
    monkeypatch.setattr("gossamer.index.tantivy_writer.TantivyIndexWriter.part_builder", lambda self: None)


def _scores(live: Path, shards: int, query: str) -> list[tuple[float, str]]:
    out = []
    for i in range(shards):
        shard = tantivy.Index.open(str(live / shard_name(i)))
        searcher = shard.searcher()
        parsed = shard.parse_query(query, ["title", "content", "anchor"])
        for score, address in searcher.search(parsed, 100).hits:
            out.append((round(score, 5), searcher.doc(address)["id"][0]))
    return sorted(out)


def _without_tstamp(docs: dict[str, dict]) -> dict[str, dict]:
    return {url: {k: v for k, v in doc.items() if k != "tstamp"} for url, doc in docs.items()}


@pytest.mark.parametrize("shards", [1, 3])
def test_documents_built_in_the_tasks_make_the_index_the_driver_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     shards: int) -> None:
    crawl, conf = make_crawl(tmp_path / "crawl", _pages(), shards=shards, index=False, **{"store.parts": 4})
    segments = list((crawl / "segments").iterdir())
    options = IndexOptions(delete_gone=True)
    built = index(tmp_path / "built", crawl / "crawldb", crawl / "linkdb", segments, conf, options)
    _driver_fed(monkeypatch)
    fed = index(tmp_path / "fed", crawl / "crawldb", crawl / "linkdb", segments, conf, options)
    assert built.added == fed.added == 48
    a, b = live_version_dir(tmp_path / "built"), live_version_dir(tmp_path / "fed")
    assert a is not None and b is not None
    assert _docs(crawl, a) == _docs(crawl, b)
    one, other = IndexDescription.read(a), IndexDescription.read(b)
    assert (one.docs, one.shards, one.ballast) == (other.docs, other.shards, other.ballast)
    for query in ("kettle", "über", "naïve tea", '"copper kettle"', "☕"):
        assert _scores(a, shards, query) == _scores(b, shards, query)
    segments_of_shard_0 = json.loads((a / shard_name(0) / "meta.json").read_text())["segments"]
    assert len(segments_of_shard_0) >= 2  # one per part that had documents of the shard (+ ballast)


def test_reindexing_with_adopted_parts_replaces_and_deletes_like_the_driver(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    crawl, conf = make_crawl(tmp_path / "crawl", _pages(), index=False, **{"store.parts": 4})
    first = list((crawl / "segments").iterdir())
    second = write_segment(crawl / "segments", "20260102000000", [
        Page("http://s1.test/p1", "Replaced", "a steel kettle now"),
        Page("http://s2.test/p2", "", "", status=CrawlStatus.FETCH_GONE),
        Page("http://s3.test/p3", "Hidden", "secret", meta={"robots": "noindex"}),
        Page("http://s4.test/new", "New page", "brand new words"),
    ])
    updatedb(crawl / "crawldb", [second], conf)

    def both_runs(target: Path) -> dict[str, dict]:
        index(target, crawl / "crawldb", crawl / "linkdb", first, conf, IndexOptions(delete_gone=True))
        index(target, crawl / "crawldb", crawl / "linkdb", [second], conf, IndexOptions(delete_gone=True))
        live = live_version_dir(target)
        assert live is not None
        return _docs(crawl, live)

    built = both_runs(tmp_path / "built")
    _driver_fed(monkeypatch)
    fed = both_runs(tmp_path / "fed")
    assert _without_tstamp(built) == _without_tstamp(fed)
    assert built["http://s1.test/p1"]["title"] == ["Replaced"]
    assert "http://s2.test/p2" not in built and "http://s3.test/p3" not in built
    assert built["http://s4.test/new"]["title"] == ["New page"]
    assert len(built) == 48 - 2 + 1
    description = IndexDescription.read(live_version_dir(tmp_path / "built"))
    assert description.docs == len(built)


def test_every_file_of_an_index_version_belongs_to_a_listed_segment(tmp_path: Path) -> None:
    """Adopted segments are tantivy's own: listed in ``.managed.json``, so later merges remove their files."""
    crawl, conf = make_crawl(tmp_path / "crawl", _pages(), index=False, **{"store.parts": 6})
    segments = list((crawl / "segments").iterdir())
    for _ in range(4):  # the same pages again: every run replaces all, the merge policy merges old segments
        index(crawl / "index", crawl / "crawldb", crawl / "linkdb", segments, conf, IndexOptions())
    live = live_version_dir(crawl / "index")
    assert live is not None
    shard = live / shard_name(0)
    meta = json.loads((shard / "meta.json").read_text())
    listed = {entry["segment_id"].replace("-", "") for entry in meta["segments"]}
    managed = set(json.loads((shard / ".managed.json").read_text()))
    files = {p.name for p in shard.iterdir() if not p.name.startswith(".") and p.name != "meta.json"}
    assert {name.split(".")[0] for name in files} == listed
    assert files <= managed
    assert len(_docs(crawl)) == 48


def _actions(rows: list[tuple[str, int, str | None]]) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array([r[0] for r in rows]), pa.array([r[1] for r in rows], pa.uint8()),
                                       pa.array([r[2] for r in rows], pa.large_string()),
                                       pa.nulls(len(rows), pa.binary())], schema=ACTIONS_SCHEMA)


FIELDS = (IndexField("id", "raw"), IndexField("content", "text"))


def test_a_part_holds_its_actions_without_documents_and_an_index_per_shard(tmp_path: Path) -> None:
    urls = [f"http://h.test/{i}" for i in range(12)]
    rows = [(u, 1, json.dumps({"id": u, "content": f"words {u} ü"})) for u in urls] + [("http://h.test/gone", 2, None)]
    sink = PartSegments(FIELDS, 3, 15_000_000)(tmp_path / "part", ACTIONS_SCHEMA)
    sink.write(_actions(rows[:5]))
    sink.write(_actions(rows[5:]))
    sink.close()
    assert sink.rows == 13
    assert part_actions(tmp_path / "part") == [(r[0], r[1]) for r in rows]
    batches = iter_arrow_part(tmp_path / "part" / ACTIONS_FILE, 100)
    docs = [d for batch in batches for d in batch.column("doc").to_pylist()]
    assert docs == [None] * 13
    for i in range(3):
        shard = tantivy.Index.open(str(tmp_path / "part" / shard_name(i)))
        searcher = shard.searcher()
        held = {searcher.doc(a)["id"][0] for _, a in searcher.search(tantivy.Query.all_query(), 100).hits}
        assert held == {u for u in urls if shard_of(u, 3) == i}


def test_segments_of_another_schema_are_refused_and_the_index_is_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    tantivy.Index(build_schema(FIELDS), path=str(target), reuse=False).writer(15_000_000, 1).commit()
    source = tmp_path / "source"
    source.mkdir()
    other = (*FIELDS, IndexField("title", "text"))
    writer = tantivy.Index(build_schema(other), path=str(source), reuse=False).writer(15_000_000, 1)
    writer.add_json(json.dumps({"id": "u", "content": "c", "title": "t"}))
    writer.commit()
    writer.wait_merging_threads()
    before = (target / "meta.json").read_text()
    entries = segment_files(source, target)
    with pytest.raises(TableError, match="another schema"):
        attach_segments(target, entries)
    assert (target / "meta.json").read_text() == before
    with pytest.raises(TableError, match="not a complete tantivy index"):
        segment_files(tmp_path / "nothing-here", target)


def test_parts_are_adopted_in_order_when_the_engine_counts_finished_tasks_out_of_part_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gossamer.index import indexer

    crawl, settings = make_crawl(tmp_path / "crawl", _pages(24), index=False, **{"store.parts": 4})
    real_run_job = indexer.run_job

    def out_of_order(job, staging, settings, progress):  # type: ignore[no-untyped-def]
        done = tmp_path / "done"
        done.mkdir()
        result = real_run_job(job, done, settings)
        names = sorted(p.name for p in done.iterdir() if p.name.startswith("part-"))
        for count, name in enumerate(reversed(names), start=1):  # the last part finishes first
            shutil.copytree(done / name, staging / name)
            progress("reduce", count, len(names))
        return result

    from gossamer.index.tantivy_writer import TantivyIndexWriter

    adopted: list[str] = []
    real_adopt = TantivyIndexWriter.adopt_part

    def recording(self, part):  # type: ignore[no-untyped-def]
        adopted.append(part.name)
        real_adopt(self, part)

    monkeypatch.setattr(indexer, "run_job", out_of_order)
    monkeypatch.setattr(TantivyIndexWriter, "adopt_part", recording)
    report = index(crawl / "index", crawl / "crawldb", crawl / "linkdb", list((crawl / "segments").iterdir()),
                   settings, IndexOptions(delete_gone=True))
    assert report.added == 24
    assert adopted == [f"part-{p:05d}.segments" for p in range(4)]
    assert len(_docs(crawl)) == 24


def test_the_index_job_builds_parts_only_on_the_local_engine_with_one_local_writer() -> None:
    from gossamer.core.settings import load_settings
    from gossamer.index.indexer import _part_builder
    from gossamer.store import as_place

    class Writer:
        def part_builder(self) -> str:
            return "builder"

    local = as_place("/tmp/some-index")
    assert _part_builder([Writer()], Settings(), local) == "builder"  # type: ignore[list-item,comparison-overlap]
    assert _part_builder([Writer(), Writer()], Settings(), local) is None  # type: ignore[list-item]
    spark = load_settings(overrides=["engine=spark"])
    assert _part_builder([Writer()], spark, local) is None  # type: ignore[list-item]
