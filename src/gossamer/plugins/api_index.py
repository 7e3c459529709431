"""Extension points of indexing and search: query filters, indexing filters, index writers.

Part of :mod:`gossamer.plugins.api` (which re-exports every name here; plugins import from
either): the same conventions — small abstract classes with documented contracts, chains run
in order, factories get the effective settings.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from typing import Protocol as TypingProtocol

from gossamer.core import Clause, CrawlDatum, Inlink
from gossamer.plugins.parse_result import ParseResult

if TYPE_CHECKING:
    import tantivy


class QueryContext(TypingProtocol):
    """What a :class:`QueryFilter` builds engine queries with (implemented by the searcher).

    ``schema``: the tantivy schema of the shard; ``field_names``: every field the index
    has; ``boosts``: per-field boosts (``query.<field>.boost``).  ``leaf`` is the only
    way to a scoring query (one term of one field, recorded so that scores can be
    recomputed with whole-index statistics); ``filter`` wraps any other query so it
    matches without scoring.
    """

    schema: tantivy.Schema
    field_names: frozenset[str]
    boosts: Mapping[str, float]

    def tokens(self, clause_tokens: Iterable[str]) -> list[str]:
        """The clause's tokens as indexed (analyzed like the text fields)."""
        ...

    def leaf(self, field_name: str, term: str, boost: float = 1.0) -> tantivy.Query:
        """A scoring term query (recorded as a leaf of the hit's score)."""
        ...

    def phrase(self, field_name: str, terms: Sequence[str]) -> tantivy.Query:
        """A phrase query over ``terms`` in order (a filter; scoring comes from leaves)."""
        ...

    def raw(self, field_name: str, value: str) -> tantivy.Query:
        """An exact-term query on an untokenized field."""
        ...

    def any_of(self, queries: Sequence[tantivy.Query]) -> tantivy.Query:
        """Matches when any of ``queries`` matches."""
        ...

    def filter(self, query: tantivy.Query) -> tantivy.Query:
        """``query`` as a pure filter: it must match and adds nothing to the score."""
        ...


class QueryFilter(ABC):
    """Turns the query clauses of its fields into engine (tantivy) queries.

    ``fields`` lists the ``field:`` prefixes handled; ``""`` stands for the
    default field (bare terms and phrases).  ``translate`` receives one clause
    (:class:`gossamer.core.query.Clause`) and a
    :class:`gossamer.search.query_build.QueryContext` (schema, boosts and the
    helpers that build scoring leaves and filters) and returns a query, or
    ``None`` when the clause is not for this filter.  Occurrence (``+``/``-``) is
    applied by the caller.  Scoring must come only from the context's ``leaf``
    term queries (so scores can be recomputed with global statistics); anything
    else must be wrapped by ``ctx.filter`` (matches without scoring).
    """

    fields: Sequence[str] = ()

    @abstractmethod
    def translate(self, clause: Clause, ctx: QueryContext) -> tantivy.Query | None:
        """Return the engine query of ``clause``, or ``None``."""


@dataclass(frozen=True)
class IndexField:
    """A field of the full-text index, declared by the indexing filter that fills it.

    ``kind``: ``text`` (tokenized, searchable, highlighted), ``raw`` (one exact
    term per value: filters such as ``site:``), ``date`` (a UTC datetime),
    ``int``, ``float`` or ``json`` (a mapping, tokenized).  ``stored`` fields come
    back with hits; ``fast`` fields can be sorted on and read per hit cheaply.
    A field may take a list of values (multi-valued) unless it is ``fast``.
    """

    name: str
    kind: str
    stored: bool = True
    indexed: bool = True
    fast: bool = False
    description: str = ""


@dataclass
class IndexInput:
    """Everything known about one page when it is indexed.

    ``db`` is the page's crawldb row (``None`` when indexing without a crawldb),
    ``fetch`` the segment's fetch datum, ``parse`` its parse data and text,
    ``inlinks`` the linkdb's inlinks (empty without a linkdb), ``segment`` the
    segment's name.
    """

    url: str
    db: CrawlDatum | None
    fetch: CrawlDatum
    parse: ParseResult
    inlinks: Sequence[Inlink]
    segment: str


class PageBatch(TypingProtocol):
    """What the default batch forms read of the index job's batch (:class:`gossamer.plugins.IndexBatch`)."""

    def page(self, i: int) -> IndexInput:
        """Page ``i`` as one object."""

    def fail(self, i: int, error: Exception, docs: list[dict[str, Any] | None]) -> None:
        """Page ``i``'s document cannot be built."""


class IndexingFilter(ABC):
    """Adds fields to (or vetoes) a document being indexed.

    ``fields`` declares every field the filter may set (the index schema is the
    union of the active filters' fields).  ``filter`` returns the document, or
    ``None`` to keep the page out of the index (counted as skipped).  It must
    not raise for bad input: a ``ValueError`` is counted and the page skipped.
    """

    fields: Sequence[IndexField] = ()
    reads_inlink_sources: bool = True
    """Whether :meth:`filter` / :meth:`filter_batch` read the source URLs of the page's inlinks.  ``False``
    (every built-in filter) lets the index job leave them out of its shuffle: the inlinks it hands over
    then hold ``""`` as every source URL, their anchors unchanged."""

    @abstractmethod
    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        """Return the document to index, or ``None``."""

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: PageBatch) -> None:
        """Batch form of :meth:`filter`: the documents of ``batch``'s pages, changed in place.

        ``batch`` is a :class:`gossamer.plugins.IndexBatch`: the pages as columns.  ``docs[i]`` is
        page ``i``'s document, ``None`` when an earlier filter dropped it (leave
        it so); set it to ``None`` to drop the page, or call :meth:`IndexBatch.fail` for a page
        whose document cannot be built.  Must give each document exactly what :meth:`filter`
        gives it.  Default: :meth:`filter` on each page (:meth:`IndexBatch.page`), a
        ``ValueError`` failing that page only.
        """
        for i, doc in enumerate(docs):
            if doc is not None:
                try:
                    docs[i] = self.filter(doc, batch.page(i))
                except ValueError as exc:
                    batch.fail(i, exc, docs)


class IndexWriter(ABC):
    """Receives index actions: add/replace documents by URL, delete by URL, commit.

    ``open`` is called once with the crawl's index location and the schema (the
    declared fields); ``write`` replaces the document whose ``url`` is given;
    ``delete`` removes a URL's document if present; ``commit`` makes all of it
    durable and visible at once (a writer that cannot do that atomically must
    document it); ``close`` releases resources without committing.
    """

    @abstractmethod
    def open(self, location: str, fields: Sequence[IndexField]) -> None:
        """Prepare to write to ``location``."""

    @abstractmethod
    def write(self, doc: Mapping[str, Any]) -> None:
        """Add or replace the document whose ``url`` field is given."""

    @abstractmethod
    def delete(self, url: str) -> None:
        """Remove the document of ``url`` if present."""

    @abstractmethod
    def commit(self) -> None:
        """Make everything written so far durable and visible."""

    @abstractmethod
    def close(self) -> None:
        """Release resources; uncommitted work is dropped."""
