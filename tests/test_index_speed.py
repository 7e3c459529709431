"""The indexing fast paths (issue 22): they must build exactly what the plain paths build."""

from __future__ import annotations

import pyarrow as pa

from gossamer.core import Inlink, InlinkList, Settings
from gossamer.index.job import INLINKS_TYPE, _inlink_lists
from gossamer.index.tantivy_writer import FirstWrites
from gossamer.plugins.builtin.index_anchor import AnchorIndexingFilter
from gossamer.plugins.builtin.index_language import LanguageIndexingFilter


def test_inlink_list_reads_as_a_sequence_of_inlinks() -> None:
    links = InlinkList(["http://a/", "http://b/"], ["one", ""])
    assert list(links) == [Inlink("http://a/", "one"), Inlink("http://b/", "")]
    assert links[1] == Inlink("http://b/", "") and links[-1] == links[1]
    assert list(links[:1]) == [Inlink("http://a/", "one")] and isinstance(links[:1], InlinkList)
    assert links == [Inlink("http://a/", "one"), Inlink("http://b/", "")] and len(links) == 2
    assert links != [Inlink("http://a/", "one")]


def test_inlink_lists_match_the_rows_of_a_sliced_column_with_nulls() -> None:
    rows = [[{"from_url": "http://a/", "anchor": "x"}, {"from_url": None, "anchor": None}], None, [],
            [{"from_url": "http://c/", "anchor": "z"}]]
    column = pa.array([[{"from_url": "http://0/", "anchor": "skip"}], *rows], INLINKS_TYPE).slice(1)
    got = _inlink_lists(column)
    assert got[1] is None
    assert [None if g is None else list(g) for g in got] == [
        None if r is None else [Inlink(d["from_url"] or "", d["anchor"] or "") for d in r] for r in rows]
    assert _inlink_lists(pa.nulls(3, INLINKS_TYPE)) == [None, None, None]


def test_anchor_filter_reads_an_inlink_list_like_a_list_of_inlinks() -> None:
    class Page:
        def __init__(self, inlinks: object) -> None:
            self.inlinks = inlinks

    settings = Settings().with_values([("anchorIndexingFilter.deduplicate", "true")], "test")
    anchors = [" Home ", "", "home", "Docs"]
    urls = [f"http://h/{i}" for i in range(len(anchors))]
    flt = AnchorIndexingFilter(settings)
    fast = flt.filter({}, Page(InlinkList(urls, anchors)))  # type: ignore[arg-type]
    plain = flt.filter({}, Page([Inlink(u, a) for u, a in zip(urls, anchors, strict=True)]))  # type: ignore[arg-type]
    assert fast == plain == {"anchor": ["Home", "Docs"]}


def test_first_writes_skip_the_delete_only_for_new_urls_of_a_new_index() -> None:
    first = FirstWrites(True, limit=2)
    assert [first.needs_delete(u) for u in ("a", "b", "a")] == [False, False, True]
    assert first.needs_delete("c") and first.needs_delete("d")  # past the limit: always delete
    assert first.needs_delete("a")
    live = FirstWrites(False)
    assert live.needs_delete("a") and live.needs_delete("a")


def test_language_sample_is_what_identify_reads() -> None:
    flt = LanguageIndexingFilter(Settings().with_values([("lang.analyze.max.length", "8")], "test"))
    assert flt.sample("Title", "0123456789")[:8] == "Title 0123456789"[:8]
    assert LanguageIndexingFilter(Settings().with_values([("lang.analyze.max.length", "0")], "test")) \
        .sample("T", "abc") == "T abc"


def test_vectors_embedded_by_the_job_equal_the_writers_own() -> None:
    import json

    import numpy as np

    from gossamer.engine import TaskContext
    from gossamer.index.documents import JsonDocument
    from gossamer.index.embeddings import embedder, page_text
    from gossamer.index.job import _vectors
    from gossamer.index.vectors import ShardVectorWriter

    model = embedder()
    docs = [{"title": "Deep copy", "content": "copy a list without sharing its items"},
            {"title": "Threads", "opening": "run work in parallel"}]
    texts = [page_text(doc, 300) for doc in docs]
    column = _vectors(TaskContext(Settings()), 3, [(0, texts[0]), (2, texts[1])]).to_pylist()
    assert column[1] is None
    own, given = ShardVectorWriter(model, 300, None), ShardVectorWriter(model, 300, None)
    for url, doc, raw in zip(("u0", "u1"), docs, (column[0], column[2]), strict=True):
        own.write(url, doc)
        given.write(url, JsonDocument(url, json.dumps(doc), np.frombuffer(raw, np.float16)))
    assert own.result().ids == given.result().ids
    assert np.array_equal(own.result().matrix, given.result().matrix)


def test_document_json_holds_the_values_json_dumps_wrote() -> None:
    import json
    from datetime import UTC, datetime, timedelta, timezone

    from gossamer.index.documents import document_json, json_value

    doc = {"title": "Grüße „quoted“ \\ \"x\"\n", "anchor": ["a", "b"], "content_length": 2**63 - 1, "boost": 0.1,
           "tstamp": datetime(2026, 11, 27, 1, 2, 3, 4500, tzinfo=UTC),
           "date": datetime(2020, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=5, minutes=30))),
           "naive": datetime(2001, 2, 3), "odd": datetime(2001, 2, 3, tzinfo=timezone(timedelta(seconds=19_810))),
           "empty": [], "none": None, "big": 1e300, "tiny": 5e-324}
    text = document_json(doc)
    assert json.loads(text) == json.loads(json.dumps(doc, default=json_value, ensure_ascii=False))
    assert json.loads(text)["tstamp"] == "2026-11-27T01:02:03.004500+00:00" and "Grüße" in text


def test_document_json_refuses_what_json_cannot_hold_with_a_value_error() -> None:
    import pytest

    from gossamer.index.documents import document_json

    with pytest.raises(ValueError):
        document_json({"content_length": 2**70})
    with pytest.raises(ValueError):
        document_json({"x": object()})


def test_map_columns_read_as_the_dicts_of_their_pairs() -> None:
    from gossamer.index.job import METADATA, _pylist

    rows = [[("k", "0")], [("a", "1"), ("b", None), ("a", "3")], None, [], [("Content-Type", "text/html")]]
    column = pa.array(rows, METADATA).slice(1)
    assert _pylist(column) == [None if r is None else dict(r) for r in rows[1:]]
    assert _pylist(pa.nulls(2, METADATA)) == [None, None]


def test_vector_writer_keeps_the_last_write_of_each_url_and_drops_deleted_ones(monkeypatch) -> None:
    import numpy as np

    from gossamer.index import vectors
    from gossamer.index.embeddings import Embedder

    monkeypatch.setattr(vectors, "BATCH", 2)  # flush every two writes: deletes hit flushed and pending rows
    model = Embedder("fake", 2, lambda texts: [[float(len(t)), 1.0] for t in texts])
    writer = vectors.ShardVectorWriter(model, 300, None)
    expected: dict[str, str] = {}
    steps = [("w", "a", "x"), ("w", "b", "xx"), ("w", "c", "xxx"), ("d", "b", ""), ("d", "zz", ""),
             ("w", "a", "xxxx"), ("w", "d", "xxxxx"), ("d", "c", ""), ("w", "b", "xxxxxx"), ("d", "d", "")]
    for op, url, text in steps:
        if op == "w":
            writer.write(url, {"content": text})
            expected[url] = text
        else:
            writer.delete(url)
            expected.pop(url, None)
    result = writer.result()
    assert sorted(result.ids) == sorted(expected) and len(set(result.ids)) == len(result.ids)
    for url, row in zip(result.ids, result.matrix, strict=True):
        want = model.embed([expected[url]])[0].astype(np.float16)
        assert np.array_equal(row, want), url


def test_lazy_columns_with_kept_rows_read_what_a_filtered_batch_reads() -> None:
    from gossamer.index.job import METADATA, _pylist
    from gossamer.index.page_rows import LazyColumns

    batch = pa.record_batch({
        "url": ["a", "a", "b", "c", "c"], "text": ["t0", None, "t2", None, "t4"],
        "inlinks": pa.array([None, [{"from_url": "x", "anchor": "y"}], [], None, None], INLINKS_TYPE),
        "content_metadata": pa.array([[("k", "v")], None, [("a", "1")], [], [("b", "2")]], METADATA)})
    kept = [0, 1, 3, 4]
    lazy, plain = LazyColumns(batch, _pylist, kept), LazyColumns(batch.take(pa.array(kept)), _pylist)
    for name in batch.schema.names:
        assert lazy[name] == plain[name], name
        assert lazy.take(name, [3, 0, 2]).equals(plain.take(name, [3, 0, 2])), name
    every = LazyColumns(batch, _pylist)
    assert every["text"] == batch.column("text").to_pylist() and every.take("url", [4]).to_pylist() == ["c"]


def test_language_identification_is_the_same_from_several_threads() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from gossamer.plugins.builtin.langid_cache import language_classifier

    texts = ["The quick brown fox jumps over the lazy dog.", "Der schnelle braune Fuchs springt über den Hund.",
             "Le renard brun rapide saute par-dessus le chien.", "fn main() { println!(\"hi\"); }"] * 25
    classify = language_classifier()
    alone = [classify(text) for text in texts]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(classify, texts)) == alone


def test_index_stages_its_actions_as_arrow_parts_with_the_documents_of_the_parquet_form_in_ascii(tmp_path,
                                                                                              monkeypatch) -> None:
    import orjson

    from gossamer.index import indexer
    from gossamer.index.ascii_json import ascii_json, escapes_natively
    from gossamer.index.documents import IndexOptions
    from gossamer.index.job import actions_job, index_inputs
    from gossamer.store import TableVersion, live_version_dir, new_staging_dir, read_parquet_file

    from .index_fixtures import Page, make_crawl

    pages = [Page(f"http://s{i % 3}.test/p{i}", f"Page {i}", f"words of page {i} über kettles",
                  outlinks=[(f"http://s{(i + 1) % 3}.test/p{(i + 1) % 20}", f"link {i}")]) for i in range(20)]
    crawl, settings = make_crawl(tmp_path / "crawl", pages, index=False)
    read: list[tuple[str, list[tuple]]] = []
    original = indexer._read_actions

    def recording(directory, part):  # type: ignore[no-untyped-def]
        rows = list(original(directory, part))
        read.append((sorted(p.name for p in directory.iterdir() if p.name.startswith("part-"))[part], rows))
        yield from rows

    monkeypatch.setattr(indexer, "_read_actions", recording)
    segments = list((crawl / "segments").iterdir())
    report = indexer.index(crawl / "index", crawl / "crawldb", crawl / "linkdb", segments, settings,
                           IndexOptions(delete_gone=True))
    assert report.added == len(pages)
    assert [name for name, _ in read] == [f"part-{p:05d}.arrow" for p in range(len(read))]
    db, links = TableVersion(live_version_dir(crawl / "crawldb")), TableVersion(live_version_dir(crawl / "linkdb"))
    try:
        inputs, _ = index_inputs(db, links, segments)
        out = new_staging_dir(tmp_path / "parquet")
        indexer.run_job(actions_job(inputs, IndexOptions(delete_gone=True), len(read)), out, settings)
    finally:
        db.close()
        links.close()
    for part, (_, rows) in enumerate(read):  # the staged documents: the parquet form's, in ASCII
        table = read_parquet_file(out / f"part-{part:05d}.parquet")
        docs = table.column("doc").to_pylist()
        assert [(u, a, d) for u, a, d, _ in rows] == list(zip(
            table.column("url").to_pylist(), table.column("action").to_pylist(),
            [None if d is None else ascii_json(d.encode()).decode() for d in docs], strict=True))
        assert [None if d is None else orjson.loads(d) for _, _, d, _ in rows] == \
            [None if d is None else orjson.loads(d) for d in docs]
    staged = [d for _, rows in read for _, _, d, _ in rows if d is not None]
    assert any("über" in d for d in staged) != escapes_natively()  # "über" as written, or as "\\u00fcber"
    assert all(d.isascii() for d in staged) == escapes_natively()


def test_index_feeds_every_part_when_the_engine_counts_finished_tasks_out_of_part_order(tmp_path, monkeypatch) -> None:
    """A cluster engine reports how many reduce tasks finished (Spark's stage progress), not a prefix of parts:
    part 0 may still run when part 2 is done. No part may be skipped, and the parts go to the writers in order."""
    import shutil

    from gossamer.index import indexer
    from gossamer.index.documents import IndexOptions

    from .index_fixtures import Page, make_crawl
    from .test_index_s3 import local_docs

    pages = [Page(f"http://s{i % 4}.test/p{i}", f"Page {i}", f"text of page {i}") for i in range(24)]
    crawl, settings = make_crawl(tmp_path / "crawl", pages, index=False, **{"store.parts": 4})
    real_run_job = indexer.run_job

    def out_of_order(job, staging, settings, progress):  # type: ignore[no-untyped-def]
        done = tmp_path / "done"
        done.mkdir()
        result = real_run_job(job, done, settings)
        names = sorted(p.name for p in done.iterdir() if p.name.startswith("part-"))
        for count, name in enumerate(reversed(names), start=1):  # the last part finishes first
            shutil.copy(done / name, staging / name)
            progress("reduce", count, len(names))
        return result

    fed: list[int] = []
    original = indexer._read_actions

    def recording(directory, part):  # type: ignore[no-untyped-def]
        fed.append(part)
        yield from original(directory, part)

    monkeypatch.setattr(indexer, "run_job", out_of_order)
    monkeypatch.setattr(indexer, "_read_actions", recording)
    report = indexer.index(crawl / "index", crawl / "crawldb", crawl / "linkdb", list((crawl / "segments").iterdir()),
                           settings, IndexOptions(delete_gone=True))
    assert report.added == len(pages)
    assert fed == [0, 1, 2, 3]
    assert sorted(local_docs(crawl / "index")) == sorted(p.url for p in pages)


def test_the_document_column_is_the_utf8_bytes_as_strings() -> None:
    from gossamer.index.job import utf8_array

    values = [b'{"id":"a"}', None, '{"title":"caf\u00e9 \u2603"}'.encode(), b"", None]
    array = utf8_array(values)
    assert array.type == pa.large_string()
    assert array.equals(pa.array([None if v is None else v.decode() for v in values], pa.large_string()))
    array.validate(full=True)
    assert utf8_array([]).to_pylist() == []
