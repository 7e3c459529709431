"""Batch forms of the indexing and scoring filters (issue 22): each gives a page what its per-document form gives."""

from __future__ import annotations

from typing import Any

import pytest

from gossamer.core import CrawlDatum, CrawlStatus, Inlink, InlinkList, Settings
from gossamer.index.document_values import DELETE, SKIP, indexed_parse
from gossamer.index.documents import DocumentBuilder, IndexOptions
from gossamer.plugins import IndexBatch, IndexingFilter, IndexInput, MetadataColumn, PluginRepository, ScoringFilter
from gossamer.plugins.builtin.htmlfilter_opening import OPENING_KEY
from gossamer.plugins.index_batch import header

HTML = {"Content-Type": "text/html; charset=utf-8"}
T = 1_790_000_000_123


def page(i: int, title: str = "Title — Site", text: str = "Some words of text here.",
         headers: dict[str, str] | None = None, meta: dict[str, str] | None = None, inlinks: Any = (),
         db: CrawlDatum | None = None, url: str | None = None) -> IndexInput:
    fetch = CrawlDatum(CrawlStatus.FETCH_SUCCESS, T + i, score=0.5 + i, signature=bytes([i]) * 4 if i % 2 else None,
                       modified_time=T - 1000 * i if i % 3 else 0)
    parse = indexed_parse(title, HTML if headers is None else headers, meta or {}, text)
    return IndexInput(url or f"http://h{i % 3}.test/dir/page{i}.html", db, fetch, parse, inlinks, f"seg{i % 2}")


def pages() -> list[IndexInput]:
    """Pages covering the filters' branches: headers in other cases, declared languages, non-HTML, vetoes."""
    db = CrawlDatum(CrawlStatus.DB_FETCHED, T, score=2.25, signature=b"\x01\x02", metadata={"k": "v"})
    return [
        page(0),
        page(1, headers={"content-type": "text/plain", "content-length": "42", "LAST-MODIFIED":
                         "Tue, 15 Nov 1994 08:12:31 GMT"}, text="plain words " * 50),
        page(2, headers={"Content-Type": "application/pdf", "Content-Language": "de-DE"}, db=db,
             meta={"metatag.description": "A description", "metatag.keywords": "a, b"}),
        page(3, meta={OPENING_KEY: "The opening, the opening again.", "lang": "fr"},
             inlinks=InlinkList(["http://a/", "http://b/", "http://c/"], [" Home ", "", "home"])),
        page(4, inlinks=[Inlink("http://a/", "Docs"), Inlink("http://b/", "docs ")], title="",
             url="http://h.test/index.html"),
        page(5, headers={}, text="", meta={"robots": "noindex"}),
        page(6, headers={"Content-Type": "text/html", "Content-Length": "²"}),  # isdigit, but int() refuses it
        page(7, title="Ein Titel", text="Dies ist ein deutscher Text über die Suche und das Finden von Seiten."),
        page(8, headers={"Content-Type": "TEXT/HTML", "content-type": "text/plain"}, db=db),
    ]


def settings(**values: object) -> Settings:
    base: dict[str, object] = {"anchorIndexingFilter.deduplicate": True, "index.db.md": "k",
                               "moreIndexingFilter.indexMimeTypeParts": True}
    base.update(values)
    return Settings().with_values(list(base.items()), "test")


def per_document(flt: IndexingFilter, items: list[IndexInput]) -> list[dict[str, Any] | None | str]:
    out: list[dict[str, Any] | None | str] = []
    for p in items:
        try:
            out.append(flt.filter({"before": 1}, p))
        except ValueError as exc:
            out.append(f"error: {exc}")
    return out


def batched(flt: IndexingFilter, items: list[IndexInput]) -> list[dict[str, Any] | None | str]:
    batch = IndexBatch.of_pages(items)
    docs: list[dict[str, Any] | None] = [{"before": 1} for _ in items]
    flt.filter_batch(docs, batch)
    return [f"error: {batch.errors[i]}" if i in batch.errors else doc for i, doc in enumerate(docs)]


@pytest.mark.parametrize("values", [{}, {"lang.index.languages": "en,de"}, {"index.metadata.separator": ","},
                                    {"lang.extraction.policy": "identify"}, {"indexer.max.content.length": 5}])
def test_every_built_in_filter_batch_form_equals_its_per_document_form(values: dict[str, object]) -> None:
    chain = PluginRepository(settings(**values)).chain(IndexingFilter)
    assert len(chain) >= 7
    items = pages()
    for flt in chain:
        assert type(flt).filter_batch is not IndexingFilter.filter_batch, type(flt).__name__
        assert batched(flt, items) == per_document(flt, items), type(flt).__name__


def test_a_batch_skips_documents_an_earlier_filter_dropped() -> None:
    items = pages()[:3]
    for flt in PluginRepository(settings()).chain(IndexingFilter):
        docs: list[dict[str, Any] | None] = [{}, None, {}]
        flt.filter_batch(docs, IndexBatch.of_pages(items))
        assert docs[1] is None


def test_header_and_the_batch_columns() -> None:
    assert header({"content-type": "a", "Content-Type": "b"}, "Content-Type") == "b"
    assert header({"CONTENT-TYPE": "a", "content-type": "b"}, "Content-Type") == "a"
    assert header({}, "Content-Type") == ""
    batch = IndexBatch.of_pages(pages())
    assert batch.header("Content-Language")[2] == "de-DE"
    calls: list[int] = []
    assert batch.derived("x", lambda: calls.append(1) or [1]) == batch.derived("x", lambda: [2]) == [1]
    assert calls == [1]
    assert batch.scores[2] == 2.25 and batch.scores[1] == 1.5  # the crawldb's score, else the fetch's
    assert batch.signatures[1] == b"\x01" * 4 and batch.signatures[2] == b"\x01\x02" and batch.signatures[0] is None


class Veto(IndexingFilter):
    """A third party's per-document filter: drops pages titled "drop", fails on "fail", marks the rest."""

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        if page.parse.data.title == "drop":
            return None
        if page.parse.data.title == "fail":
            raise ValueError("no such page")
        doc["seen"] = sorted(doc)  # what the filters before it set, in order
        return doc


class Boost(ScoringFilter):
    """A third party's scoring filter with only the per-page form."""

    def indexer_score(self, url: str, doc: Any, db: CrawlDatum, fetch: CrawlDatum | None, parse: Any,
                      inlinks: Any, init_score: float) -> float:
        return init_score * 2 + len(doc.get("title", ""))


def per_document_forms(builder: DocumentBuilder) -> DocumentBuilder:
    """``builder`` with every filter behind a wrapper of the same name that has only the per-document forms."""

    def indexing(inner: IndexingFilter) -> IndexingFilter:
        def filter(self: Any, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
            return inner.filter(doc, page)
        return type(type(inner).__name__, (IndexingFilter,), {"filter": filter})()

    def scoring(inner: ScoringFilter) -> ScoringFilter:
        def indexer_score(self: Any, *args: Any) -> float:
            return inner.indexer_score(*args)
        return type(type(inner).__name__, (ScoringFilter,), {"indexer_score": indexer_score})()

    builder.filters = [indexing(f) for f in builder.filters]
    builder.scoring = [scoring(f) for f in builder.scoring]
    return builder


@pytest.mark.parametrize("delete_skipped", [False, True])
def test_a_chain_mixing_both_forms_builds_what_per_document_forms_build(delete_skipped: bool) -> None:
    conf = settings(**{"indexer.delete.skipped.by.indexingfilter": delete_skipped, "lang.index.languages": "en,fr"})
    builder = DocumentBuilder(conf, IndexOptions())
    builder.filters.insert(2, Veto())
    builder.scoring.append(Boost())
    reference = per_document_forms(DocumentBuilder(conf, IndexOptions()))
    reference.filters.insert(2, Veto())
    reference.scoring.append(Boost())
    assert len(reference.scoring) == 2
    items = [*pages(), page(9, title="drop"), page(10, title="fail"), page(11)]
    reports: list[str] = []
    results = builder.documents(IndexBatch.of_pages(items), [None] * len(items), reports.append)
    expected = reference.documents(IndexBatch.of_pages(items), [None] * len(items), reports.append)
    assert results == expected
    for p, result in zip(items, results, strict=True):
        try:
            one = builder.document(p, reports.append)
        except ValueError:
            one = None
        assert one == result
    assert results[-3] == (items[-3].url, DELETE if delete_skipped else SKIP, None, "skipped_by_Veto")
    assert results[6] is None and results[-2] is None  # the failing pages only
    assert results[7] == (items[7].url, DELETE if delete_skipped else SKIP, None,
                          "skipped_by_LanguageIndexingFilter")
    assert results[-1] is not None and results[-1][2] is not None
    before: dict[str, Any] | None = {}
    for flt in builder.filters[:2]:
        before = flt.filter(before or {}, items[-1])
    assert results[-1][2]["seen"] == sorted(before or {})  # the fields of the two filters before it
    assert results[5] == (items[5].url, DELETE, None, "skipped_robots_noindex")
    with pytest.raises(ValueError, match="no such page"):
        builder.document(items[-2], reports.append)


def test_another_chain_order_builds_what_per_document_forms_build() -> None:
    conf = settings(**{"indexingfilter.order": "index-name index-more language-identifier index-basic"})
    builder = DocumentBuilder(conf, IndexOptions())
    reference = per_document_forms(DocumentBuilder(conf, IndexOptions()))
    items = pages()
    assert builder.documents(IndexBatch.of_pages(items), [None] * len(items), lambda _: None) == \
        reference.documents(IndexBatch.of_pages(items), [None] * len(items), lambda _: None)


@pytest.mark.parametrize("rows", [
    [[("Content-Type", "a"), ("content-type", "b"), ("X", "1"), ("X", "2")], None, [], [("CONTENT-TYPE", "c")],
     [("content-language", "de"), ("Content-Language", "en")],
     [("CONTENT-language", "fr"), ("content-LANGUAGE", "it")]],
    [[("Content-Type", "a")], [("\u212aey", "kelvin"), ("content-type", "b")]],  # a non-ASCII key: read as mappings
    [[("Content-Type", None), ("content-type", "b")], [("X", None)]],  # a null value: read as mappings
    [None, None],
])
def test_arrow_metadata_reads_what_the_mappings_hold(rows: list[Any]) -> None:
    import pyarrow as pa

    from gossamer.index.job import METADATA, _map_dicts
    from gossamer.index.page_rows import ArrowMetadata

    column = pa.array([[("skip", "me")], *rows], METADATA).slice(1)
    maps = [m or {} for m in _map_dicts(column)]
    arrow, plain = ArrowMetadata(column, lambda: maps), MetadataColumn(maps)
    for name in ("Content-Type", "content-type", "Content-Language", "X", "Key", "missing"):
        assert arrow.values(name) == plain.values(name) == [m.get(name) for m in maps]
        assert arrow.headers(name) == plain.headers(name) == [header(m, name) for m in maps]
    assert arrow.maps == maps
