"""Parsing one fetched page into its parse_data, parse_text and crawl_parse rows.

:class:`PageParser` is what both the ``parse`` job and the fetcher (``fetcher.parse``)
call.  It builds the plugin chains once per process and then, per page, does what
Nutch's ParseUtil, ParseSegment and ParseOutputFormat do together:

* skips truncated content (``http.content.truncated`` with ``parser.skip.truncated``)
  and content no active parser takes: the page gets a ``notparsed`` parse_data row
  and only a ``signature`` datum (the signature of the raw content);
* detects the content type (:mod:`gossamer.core.mime`; when it differs from the declared
  one, the content metadata's ``Content-Type`` becomes the detected type and the declared
  value is kept under :data:`DECLARED_TYPE_KEY`), refuses a document larger than
  ``parser.size.limits`` allows for its type (``parse_failed``), and runs the candidate
  Parser plugins of the type (:mod:`.parsers`) in order until one succeeds: those in
  ``parser.inprocess`` in this process (for HTML with the HtmlParseFilter chain on its
  DOM; when no filter reads the text, the text is taken from that DOM after them, without
  a copy of it), the others in the worker process of :mod:`.sandbox`, under ``parser.timeout`` and
  ``parser.memory.max``.  A timeout, memory exhaustion or crash of the worker ends the
  page's parse (``parse_failed`` with that reason); a parser that raises or reports
  failure passes the document to the next candidate, and when none is left the reasons
  of all are the page's;
* sets the content metadata (response headers, then the fetcher's metadata, then
  ``nutch.content.digest``), runs ``ScoringFilter.pass_score_after_parsing`` and the
  configured Signature (``db.signature.class``);
* writes crawl_parse rows in Nutch's order: a ``signature`` datum for the page, a
  ``parse_metadata`` datum with the ``db.parsemeta.to.crawldb`` keys, a ``linked``
  datum for a meta-refresh target (``_repr_`` as the fetcher sets it), a ``linked``
  datum per kept outlink (:mod:`.outlinks`; interval ``db.fetch.interval.default``,
  scores from the scoring filters' ``initial_scores`` and ``distribute_score_to_targets``,
  the batch forms of ``initial_score`` and ``distribute_score_to_outlinks``) and the scoring
  filters' adjustment datum, if any.  A page's outlinks and their datums are kept as
  columns (:mod:`gossamer.core.link_columns`): no object per link.

A page whose parse fails (the parser raises or reports failure, a filter raises)
never stops the job: it gets a ``failed`` parse_data row with the reason, empty
text, and a ``parse_failed`` datum (the fetch datum with that status, 1 ms later
so it wins over the fetch_success row in updatedb).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from gossamer.core import (
    DIGEST_KEY,
    META_REPR_URL,
    REFRESH_SECONDS,
    REFRESH_URL,
    Content,
    CrawlDatum,
    CrawlStatus,
    DatumColumns,
    LinkTargets,
    OutlinkList,
    ParseData,
    ParseStatusCode,
    ParseText,
    Settings,
    canonical_mime,
    now_millis,
)
from gossamer.crawl.parse.outlinks import OutlinkFilter
from gossamer.crawl.parse.parsers import NamedParser, ParserSelector, active_parsers
from gossamer.crawl.parse.sandbox import ParseLimitError, ParseSandbox
from gossamer.plugins import HtmlParseFilter, Parser, ParseResult, PluginRepository, ScoringFilter, Signature

LOG = logging.getLogger(__name__)

TRUNCATED = "http.content.truncated"
"""Content metadata flag the protocol sets on cut content (Nutch's Response.TRUNCATED_CONTENT)."""
DECLARED_TYPE_KEY = "Content-Type-Declared"
"""Content metadata key of the declared Content-Type when detection chose another type."""
PERM_REFRESH_TIME = 5
"""A meta refresh of at least this many seconds counts as a permanent redirect (Nutch's Fetcher)."""

_LINKED = CrawlStatus.LINKED


@dataclass
class ParsedPage:
    """The parse of one page: its parse_data and parse_text rows and its crawl_parse rows.

    The crawl_parse rows come in three parts (:attr:`crawl_parse` joins them): ``page_rows``
    (the signature, parse-metadata and meta-refresh datums), ``links`` (the kept outlinks'
    ``linked`` datums, as columns; ``None`` when there are none) and ``after_links`` (the
    scoring filters' adjustment datum, if any).  ``failed`` is the reason when parsing
    failed, ``skipped`` when the page was not parsed (truncated, no parser).  ``redirect``
    is the processed meta-refresh target (empty when none), ``redirect_temp`` whether it
    counts as temporary (refresh delay under :data:`PERM_REFRESH_TIME` s), for a fetcher
    that follows redirects.
    """

    url: str
    parse_data: ParseData
    parse_text: ParseText
    page_rows: list[tuple[str, CrawlDatum]]
    failed: str = ""
    skipped: str = ""
    redirect: str = ""
    redirect_temp: bool = False
    links: LinkTargets | None = None
    after_links: list[tuple[str, CrawlDatum]] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """``success``, ``failed`` or ``skipped``."""
        return "failed" if self.failed else "skipped" if self.skipped else "success"

    @property
    def crawl_parse(self) -> list[tuple[str, CrawlDatum]]:
        """The page's crawl_parse rows in order: ``page_rows``, the ``links`` targets, ``after_links``.

        A new list on each call, the link targets' datums built for it (to read: changing
        them changes nothing stored; :meth:`add_crawl_rows` is what the parse tables get).
        """
        links = self.links.datums() if self.links is not None else []
        return [*self.page_rows, *links, *self.after_links]

    def add_crawl_rows(self, columns: DatumColumns) -> None:
        """Append the page's crawl_parse rows, in :attr:`crawl_parse` order, to ``columns``."""
        columns.add_rows(self.page_rows)
        if self.links is not None:
            self.links.append_to(columns)
        columns.add_rows(self.after_links)


def content_metadata(content: Content) -> dict[str, str]:
    """Response headers (repeated ones joined with ``, ``) overlaid by the content's own metadata."""
    meta: dict[str, str] = {}
    for name, value in content.headers:
        meta[name] = f"{meta[name]}, {value}" if name in meta else value
    meta.update(content.metadata)
    return meta


def describe(exc: BaseException) -> str:
    """``ValueError: bad file`` (the type alone when the message is empty); the sandbox's reasons as they are."""
    if isinstance(exc, ParseLimitError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


class PageParser:
    """Process-local page parser: plugin chains and caches are built once (see the module docstring)."""

    def __init__(self, settings: Settings, repository: PluginRepository | None = None) -> None:
        repo = repository if repository is not None else PluginRepository(settings)
        self.settings = settings
        self.load_errors = list(repo.load_errors)
        self.selector = ParserSelector(active_parsers(repo), settings.get_list("parse.plugin.map"),
                                       settings.get_bool("mime.type.magic"), settings.get_list("parser.size.limits"))
        self.inprocess = frozenset(settings.get_list("parser.inprocess"))
        self.sandbox = ParseSandbox(settings, [(state.info, state.source) for state in repo.states()
                                                if state.info.point == "Parser"])
        self._unsandboxed: set[str] = set()
        self.html_filters: list[HtmlParseFilter] = repo.chain(HtmlParseFilter)
        self.filters_skip_text = not any(f.reads_text for f in self.html_filters)
        self.scoring: list[ScoringFilter] = repo.chain(ScoringFilter)
        try:
            self.signature: Signature = repo.single(Signature)
        except LookupError as exc:
            raise ValueError(str(exc)) from None
        self.links = OutlinkFilter(settings, repo)
        self.skip_truncated = settings.get_bool("parser.skip.truncated")
        self.interval = settings.get_int("db.fetch.interval.default")
        self.meta_to_db = [k for k in settings.get_list("db.parsemeta.to.crawldb") if k]

    def pass_score_before_parsing(self, url: str, datum: CrawlDatum, content: Content) -> None:
        """Run the scoring filters' ``pass_score_before_parsing`` (crawldb facts into the content metadata).

        The caller runs it before :meth:`parse`: the parse job and the fetcher's inline
        parsing alike.  A filter that raises is logged and skipped, as in Nutch.
        """
        for scorer in self.scoring:
            try:
                scorer.pass_score_before_parsing(url, datum, content)
            except Exception as exc:  # noqa: BLE001 - Nutch logs scoring failures and goes on
                LOG.warning("%s: could not pass score before parsing: %s", url, exc)

    def close(self) -> None:
        """Stop the parse worker process, if one runs (a later parse starts it again)."""
        self.sandbox.close()

    def parse(self, url: str, fetch_datum: CrawlDatum, content: Content) -> ParsedPage:
        """Parse one fetched page; never raises for bad content (a failure is a ``failed`` page)."""
        meta = content_metadata(content)
        try:
            if self.skip_truncated and content.metadata.get(TRUNCATED, "").lower() == "true":
                return self._unparsed(url, content, meta, "truncated content (parser.skip.truncated)")
            mime = self.selector.content_type(content)
            if mime != canonical_mime(content.content_type):
                if content.content_type:
                    meta[DECLARED_TYPE_KEY] = content.content_type
                meta["Content-Type"] = mime
            candidates = self.selector.candidates(mime)
            if not candidates:
                return self._unparsed(url, content, meta, f"no parser for {mime}")
            limit = self.selector.size_limit(mime)
            if 0 <= limit < len(content.content):
                return self._failed(url, fetch_datum, content, meta, f"too large: {len(content.content)} bytes, "
                                    f"parser.size.limits allows {limit} for {mime}")
            return self._parse(url, content, meta, self._first_success(content, candidates))
        except Exception as exc:  # noqa: BLE001 - any failure of a parser plugin is this page's failure
            return self._failed(url, fetch_datum, content, meta, describe(exc))

    def _first_success(self, content: Content, candidates: list[NamedParser]) -> ParseResult:
        reasons = []
        for plugin_id, parser in candidates:
            try:
                result = self._run_parser(content, plugin_id, parser)
            except ParseLimitError as exc:
                if str(exc).startswith(("timeout", "out of memory", "parser process")):
                    raise  # the document itself is hostile: no other parser gets it
                reasons.append(f"{plugin_id}: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001 - the next candidate may read it
                reasons.append(f"{plugin_id}: {describe(exc)}")
                continue
            if result.data.status == ParseStatusCode.SUCCESS:
                return result
            reasons.append(f"{plugin_id}: {result.data.status_message or result.data.status.name.lower()}")
        raise ParseLimitError(reasons[0].partition(": ")[2] if len(reasons) == 1 else "; ".join(reasons))

    def _run_parser(self, content: Content, plugin_id: str, parser: Parser) -> ParseResult:
        if plugin_id not in self.inprocess and plugin_id not in self._unsandboxed:
            try:
                return self.sandbox.parse(plugin_id, content)
            except LookupError:  # the worker cannot load it: run it here
                LOG.warning("parser %s cannot run in the parse worker process; running it in this one", plugin_id)
                self._unsandboxed.add(plugin_id)
        if not self.html_filters:
            return parser.parse(content)
        text_later = getattr(parser, "parse_tree_text_later", None) if self.filters_skip_text else None
        if text_later is not None:
            result, tree, set_text = text_later(content)
            for html_filter in self.html_filters:
                result = html_filter.filter(content, result, tree)
            set_text(result)
            return result
        parse_tree = getattr(parser, "parse_tree", None)
        if parse_tree is None:
            return parser.parse(content)
        result, tree = parse_tree(content, keep_tree=True)
        for html_filter in self.html_filters:
            result = html_filter.filter(content, result, tree)
        return result

    def _parse(self, url: str, content: Content, meta: dict[str, str], result: ParseResult) -> ParsedPage:
        data = result.data
        data.content_metadata = {**meta, **data.content_metadata} if data.content_metadata else meta
        for scorer in self.scoring:
            try:
                scorer.pass_score_after_parsing(url, content, result)
            except Exception as exc:  # noqa: BLE001 - Nutch logs scoring failures and goes on
                LOG.warning("%s: could not pass score after parsing: %s", url, exc)
        signature = self.signature.calculate(content, result)
        data.content_metadata[DIGEST_KEY] = signature.hex()
        now = now_millis()
        rows: list[tuple[str, CrawlDatum]] = [(url, CrawlDatum(CrawlStatus.SIGNATURE, now, signature=signature))]
        if self.meta_to_db:
            found = {k: data.parse_metadata[k] for k in self.meta_to_db if k in data.parse_metadata}
            if found:
                rows.append((url, CrawlDatum(CrawlStatus.PARSE_META, now, metadata=found)))
        page = ParsedPage(url, data, result.text, rows)
        refresh = data.parse_metadata.get(REFRESH_URL)
        if refresh:
            self._redirect(page, refresh, data.parse_metadata.get(REFRESH_SECONDS, "0"), now)
        raw = data.outlinks
        kept = self.links.outlinks(url, raw)
        data.outlinks = kept
        if kept:
            self._link_rows(page, result, kept, len(raw), now)
        return page

    def _redirect(self, page: ParsedPage, target: str, seconds: str, now: int) -> None:
        url = self.links.redirect(page.url, target)
        if url is None:
            return
        temp = (int(seconds) if seconds.isdigit() else 0) < PERM_REFRESH_TIME
        datum = CrawlDatum(_LINKED, now, 0, self.interval)
        representative = page.url if temp else url
        if representative != url:
            datum.metadata[META_REPR_URL] = representative
        page.page_rows.append((url, datum))
        page.redirect, page.redirect_temp = url, temp

    def _link_rows(self, page: ParsedPage, result: ParseResult, kept: OutlinkList, all_count: int, now: int) -> None:
        url = page.url
        targets = LinkTargets(kept.to_urls, now, self.interval, kept.metadata)
        adjust: CrawlDatum | None = None
        for scorer in self.scoring:
            try:
                scorer.initial_scores(targets)
            except Exception as exc:  # noqa: BLE001 - Nutch falls back to score 0
                LOG.warning("%s: could not set initial scores of outlinks, using 0: %s", url, exc)
                targets.set_scores(0.0)
        for scorer in self.scoring:
            try:
                adjust = scorer.distribute_score_to_targets(url, result, targets, adjust, all_count)
            except Exception as exc:  # noqa: BLE001 - Nutch logs and goes on
                LOG.warning("%s: could not distribute score to outlinks: %s", url, exc)
        page.links = targets
        if adjust is not None:
            page.after_links.append((url, adjust))

    def _signature_row(self, url: str, content: Content, meta: dict[str, str]) -> list[tuple[str, CrawlDatum]]:
        try:
            signature = self.signature.calculate(content, None)
        except Exception as exc:  # noqa: BLE001 - a page without signature is still recorded
            LOG.warning("%s: could not compute the signature: %s", url, exc)
            return []
        meta[DIGEST_KEY] = signature.hex()
        return [(url, CrawlDatum(CrawlStatus.SIGNATURE, now_millis(), signature=signature))]

    def _unparsed(self, url: str, content: Content, meta: dict[str, str], reason: str) -> ParsedPage:
        rows = self._signature_row(url, content, meta)
        data = ParseData(ParseStatusCode.NOTPARSED, "", [], meta, {}, reason)
        return ParsedPage(url, data, ParseText(""), rows, skipped=reason)

    def _failed(self, url: str, fetch_datum: CrawlDatum, content: Content, meta: dict[str, str],
                reason: str) -> ParsedPage:
        rows = self._signature_row(url, content, meta)
        datum = fetch_datum.copy()
        datum.status = CrawlStatus.PARSE_FAILED
        datum.fetch_time = fetch_datum.fetch_time + 1
        rows.append((url, datum))
        data = ParseData(ParseStatusCode.FAILED, "", [], meta, {}, reason)
        return ParsedPage(url, data, ParseText(""), rows, failed=reason)
