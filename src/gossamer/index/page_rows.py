"""The index job's rows grouped by URL: what each URL comes to before the indexing filters, its page as columns.

:func:`group_rows` walks the rows of one reduce batch (all rows of a URL together, in input order:
crawldb, linkdb, web-graph node, then each segment's ``crawl_fetch`` / ``parse_data`` /
``parse_text``) and decides, after Nutch's IndexerMapReduce (see :mod:`~gossamer.index.documents`),
which URLs are deleted or left alone at once and which pages go on to the indexing filters.
:func:`page_batch` gives those pages as an :class:`~gossamer.plugins.IndexBatch` read straight
from the column lists: no datum or parse object per page unless a per-document filter asks for one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlDatum, CrawlStatus, Inlink, InlinkList, ParseStatusCode
from gossamer.engine import TaskContext
from gossamer.index.document_values import (
    ADD,
    DELETE,
    DELETE_DB_STATUS_SET,
    KIND_DB,
    KIND_FETCH,
    KIND_LINKS,
    KIND_NODE,
    KIND_PARSE_DATA,
    KIND_PARSE_TEXT,
    indexed_parse,
)
from gossamer.plugins import IndexBatch, IndexInput, MetadataColumn

_DELETE_FETCH = frozenset({CrawlStatus.FETCH_GONE, CrawlStatus.FETCH_REDIR_TEMP, CrawlStatus.FETCH_REDIR_PERM})
_FETCH_STATUSES = frozenset({CrawlStatus.FETCH_SUCCESS, CrawlStatus.FETCH_RETRY, CrawlStatus.FETCH_NOTMODIFIED,
                             *_DELETE_FETCH})
Outcome = tuple[str, int, bytes | None, str | None] | int | None
"""A URL's outcome: its action already decided (a delete), ``None`` (nothing), or the number of its page."""

__all__ = ["ADD", "DELETE", "ArrowMetadata", "LazyColumns", "Outcome", "PageRows", "datum", "group_rows",
           "page_batch"]


def datum(columns: dict[str, list[Any]], j: int) -> CrawlDatum:
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


@dataclass
class PageRows:
    """Pages going to the indexing filters: per page its row numbers (crawldb, fetch, parse data) and values."""

    urls: list[str] = field(default_factory=list)
    db: list[int | None] = field(default_factory=list)
    fetch: list[int] = field(default_factory=list)
    data: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    inlinks: list[Sequence[Inlink]] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    node_scores: list[float | None] = field(default_factory=list)

    def slice(self, start: int, end: int) -> PageRows:
        """Pages ``start`` … ``end - 1``."""
        return PageRows(self.urls[start:end], self.db[start:end], self.fetch[start:end], self.data[start:end],
                        self.texts[start:end], self.inlinks[start:end], self.segments[start:end],
                        self.node_scores[start:end])


def group_rows(columns: dict[str, list[Any]], n: int, delete_gone: bool, skip_notmodified: bool,
               ctx: TaskContext) -> tuple[list[Outcome], PageRows]:
    """Each URL's :data:`Outcome` of ``n`` rows sorted by URL, in URL order, and the pages going on.

    Counts the reason of every URL decided here (``skipped_<db status>``, ``skipped_gone_or_redirect``,
    ``skipped_not_modified``, ``skipped_not_fetched``, ``skipped_not_parsed``).
    """
    urls, kinds, names, statuses = columns["url"], columns["kind"], columns["segment"], columns["status"]
    scores, texts, inlink_values = columns["score"], columns["text"], columns["inlinks"]
    parse_statuses = columns["parse_status"]
    outcomes: list[Outcome] = []
    pages = PageRows()
    start = 0
    for end in range(1, n + 1):
        if end < n and urls[end] == urls[start]:
            continue
        url = urls[start]
        db: int | None = None
        inlinks: Sequence[Inlink] = ()
        fetch_rows: dict[str, int] = {}
        data_rows: dict[str, int] = {}
        text_of: dict[str, str | None] = {}
        latest: str | None = None
        node_score: float | None = None
        for j in range(start, end):
            kind = kinds[j]
            if kind == KIND_NODE:
                node_score = scores[j]
            elif kind == KIND_DB:
                db = j
            elif kind == KIND_LINKS:
                inlinks = _inlinks(inlink_values[j])
            elif kind == KIND_FETCH:
                if statuses[j] in _FETCH_STATUSES:
                    fetch_rows[names[j]] = j
                    latest = names[j]
            elif kind == KIND_PARSE_DATA:
                data_rows[names[j]] = j
            elif kind == KIND_PARSE_TEXT:
                text_of[names[j]] = texts[j]
        start = end
        delete = (url, DELETE, None, None) if delete_gone else None
        db_status = statuses[db] if db is not None else None
        if db_status in DELETE_DB_STATUS_SET:
            ctx.count(f"skipped_{CrawlStatus(db_status).status_name}")
            outcomes.append(delete)
            continue
        if latest is None:
            outcomes.append(None)
            continue
        fetch = fetch_rows[latest]
        status = statuses[fetch]
        if status in _DELETE_FETCH:
            ctx.count("skipped_gone_or_redirect")
            outcomes.append(delete)
            continue
        if status != CrawlStatus.FETCH_SUCCESS or (skip_notmodified and db_status == CrawlStatus.DB_NOTMODIFIED):
            ctx.count("skipped_not_modified" if status == CrawlStatus.FETCH_NOTMODIFIED else "skipped_not_fetched")
            outcomes.append(None)
            continue
        data = data_rows.get(latest)
        text = text_of.get(latest)
        if data is None or text is None or parse_statuses[data] != ParseStatusCode.SUCCESS:
            ctx.count("skipped_not_parsed")
            outcomes.append(None)
            continue
        outcomes.append(len(pages.urls))
        pages.urls.append(url)
        pages.db.append(db)
        pages.fetch.append(fetch)
        pages.data.append(data)
        pages.texts.append(text)
        pages.inlinks.append(inlinks)
        pages.segments.append(latest)
        pages.node_scores.append(node_score)
    return outcomes, pages


class LazyColumns(dict[str, list[Any]]):
    """A batch's columns as Python lists (``convert``: the job's conversion), each converted when first read.

    The builder's batch forms never read some columns (a datum's metadata, retries and interval
    are only needed for a page handed to a per-document filter as an object).  ``rows``: the row
    numbers of ``batch`` the lists hold (ascending; ``None``: every row), so that the job can drop
    rows without copying the batch's Arrow columns (the page texts above all): a column is
    converted whole and its kept rows picked from the Python list.
    """

    def __init__(self, batch: pa.RecordBatch, convert: Callable[[pa.Array], list[Any]],
                 rows: Sequence[int] | None = None) -> None:
        super().__init__()
        self.batch = batch
        self.convert = convert
        self.rows = rows

    def __missing__(self, name: str) -> list[Any]:
        values = self.convert(self.batch.column(name))
        if self.rows is not None:
            values = list(map(values.__getitem__, self.rows))
        self[name] = values
        return values

    def take(self, name: str, rows: Sequence[int]) -> pa.Array:
        """Column ``name``'s Arrow values at ``rows``: numbers of the lists' rows (see :attr:`rows`)."""
        if self.rows is not None:
            rows = list(map(self.rows.__getitem__, rows))
        return self.batch.column(name).take(pa.array(rows, pa.int64()))


class ArrowMetadata(MetadataColumn):
    """A metadata column looked up in its Arrow map column (``pyarrow.compute.map_lookup``): no dict per page.

    Gives what the mappings give (``maps``, made only if a filter asks for them): a key's value is
    its last occurrence (as ``dict`` of the pairs keeps it); a header is the exact key's value, else
    the first key equal but for case.  When keys are not all ASCII (Arrow's and Python's case
    folding could differ) or a value is null (a null lookup would not mean "absent"), headers are
    read from the mappings.
    """

    def __init__(self, column: pa.Array, maps: Callable[[], Sequence[Mapping[str, str]]]) -> None:
        super().__init__(maps)
        if column.offset:  # a slice: made whole (the case-folded copy needs offsets from 0)
            column = column.take(pa.array(range(len(column)), pa.int64()))
        self.column = column
        keys = column.keys
        self._foldable = column.items.null_count == 0 and (len(keys) == 0 or pc.all(pc.string_is_ascii(keys)).as_py())
        self._folded: pa.Array | None = None

    def _lookup(self, key: str) -> list[str | None]:
        return pc.map_lookup(self.column, pa.scalar(key, pa.string()), "last").to_pylist()

    def _header(self, name: str) -> list[str]:
        if not (self._foldable and name.isascii()):
            return super()._header(name)
        if self._folded is None:
            self._folded = pa.MapArray.from_arrays(self.column.offsets, pc.ascii_lower(self.column.keys),
                                                   self.column.items, mask=self.column.is_null())
        exact = pc.map_lookup(self.column, pa.scalar(name, pa.string()), "last")
        folded = pc.map_lookup(self._folded, pa.scalar(name.lower(), pa.string()), "first")
        return pc.fill_null(pc.coalesce(exact, folded), "").to_pylist()


def page_batch(columns: dict[str, list[Any]], pages: PageRows) -> IndexBatch:
    """``pages`` as an :class:`IndexBatch` (its URLs a copy: the URL chain may change them)."""
    fetch, data, db = pages.fetch, pages.data, pages.db
    titles = columns["title"]

    def metadata(name: str) -> MetadataColumn:
        def maps() -> list[Mapping[str, str]]:
            values = columns[name]
            return [values[j] or {} for j in data]
        if isinstance(columns, LazyColumns):
            return ArrowMetadata(columns.take(name, data), maps)
        return MetadataColumn(maps)
    times, modified, scores, signatures = (columns["fetch_time"], columns["modified_time"], columns["score"],
                                           columns["signature"])

    def make_page(i: int) -> IndexInput:
        d, j = db[i], data[i]
        parse = indexed_parse(titles[j] or "", content.maps[i], parse_meta.maps[i], pages.texts[i])
        # the URL as read: IndexBatch.page gives it the batch's (the URL chain's) URL; no reference to the
        # batch here, which would make a cycle holding the batch and its columns until a collection
        return IndexInput(pages.urls[i], None if d is None else datum(columns, d), datum(columns, fetch[i]), parse,
                          pages.inlinks[i], pages.segments[i])

    content, parse_meta = metadata("content_metadata"), metadata("parse_metadata")
    return IndexBatch(
        urls=list(pages.urls), segments=pages.segments, titles=[titles[j] or "" for j in data],
        texts=[text or "" for text in pages.texts], content=content, parse=parse_meta, inlinks=pages.inlinks,
        fetch_times=[times[j] or 0 for j in fetch], modified_times=[modified[j] or 0 for j in fetch],
        scores=[(scores[j] if d is None else scores[d]) or 0.0 for j, d in zip(fetch, db, strict=True)],
        signatures=[signatures[j] or (None if d is None else signatures[d]) for j, d in zip(fetch, db, strict=True)],
        make_page=make_page)
