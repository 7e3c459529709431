"""Extension points: every interface a plugin can implement (the index and search ones in :mod:`.api_index`).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from gossamer.core import (
    Content,
    CrawlDatum,
    HttpExchange,
    Inlink,
    LinkTargets,
    ProtocolStatus,
)
from gossamer.plugins.api_index import (
    IndexField,
    IndexingFilter,
    IndexInput,
    IndexWriter,
    PageBatch,
    QueryContext,
    QueryFilter,
)
from gossamer.plugins.parse_result import ParseResult

if TYPE_CHECKING:
    import pyarrow as pa
    from selectolax.lexbor import LexborHTMLParser

__all__ = [
    "FetchSchedule", "HtmlParseFilter", "IndexField", "IndexInput", "IndexWriter", "IndexingFilter", "PageBatch",
    "ParseResult", "Parser", "PluginNotConfigured", "Protocol", "ProtocolOutput", "QueryContext", "QueryFilter",
    "RobotsRequest", "RobotsResponse", "ScoringFilter", "Signature", "URLExemptionFilter", "URLFilter",
    "URLNormalizer", "EXTENSION_POINTS",
]


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


EXTENSION_POINTS: dict[str, type] = {
    cls.__name__: cls
    for cls in (URLNormalizer, URLFilter, URLExemptionFilter, Protocol, Parser, HtmlParseFilter,
                ScoringFilter, FetchSchedule, Signature, QueryFilter, IndexingFilter, IndexWriter)
}
"""Extension point name → interface."""
