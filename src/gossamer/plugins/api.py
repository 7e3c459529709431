"""Extension points: every interface a plugin can implement, in one file.

Each extension point is a small abstract class with a documented contract.
A plugin module exposes a :class:`~gossamer.plugins.registry.PluginInfo` (its id,
extension point and factory) through the entry-point group ``gossamer.plugins``;
built-in plugins are registered in exactly the same way.  Factories receive the
effective :class:`~gossamer.core.settings.Settings` and may raise
:class:`PluginNotConfigured` to take themselves out of the chain with a reason.

Chains (normalizers, filters, scoring, parse and indexing filters, index
writers) run every active plugin in order; single-choice points (fetch
schedule, signature) use the one plugin a property selects; protocols and
parsers are chosen by URL scheme and content type.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar
from typing import Protocol as TypingProtocol

from gossamer.core import (
    Clause,
    Content,
    CrawlDatum,
    HttpExchange,
    Inlink,
    LinkTargets,
    ParseData,
    ParseText,
    ProtocolStatus,
)

if TYPE_CHECKING:
    import pyarrow as pa
    import tantivy
    from selectolax.lexbor import LexborHTMLParser


class PluginNotConfigured(Exception):
    """Raised by a factory whose configuration is missing; the plugin leaves its chain."""


class URLNormalizer(ABC):
    """Rewrites a URL into its canonical form.

    ``normalize`` returns the normalized URL (possibly unchanged) for ``scope``
    (``inject``, ``fetcher``, ``outlink`` …) or raises :class:`ValueError` when the
    URL is malformed.  Must be pure and thread-safe.
    """

    @abstractmethod
    def normalize(self, url: str, scope: str) -> str:
        """Return the normalized URL."""

    def unchanged_mask(self, urls: pa.StringArray, scope: str) -> pa.BooleanArray | None:
        """Optional batch shortcut: true where ``normalize(url, scope)`` certainly returns ``url`` itself.

        False means "not known" (the caller calls :meth:`normalize`); never true for a URL that
        :meth:`normalize` would change or reject.  ``None`` (the default): no shortcut offered.
        """
        return None


class URLFilter(ABC):
    """Accepts or rejects a URL: returns the URL (maybe rewritten) to accept it, ``None`` to reject."""

    @abstractmethod
    def filter(self, url: str) -> str | None:
        """Return the URL to keep it, ``None`` to drop it."""

    def accepted_mask(self, urls: pa.StringArray) -> pa.BooleanArray | None:
        """Optional batch shortcut: true where ``filter(url)`` certainly returns ``url`` itself.

        False means "not known" (the caller calls :meth:`filter`); never true for a URL that
        :meth:`filter` would rewrite or reject.  ``None`` (the default): no shortcut offered.
        """
        return None


class URLExemptionFilter(ABC):
    """Decides whether a link from ``from_url`` to ``to_url`` is exempt from the ignore-external rules."""

    @abstractmethod
    def exempt(self, from_url: str, to_url: str) -> bool:
        """True to keep the link although it would be ignored."""


@dataclass
class ProtocolOutput:
    """Result of one protocol request: content (if any) and the protocol status."""

    status: ProtocolStatus
    content: Content | None = None
    exchange: HttpExchange | None = None
    """The request and response as transferred (for WARC records); ``None`` when the protocol has none."""
    response_ms: int = 0
    """Milliseconds from sending the request to the end of the response (``fetcher.store.responsetime``)."""


@dataclass(frozen=True)
class RobotsRequest:
    """How to fetch one robots.txt: who asks, how long to wait, how much to read, how many redirects.

    ``timeout`` (seconds) bounds connecting and each read; the whole exchange, redirects
    included, may take at most four times as long.  ``max_bytes``: read at most this many
    bytes of the decoded body plus one (so the caller can tell that it was cut).
    """

    user_agent: str
    timeout: float
    max_bytes: int
    redirect_max: int


@dataclass(frozen=True)
class RobotsResponse:
    """What a robots.txt request ended with; the caller (``crawl/robots``) turns it into rules.

    ``status`` is the protocol's status code of the last response (HTTP's), ``None`` when
    no response arrived (``error`` says why).  ``redirects`` lists every hop followed, in
    order.  ``left_protocol`` is set to the target when a redirect led to a URL this
    protocol does not serve (``status`` is then the redirect's).  A response that is still
    a redirect after ``redirect_max`` hops has that redirect's status and an empty body.
    """

    status: int | None
    body: bytes = b""
    content_type: str | None = None
    redirects: tuple[str, ...] = ()
    error: str = ""
    left_protocol: str = ""


class Protocol(ABC):
    """Fetches URLs of some schemes.  ``schemes`` lists them (``http``, ``https`` …).

    The fetcher picks the plugin by URL scheme (:mod:`gossamer.plugins.protocols`), for
    pages and for robots.txt alike, so one plugin instance (one connection pool) serves
    both.  ``fetch`` and ``fetch_robots`` must never raise for network or server errors:
    the result says what happened.
    """

    schemes: Sequence[str] = ()

    @abstractmethod
    async def fetch(self, url: str, datum: CrawlDatum) -> ProtocolOutput:
        """Fetch ``url``; ``datum`` carries conditional-request facts (modified time, signature)."""

    async def fetch_robots(self, robots_url: str, request: RobotsRequest) -> RobotsResponse | None:
        """Fetch ``robots_url`` following redirects as ``request`` says (see :class:`RobotsResponse`).

        ``None`` (the default): this protocol has no robots.txt, everything is allowed.
        """
        return None

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections."""


@dataclass
class ParseResult:
    """Output of a parser for one document.

    ``meta_elements``: the attributes of the page's ``<meta>`` elements in document order, when
    the HTML parser read them (``None`` otherwise).  Never stored; HtmlParseFilters that read
    ``<meta>`` tags use it instead of walking the whole DOM again (a CSS query costs ~0.1 ms
    on a documentation page) and query the tree when it is ``None``.
    """

    data: ParseData
    text: ParseText
    meta_elements: list[dict[str, str | None]] | None = field(default=None, compare=False, repr=False)


class Parser(ABC):
    """Turns fetched content into text, title, outlinks and metadata.

    ``content_types`` lists the MIME types handled (``*`` for any).  ``parse``
    raises :class:`ValueError` for content it cannot parse; the parse job records
    ``parse_failed`` and goes on.
    """

    content_types: Sequence[str] = ()

    @abstractmethod
    def parse(self, content: Content) -> ParseResult:
        """Parse one document."""


class HtmlParseFilter(ABC):
    """Adds to or changes an HTML parse result; receives the parsed DOM (``tree``)."""

    reads_text: ClassVar[bool] = True
    """Whether :meth:`filter` reads ``result.text``.  When no active filter does, the page's
    text is extracted after the filters ran, from the same DOM (saving a copy of it per page);
    otherwise it is there when they run.  Either way the stored text is the same."""

    @abstractmethod
    def filter(self, content: Content, result: ParseResult, tree: LexborHTMLParser) -> ParseResult:
        """Return the (possibly changed) result; ``tree`` is the page's selectolax (lexbor) DOM, read-only."""


class ScoringFilter:
    """Link-analysis hooks run at each crawl step (Nutch's ScoringFilter).

    Every method has a neutral default, so a filter overrides only what it needs.
    Scores are floats; datums may be changed in place where the method says so.

    A page's outlink targets are scored in two steps, each with a per-link form (Nutch's)
    and a batch form that the parser calls: :meth:`initial_scores` and
    :meth:`distribute_score_to_targets` receive the page's targets as
    :class:`~gossamer.core.LinkTargets` (columns, no datum per link).  Their defaults run
    the per-link forms, :meth:`initial_score` and :meth:`distribute_score_to_outlinks`, on
    the targets' datums (:meth:`LinkTargets.rows`), and do nothing when the filter does not
    override them; so a filter written for the per-link forms works unchanged, and one that
    implements a batch form should give the same result as its per-link form.
    """

    reads_inlink_sources: bool = True
    """Whether :meth:`indexer_score` / :meth:`indexer_scores` read the source URLs of the page's inlinks (as
    :attr:`IndexingFilter.reads_inlink_sources`); a filter that overrides neither reads nothing."""

    def injected_score(self, url: str, datum: CrawlDatum) -> None:
        """Adjust a newly injected datum's score in place."""

    def initial_score(self, url: str, datum: CrawlDatum) -> None:
        """Set the score of a URL first seen as a link target, in place."""

    def generator_sort_value(self, url: str, datum: CrawlDatum, init_sort: float) -> float:
        """Sort value used by generate (higher first)."""
        return init_sort

    def pass_score_before_parsing(self, url: str, datum: CrawlDatum, content: Content) -> None:
        """Copy score facts into content metadata."""

    def pass_score_after_parsing(self, url: str, content: Content, parse: ParseResult) -> None:
        """Copy score facts from content into parse metadata."""

    def initial_scores(self, targets: LinkTargets) -> None:
        """Batch form of :meth:`initial_score` for a page's outlink targets, changed in place.

        Default: :meth:`initial_score` on each target's datum when the filter overrides it.
        """
        if type(self).initial_score is not ScoringFilter.initial_score:
            initial = self.initial_score
            for url, datum in targets.rows():
                initial(url, datum)

    def distribute_score_to_outlinks(
        self, from_url: str, parse: ParseResult, targets: list[tuple[str, CrawlDatum]],
        adjust: CrawlDatum | None, all_count: int,
    ) -> CrawlDatum | None:
        """Set scores of outlink datums in ``targets`` in place; may return an adjustment datum.

        ``targets`` may also be shortened (all of a page's targets dropped, say);
        ``all_count`` is the number of outlinks the parser found, before filtering.
        """
        return adjust

    def distribute_score_to_targets(
        self, from_url: str, parse: ParseResult, targets: LinkTargets, adjust: CrawlDatum | None, all_count: int,
    ) -> CrawlDatum | None:
        """Batch form of :meth:`distribute_score_to_outlinks`: ``targets`` as columns, changed in place.

        Default: :meth:`distribute_score_to_outlinks` on the targets' datums
        (:meth:`LinkTargets.rows`) when the filter overrides it, else ``adjust`` unchanged.
        """
        if type(self).distribute_score_to_outlinks is ScoringFilter.distribute_score_to_outlinks:
            return adjust
        return self.distribute_score_to_outlinks(from_url, parse, targets.rows(), adjust, all_count)

    def update_db_score(
        self, url: str, old: CrawlDatum | None, datum: CrawlDatum, inlinks: Sequence[CrawlDatum]
    ) -> None:
        """Update the new crawldb datum's score in place from its inlinks."""

    def orphaned_score(self, url: str, datum: CrawlDatum) -> None:
        """Adjust the score of a URL that received no inlinks this round."""

    def indexer_score(
        self, url: str, doc: Mapping[str, Any], db: CrawlDatum, fetch: CrawlDatum | None,
        parse: ParseResult | None, inlinks: Sequence[Inlink], init_score: float,
    ) -> float:
        """Document boost for the index."""
        return init_score

    def indexer_scores(self, docs: list[dict[str, Any] | None], batch: PageBatch, scores: list[float]) -> None:
        """Batch form of :meth:`indexer_score`: ``scores[i]`` (page ``i``'s boost so far) changed in place.

        Pages whose ``docs[i]`` is ``None`` are not indexed; their scores do not matter.  Default:
        :meth:`indexer_score` on each page (:meth:`IndexBatch.page`) when the filter overrides
        it, else nothing.
        """
        if type(self).indexer_score is ScoringFilter.indexer_score:
            return
        for i, doc in enumerate(docs):
            if doc is not None:
                page = batch.page(i)
                scores[i] = self.indexer_score(page.url, doc, page.db or page.fetch, page.fetch, page.parse,
                                               page.inlinks, scores[i])


class FetchSchedule(ABC):
    """When to (re)fetch a page (Nutch's FetchSchedule); times in ms, intervals in seconds.

    Methods change ``datum`` in place.  ``state`` is 0 unknown, 1 modified, 2 not modified.
    """

    @abstractmethod
    def initialize_schedule(self, url: str, datum: CrawlDatum, now: int) -> None:
        """Schedule a new URL: fetch time now, default interval, no retries."""

    @abstractmethod
    def set_fetch_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int,
        fetch_time: int, modified_time: int, state: int,
    ) -> None:
        """Schedule the next fetch after a successful (or not-modified) fetch."""

    @abstractmethod
    def set_page_gone_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int, fetch_time: int
    ) -> None:
        """Schedule a page that is gone."""

    @abstractmethod
    def set_page_retry_schedule(
        self, url: str, datum: CrawlDatum, prev_fetch_time: int, prev_modified_time: int, fetch_time: int
    ) -> None:
        """Schedule a retry after a transient failure."""

    @abstractmethod
    def calculate_last_fetch_time(self, datum: CrawlDatum) -> int:
        """Time of the last fetch (0 if never fetched)."""

    @abstractmethod
    def should_fetch(self, url: str, datum: CrawlDatum, now: int) -> bool:
        """Whether the URL is due at ``now`` (may pull a far-future fetch time back)."""

    @abstractmethod
    def force_refetch(self, url: str, datum: CrawlDatum, asap: bool) -> None:
        """Reset the datum so the page is fetched again (now if ``asap``)."""


class Signature(ABC):
    """Computes a page's content signature (digest) used for change detection and dedup."""

    @abstractmethod
    def calculate(self, content: Content, parse: ParseResult | None) -> bytes:
        """Return the signature bytes (at most 256)."""


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


EXTENSION_POINTS: dict[str, type] = {
    cls.__name__: cls
    for cls in (URLNormalizer, URLFilter, URLExemptionFilter, Protocol, Parser, HtmlParseFilter,
                ScoringFilter, FetchSchedule, Signature, QueryFilter, IndexingFilter, IndexWriter)
}
"""Extension point name → interface."""
