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

Counters: ``docs_added``, ``docs_deleted``, ``skipped_*`` by reason.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa

from gossamer.core import (
    DIGEST_KEY,
    WARC_RECORD_KEY,
    CrawlDatum,
    CrawlStatus,
    Inlink,
    InlinkList,
    ParseData,
    ParseStatusCode,
    ParseText,
    Settings,
    robots_words,
)
from gossamer.engine import TaskContext
from gossamer.index.analysis import Analysis
from gossamer.index.embeddings import page_text
from gossamer.plugins import IndexingFilter, IndexInput, ParseResult, PluginRepository, ScoringFilter, URLChain

KIND_DB, KIND_LINKS, KIND_FETCH, KIND_PARSE_DATA, KIND_PARSE_TEXT, KIND_NODE = 0, 1, 2, 3, 4, 5
STATIC_RANKS = ("scoring", "linkrank", "none")
"""Values of ``index.static.rank``: the scoring filters' ``indexer_score``, the web graph's LinkRank, 1.0."""
DELETE_DB_STATUSES = pa.array([CrawlStatus.DB_GONE, CrawlStatus.DB_REDIR_TEMP, CrawlStatus.DB_REDIR_PERM,
                               CrawlStatus.DB_DUPLICATE], pa.uint8())
_DELETE_DB = frozenset(DELETE_DB_STATUSES.to_pylist())
_DELETE_FETCH = frozenset({CrawlStatus.FETCH_GONE, CrawlStatus.FETCH_REDIR_TEMP, CrawlStatus.FETCH_REDIR_PERM})
_FETCH_STATUSES = frozenset({CrawlStatus.FETCH_SUCCESS, CrawlStatus.FETCH_RETRY, CrawlStatus.FETCH_NOTMODIFIED,
                             *_DELETE_FETCH})
ADD, DELETE, SKIP = 1, 2, 0
"""Actions of :meth:`DocumentBuilder.document`: add the document, delete it, leave the index alone."""


@dataclass(frozen=True)
class IndexOptions:
    """Switches of ``index``."""

    delete_gone: bool = False  # -deleteGone
    filter: bool = False  # -filter
    normalize: bool = False  # -normalize


def _datum(columns: dict[str, list[Any]], j: int) -> CrawlDatum:
    """The crawl datum of row ``j`` of the column lists (a crawldb or crawl_fetch row)."""
    return CrawlDatum(status=columns["status"][j], fetch_time=columns["fetch_time"][j] or 0,
                      retries=columns["retries"][j] or 0, fetch_interval=columns["fetch_interval"][j] or 0,
                      score=columns["score"][j] or 0.0, signature=columns["signature"][j],
                      modified_time=columns["modified_time"][j] or 0, metadata=dict(columns["metadata"][j] or ()))


def _inlinks(value: Any) -> Sequence[Inlink]:
    """A linkdb row's inlinks: an :class:`InlinkList` as the index job reads them, else a list of dicts."""
    if value is None or isinstance(value, InlinkList):
        return value or ()
    return [Inlink(link["from_url"] or "", link["anchor"] or "") for link in value]


def indexed_parse(title: str, content_metadata: Iterable[tuple[str, str]] | Mapping[str, str],
                  parse_metadata: Iterable[tuple[str, str]] | Mapping[str, str], text: str) -> ParseResult:
    """A successful parse as the index job reads it back from parse_data and parse_text (no outlinks)."""
    return ParseResult(ParseData(ParseStatusCode.SUCCESS, title, [], dict(content_metadata), dict(parse_metadata)),
                       ParseText(text))


def json_value(value: Any) -> Any:
    """JSON encoding of document values: datetimes as RFC 3339 strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot index a {type(value).__name__}")


def document_json(doc: Mapping[str, Any]) -> str:
    """A document as compact JSON (orjson; datetimes by :func:`json_value`, as ``datetime.isoformat``).

    Raises ValueError for a value it cannot hold (an integer beyond 64 bits, an object of another type).
    """
    return document_json_bytes(doc).decode()


def document_json_bytes(doc: Mapping[str, Any]) -> bytes:
    """:func:`document_json` as UTF-8 bytes, not decoded (the index job's output column takes them as they are)."""
    try:
        # orjson's own datetimes would drop the seconds of a UTC offset (+05:30:10): datetimes stay ours
        return orjson.dumps(doc, default=json_value, option=orjson.OPT_PASSTHROUGH_DATETIME)
    except orjson.JSONEncodeError as exc:
        raise ValueError(f"document not encodable as JSON: {exc}") from exc


class JsonDocument(Mapping[str, Any]):
    """A document read back as JSON text: ``id`` is known at once, the rest is decoded on first use.

    Writers that store JSON (the built-in tantivy writer) read :attr:`json` and
    never pay for decoding; any other writer sees an ordinary mapping.  :attr:`vector`
    is the page vector the index job embedded (``search.semantic``), else ``None``.
    """

    __slots__ = ("_fields", "json", "url", "vector")

    def __init__(self, url: str, text: str, vector: Any = None) -> None:
        self.url = url
        self.json = text
        self.vector = vector
        self._fields: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        if self._fields is None:
            self._fields = orjson.loads(self.json)
        return self._fields

    def __getitem__(self, key: str) -> Any:
        if key == "id" and self._fields is None:
            return self.url
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())


@dataclass
class _Segment:
    """One segment's rows of a URL: the row numbers of its fetch and parse data, its text."""

    fetch: int | None = None
    data: int | None = None
    text: str | None = None


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
        document when ``search.semantic`` is on.
        """
        urls = columns["url"]
        start = 0
        for i in range(1, n + 1):
            if i == n or urls[i] != urls[start]:
                try:
                    result = self._one(columns, start, i, ctx)
                except ValueError as exc:
                    ctx.count("skipped_error")
                    ctx.report(f"{urls[start]}: {exc}")
                    result = None
                if result is not None:
                    ctx.count("docs_added" if result[1] == ADD else "docs_deleted")
                    yield result
                start = i

    def _one(self, columns: dict[str, list[Any]], start: int, end: int,
             ctx: TaskContext) -> tuple[str, int, bytes | None, str | None] | None:
        """The action for the URL of rows ``start`` … ``end - 1`` (see :meth:`actions`), or ``None``."""
        url = columns["url"][start]
        kinds, names, statuses = columns["kind"], columns["segment"], columns["status"]
        db: CrawlDatum | None = None
        inlinks: Sequence[Inlink] = ()
        segments: dict[str, _Segment] = {}
        latest: str | None = None
        node_score: float | None = None
        for j in range(start, end):
            kind = kinds[j]
            if kind == KIND_NODE:
                node_score = columns["score"][j]
            elif kind == KIND_DB:
                db = _datum(columns, j)
            elif kind == KIND_LINKS:
                inlinks = _inlinks(columns["inlinks"][j])
            else:
                seg = segments.setdefault(names[j], _Segment())
                if kind == KIND_FETCH and statuses[j] in _FETCH_STATUSES:
                    seg.fetch = j
                    latest = names[j]
                elif kind == KIND_PARSE_DATA:
                    seg.data = j
                elif kind == KIND_PARSE_TEXT:
                    seg.text = columns["text"][j]
        delete = (url, DELETE, None, None) if self.options.delete_gone else None
        if db is not None and db.status in _DELETE_DB:
            ctx.count(f"skipped_{CrawlStatus(db.status).status_name}")
            return delete
        if latest is None:
            return None
        seg = segments[latest]
        assert seg.fetch is not None
        status = statuses[seg.fetch]
        if status in _DELETE_FETCH:
            ctx.count("skipped_gone_or_redirect")
            return delete
        if status != CrawlStatus.FETCH_SUCCESS or (self.skip_notmodified and db is not None
                                                   and db.status == CrawlStatus.DB_NOTMODIFIED):
            ctx.count("skipped_not_modified" if status == CrawlStatus.FETCH_NOTMODIFIED else "skipped_not_fetched")
            return None
        data = seg.data
        if data is None or seg.text is None or columns["parse_status"][data] != ParseStatusCode.SUCCESS:
            ctx.count("skipped_not_parsed")
            return None
        parse = indexed_parse(columns["title"][data] or "", columns["content_metadata"][data] or (),
                              columns["parse_metadata"][data] or (), seg.text)
        page = IndexInput(url, db, _datum(columns, seg.fetch), parse, inlinks, latest)
        url, action, doc, reason = self.document(page, ctx.report, node_score)
        if reason:
            ctx.count(reason)
        if action == SKIP or doc is None:
            return None if action == SKIP else (url, action, None, None)
        embed = page_text(doc, self.embed_chars) if self.embed_chars is not None else None
        return url, action, document_json_bytes(doc), embed

    def document(self, page: IndexInput, report: Callable[[str], None],
                 node_score: float | None = None) -> tuple[str, int, dict[str, Any] | None, str]:
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
        url = page.url
        words = robots_words(page.parse.data.parse_metadata.get("robots", ""))
        if "noindex" in words or "none" in words:
            return url, DELETE, None, "skipped_robots_noindex"
        if self.chain is not None:
            new_url = self.chain.apply(url, report)
            if new_url is None:
                return url, SKIP, None, "skipped_filtered"
            url = new_url
            page = replace(page, url=url)
        doc: dict[str, Any] | None = {}
        for indexing_filter in self.filters:
            doc = indexing_filter.filter(doc, page)
            if doc is None:
                return url, DELETE if self.delete_skipped else SKIP, None, \
                    f"skipped_by_{type(indexing_filter).__name__}"
        return url, ADD, self._core(self.analysis.apply(doc), page, node_score), ""

    def _static_rank(self, doc: dict[str, Any], page: IndexInput, node_score: float | None) -> float:
        """The document's boost, by ``index.static.rank`` (see the module docstring)."""
        if self.static_rank == "none":
            return 1.0
        if self.static_rank == "linkrank":
            return self.missing_node_score if node_score is None else float(node_score)
        boost = 1.0
        for scoring in self.scoring:
            boost = scoring.indexer_score(page.url, doc, page.db or page.fetch, page.fetch, page.parse,
                                          page.inlinks, boost)
        return boost

    def _core(self, doc: dict[str, Any], page: IndexInput, node_score: float | None) -> dict[str, Any]:
        doc["id"] = page.url
        doc["boost"] = float(self._static_rank(doc, page, node_score))
        doc["segment"] = page.segment
        site = doc.get("site")
        if isinstance(site, str):
            doc["site_hash"] = zlib.crc32(site.encode("utf-8"))
        signature = page.fetch.signature or (page.db.signature if page.db is not None else None)
        digest = page.parse.data.content_metadata.get(DIGEST_KEY) or (signature.hex() if signature
                                                                                  else "")
        if digest:
            doc["digest"] = digest
        locator = page.parse.data.content_metadata.get(WARC_RECORD_KEY)
        if locator:
            doc["warc"] = f"{page.segment}/{locator}"
        return doc
