"""What the index does with one URL: add its document, delete it, or leave it alone.

:class:`DocumentBuilder` receives all rows of one URL (crawldb row, linkdb row and
the rows of every segment, in input order) and decides, after Nutch's
IndexerMapReduce (reference §6.4):

* the *latest* fetch is the one of the last segment (segments are given oldest
  first) whose ``crawl_fetch`` row has a fetch status;
* with ``-deleteGone`` a gone or redirected latest fetch, or a crawldb status
  gone / redirect / duplicate, deletes the document; without it such URLs are
  only skipped;
* a not-modified fetch leaves the indexed document as it is;
* a page is indexed only after a successful fetch *and* a successful parse;
* a page whose robots meta says ``noindex`` is never indexed and its old document
  is deleted (always — Nutch deletes only with ``indexer.delete.robots.noindex``;
  keeping a stale copy of a page that asks not to be indexed is worse);
* with ``-filter`` / ``-normalize`` the URL goes through the ``indexer`` URL chain;
* the indexing filters build the document in order; one returning ``None`` skips
  the page (and deletes it with ``indexer.delete.skipped.by.indexingfilter``);
* ``boost`` (the static rank), by ``index.static.rank``: ``scoring`` (default) the scoring
  filters' ``indexer_score`` starting at 1.0 (OPIC: score^0.5); ``linkrank`` the page's score in
  the web graph's ``nodes`` table (``link.score.updater.clear.score`` for a page not in the
  graph), without touching the crawldb score; ``none`` 1.0 for every page.

The filters run on the whole reduce batch at once, each in turn (their batch form,
:meth:`~gossamer.plugins.IndexingFilter.filter_batch`; a filter with only the per-document form
gets each page as an object), so each document still sees the filters in chain order.

Counters: ``docs_added``, ``docs_deleted``, ``skipped_*`` by reason.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gossamer.core import DIGEST_KEY, WARC_RECORD_KEY, Settings, robots_words
from gossamer.engine import TaskContext
from gossamer.index.analysis import Analysis
from gossamer.index.document_values import (
    ADD,
    DELETE,
    SKIP,
    JsonDocument,
    document_json,
    document_json_bytes,
    indexed_parse,
    json_value,
)
from gossamer.index.embeddings import page_text
from gossamer.index.page_rows import group_rows, page_batch
from gossamer.plugins import IndexBatch, IndexingFilter, IndexInput, PluginRepository, ScoringFilter, URLChain

STATIC_RANKS = ("scoring", "linkrank", "none")
"""Values of ``index.static.rank``: the scoring filters' ``indexer_score``, the web graph's LinkRank, 1.0."""
Result = tuple[str, int, dict[str, Any] | None, str]
"""``(url, action, document, reason)`` of one page (see :meth:`DocumentBuilder.document`)."""
CHUNK_PAGES = 512
"""Pages the filters get at once: enough to spread a batch's fixed costs, few enough to keep its documents small."""

__all__ = ["ADD", "DELETE", "SKIP", "STATIC_RANKS", "DocumentBuilder", "IndexOptions", "JsonDocument",
           "document_json", "document_json_bytes", "indexed_parse", "json_value"]


@dataclass(frozen=True)
class IndexOptions:
    """Switches of ``index``."""

    delete_gone: bool = False  # -deleteGone
    filter: bool = False  # -filter
    normalize: bool = False  # -normalize


class DocumentBuilder:
    """Per-process: the indexing filter chain, scoring filters and URL chain, built once."""

    def __init__(self, settings: Settings, options: IndexOptions) -> None:
        repo = PluginRepository(settings)
        self.options = options
        self.filters: list[IndexingFilter] = repo.chain(IndexingFilter)
        self.scoring: list[ScoringFilter] = repo.chain(ScoringFilter)
        self.chain = URLChain(repo, "indexer", options.normalize, options.filter) \
            if options.filter or options.normalize else None
        self.skip_notmodified = settings.get_bool("indexer.skip.notmodified")
        self.static_rank = settings.get_str("index.static.rank")
        self.missing_node_score = settings.get_float("link.score.updater.clear.score")
        self.delete_skipped = settings.get_bool("indexer.delete.skipped.by.indexingfilter")
        self.analysis = Analysis(settings)
        self.embed_chars = settings.get_int("search.semantic.page.chars") \
            if settings.get_bool("search.semantic") else None

    def actions(self, columns: dict[str, list[Any]], n: int,
                ctx: TaskContext) -> Iterator[tuple[str, int, bytes | None, str | None]]:
        """``(url, action, document JSON as UTF-8 or None, embedding text or None)`` for each URL of ``n`` rows.

        The rows come as column lists, sorted by URL, timestamps as epoch milliseconds.  The
        embedding text (:func:`~gossamer.index.embeddings.page_text`) is given for an added
        document when ``search.semantic`` is on.  A page whose document cannot be built (a
        ``ValueError``) is counted as ``skipped_error`` and reported.
        """
        outcomes, pages = group_rows(columns, n, self.options.delete_gone, self.skip_notmodified, ctx)
        base = 0  # the pages of one chunk at a time: their documents live only until encoded
        results: list[Result | None] = []
        errors: dict[int, str] = {}
        for outcome in outcomes:
            if isinstance(outcome, int):
                if outcome >= base + len(results):  # pages come in order: the next chunk
                    base = outcome
                    chunk = pages.slice(base, base + CHUNK_PAGES)
                    batch = page_batch(columns, chunk)
                    results, errors = self.documents(batch, chunk.node_scores, ctx.report), batch.errors
                k = outcome - base
                outcome = self._action(pages.urls[outcome], errors.get(k), results[k], ctx)
                results[k] = None
            if outcome is not None:
                ctx.count("docs_added" if outcome[1] == ADD else "docs_deleted")
                yield outcome

    def _action(self, url: str, error: str | None, result: Result | None,
                ctx: TaskContext) -> tuple[str, int, bytes | None, str | None] | None:
        """The output row of one page (``url`` as the job read it), or ``None``; counts its reason."""
        try:
            if error is not None or result is None:
                raise ValueError(error)
            new_url, action, doc, reason = result
            if reason:
                ctx.count(reason)
            if action == SKIP or doc is None:
                return None if action == SKIP else (new_url, action, None, None)
            embed = page_text(doc, self.embed_chars) if self.embed_chars is not None else None
            return new_url, action, document_json_bytes(doc), embed
        except ValueError as exc:
            ctx.count("skipped_error")
            ctx.report(f"{url}: {exc}")
            return None

    def document(self, page: IndexInput, report: Callable[[str], None],
                 node_score: float | None = None) -> Result:
        """What the index does with one fetched and parsed page: ``(url, action, document, reason)``.

        ``page`` is a page whose latest fetch succeeded and whose parse succeeded, its
        parse data as the index job reads it back (:func:`indexed_parse`).  In order: a
        robots ``noindex`` deletes it; the ``indexer`` URL chain (``-filter`` /
        ``-normalize``) may change its URL or skip it; the indexing filters build the
        document (one returning ``None`` skips it, or deletes it with
        ``indexer.delete.skipped.by.indexingfilter``); the shadow fields of
        :mod:`~gossamer.index.analysis` and the core fields (``id``, ``boost``,
        ``segment``, ``site_hash``, ``digest``, ``warc``) are added.  ``action`` is
        :data:`ADD` (with the document), :data:`DELETE` or :data:`SKIP`; ``reason`` the
        counter of a page not added (``skipped_robots_noindex``, ``skipped_filtered``,
        ``skipped_by_<Filter>``), else empty.  URL-chain errors go to ``report``.  Raises
        ValueError when a filter does (the index job counts it as ``skipped_error``).
        """
        batch = IndexBatch.of_pages([page])
        (result,) = self.documents(batch, [node_score], report)
        if result is None:
            raise ValueError(batch.errors[0])
        return result

    def documents(self, batch: IndexBatch, node_scores: list[float | None],
                  report: Callable[[str], None]) -> list[Result | None]:
        """:meth:`document` for every page of ``batch`` at once; ``None`` for a page in ``batch.errors``."""
        robots = batch.parse.values("robots")
        results: list[Result | None] = [self._admit(batch, i, robots[i], report) for i in range(len(batch))]
        docs: list[dict[str, Any] | None] = [{} if result is None else None for result in results]
        reasons: dict[int, str] = {}
        dropped = docs.count(None)
        for indexing_filter in self.filters:
            indexing_filter.filter_batch(docs, batch)
            if docs.count(None) != dropped:
                dropped = docs.count(None)
                name = f"skipped_by_{type(indexing_filter).__name__}"
                for i, doc in enumerate(docs):
                    if doc is None and results[i] is None and i not in batch.errors:
                        reasons.setdefault(i, name)
        apply = self.analysis.apply
        docs = [None if doc is None else apply(doc) for doc in docs]
        boosts = self._static_ranks(docs, batch, node_scores)
        digests, locators = batch.content.values(DIGEST_KEY), batch.content.values(WARC_RECORD_KEY)
        for i, doc in enumerate(docs):
            if doc is not None:
                results[i] = (batch.urls[i], ADD, self._core(doc, batch, i, boosts[i], digests[i], locators[i]), "")
            elif results[i] is None and i not in batch.errors:
                results[i] = (batch.urls[i], DELETE if self.delete_skipped else SKIP, None, reasons[i])
        return results

    def _admit(self, batch: IndexBatch, i: int, robots: str | None, report: Callable[[str], None]) -> Result | None:
        """Page ``i``'s result when robots ``noindex`` or the URL chain keeps it from the filters, else ``None``."""
        url = batch.urls[i]
        words = robots_words(robots or "")
        if "noindex" in words or "none" in words:
            return url, DELETE, None, "skipped_robots_noindex"
        if self.chain is not None:
            new_url = self.chain.apply(url, report)
            if new_url is None:
                return url, SKIP, None, "skipped_filtered"
            batch.urls[i] = new_url
        return None

    def _static_ranks(self, docs: list[dict[str, Any] | None], batch: IndexBatch,
                      node_scores: list[float | None]) -> list[float]:
        """Each page's boost, by ``index.static.rank`` (see the module docstring)."""
        if self.static_rank == "none":
            return [1.0] * len(docs)
        if self.static_rank == "linkrank":
            return [self.missing_node_score if score is None else float(score) for score in node_scores]
        boosts = [1.0] * len(docs)
        for scoring in self.scoring:
            scoring.indexer_scores(docs, batch, boosts)
        return boosts

    def _core(self, doc: dict[str, Any], batch: IndexBatch, i: int, boost: float, digest: str | None,
              locator: str | None) -> dict[str, Any]:
        doc["id"] = batch.urls[i]
        doc["boost"] = float(boost)
        doc["segment"] = batch.segments[i]
        site = doc.get("site")
        if isinstance(site, str):
            doc["site_hash"] = zlib.crc32(site.encode("utf-8"))
        signature = batch.signatures[i]
        digest = digest or (signature.hex() if signature else "")
        if digest:
            doc["digest"] = digest
        if locator:
            doc["warc"] = f"{batch.segments[i]}/{locator}"
        return doc
