"""Fetch and parse one URL exactly as a crawl would: what ``parsechecker`` and ``indexchecker`` run.

:func:`check_page` is Nutch's ParserChecker without the printing.  It builds no
client and no parser of its own:

* the fetch is one item through :func:`~gossamer.crawl.fetch.fetcher.fetch_all`, the
  crawl's fetch loop, with the active Protocol plugins chosen by scheme, the crawl's
  status mapping, content metadata (``_fst_``, ``_ftk_``, score) and redirect-target
  rules (the ``fetcher`` URL chain).  The input datum is an injected URL's
  (``db.score.injected``, ``db.fetch.interval.default``);
* robots.txt is **not** consulted unless ``check_robots`` (Nutch's ``-checkRobotsTxt``:
  a checker tells what a page *would* parse to, not whether the crawl may fetch it);
  when it is, the crawl's rules apply, Crawl-delay limits included;
* redirects are not followed unless ``follow_redirects``: then up to
  ``http.redirect.max`` hops, 3 when that is 0 (as Nutch's checker does); every hop
  is kept in :attr:`PageCheck.hops`;
* the page is parsed by :class:`~gossamer.crawl.parse.PageParser` — scoring filters'
  ``pass_score_before_parsing`` then ``parse`` — the calls the parse job and the
  fetcher's inline parsing make, so parser selection, parse filters, signature and
  outlink rules are the crawl's.

The checker's own fetch settings (one worker, no wait between its two or three
requests — robots.txt, page, redirect hops — unless robots.txt asks for a
Crawl-delay, no time limit) are laid over the given settings as origin ``checker``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from gossamer.core import Content, CrawlDatum, CrawlStatus, Settings, now_millis, url_problem
from gossamer.crawl.fetch.fetcher import FetchResult, FetchRobots, ListSink, fetch_all
from gossamer.crawl.parse import PageParser, ParsedPage
from gossamer.plugins import PluginRepository, ProtocolSelector, URLChain

CHECKER_REDIRECTS = 3
"""Redirect hops followed with ``follow_redirects`` when ``http.redirect.max`` is 0 (Nutch's checker)."""


@dataclass(frozen=True)
class CheckOptions:
    """Switches of the checkers (Nutch's spellings in the comments)."""

    check_robots: bool = False  # -checkRobotsTxt
    follow_redirects: bool = False  # -followRedirects
    normalize: bool = False  # -normalize
    force_type: str = ""  # -forceAs: parse as this content type


@dataclass
class PageCheck:
    """What fetching and parsing one URL gave.

    ``url`` is the URL asked for (after ``-normalize``); ``hops`` every fetch result in
    order (more than one when redirects were followed); ``dropped`` the reason when the
    fetch loop removed the URL without a request (unresolvable host, robots.txt
    unavailable …); ``page`` the parse of the last hop when it was fetched
    successfully; ``declared_type`` / ``effective_type`` the Content-Type sent and the
    type the parser was chosen by.
    """

    url: str
    hops: list[FetchResult] = field(default_factory=list)
    dropped: str = ""
    page: ParsedPage | None = None
    declared_type: str = ""
    effective_type: str = ""

    @property
    def last(self) -> FetchResult | None:
        """The final fetch result (the redirect target's when redirects were followed)."""
        return self.hops[-1] if self.hops else None

    @property
    def fetched(self) -> bool:
        """Whether the final fetch was a ``fetch_success``."""
        last = self.last
        return last is not None and last.datum.status == CrawlStatus.FETCH_SUCCESS

    @property
    def content(self) -> Content | None:
        """The final fetch's content, if any."""
        last = self.last
        return None if last is None else last.content


def checker_settings(settings: Settings, options: CheckOptions) -> Settings:
    """``settings`` with the checker's fetch settings on top (see the module docstring)."""
    hops = 0
    if options.follow_redirects:
        configured = settings.get_int("http.redirect.max")
        hops = configured if configured > 0 else CHECKER_REDIRECTS
    return settings.with_values([
        ("fetcher.threads.fetch", 1), ("fetcher.server.delay", 0.0), ("fetcher.server.min.delay", 0.0),
        ("fetcher.timelimit.mins", -1), ("fetcher.throughput.threshold.pages", -1),
        ("http.redirect.max", hops), ("http.redirect.max.exceeded.skip", False),
    ], "checker")


def normalized_url(url: str, settings: Settings, normalize: bool) -> str:
    """``url`` stripped, and through the ``default`` normalizer chain with ``normalize``.

    Raises ValueError for text that is no URL and for a URL the normalizers reject.  Any
    scheme passes here: one no Protocol plugin serves is the fetch's ``proto_not_found``.
    """
    url = url.strip()
    problem = url_problem(url, (url.partition(":")[0].lower(),))
    if problem:
        raise ValueError(f"{url or '(empty)'}: {problem}")
    if normalize:
        url = URLChain(PluginRepository(settings), "default", normalize=True, filter=False).normalize(url)
    return url


async def fetch_one(url: str, settings: Settings, check_robots: bool) -> tuple[list[FetchResult], str]:
    """Every fetch result of ``url`` (redirect hops included) and the drop reason, if any.

    ``settings`` should come from :func:`checker_settings`.  Raises ValueError for bad
    fetch settings (an empty ``http.agent.name`` …).
    """
    datum = CrawlDatum(CrawlStatus.DB_UNFETCHED, now_millis(), 0, settings.get_int("db.fetch.interval.default"),
                       settings.get_float("db.score.injected"))
    protocol = ProtocolSelector(PluginRepository(settings))
    robots = FetchRobots(settings, enabled=check_robots, protocol=protocol)
    sink = ListSink()
    try:
        await fetch_all([(url, datum)], settings, sink, protocol=protocol, robots=robots)
    finally:
        await robots.close()
        await protocol.close()
    dropped = "; ".join(f"{reason}: {detail}" for _, reason, detail in sink.drops)
    return sink.results, dropped


def parse_fetched(parser: PageParser, result: FetchResult, force_type: str = "") -> tuple[ParsedPage, str, str]:
    """Parse a successful fetch as the parse job does: ``(page, declared type, effective type)``.

    ``force_type`` replaces the declared Content-Type before the parser is chosen.
    """
    content = result.content
    assert content is not None
    declared = content.content_type
    if force_type:
        content.content_type = force_type
    effective = parser.selector.content_type(content)
    parser.pass_score_before_parsing(result.url, result.datum, content)
    page = parser.parse(result.url, result.datum, content)
    return page, declared, effective


def check_page(url: str, settings: Settings, options: CheckOptions = CheckOptions()) -> PageCheck:
    """Fetch ``url`` and parse it as a crawl would (see the module docstring); never raises for network trouble.

    Raises ValueError for a URL the normalizers reject and for bad settings.
    """
    url = normalized_url(url, settings, options.normalize)
    fetch_settings = checker_settings(settings, options)
    hops, dropped = asyncio.run(fetch_one(url, fetch_settings, options.check_robots))
    check = PageCheck(url, hops, dropped)
    if check.fetched and check.content is not None:
        last = check.last
        assert last is not None
        check.page, check.declared_type, check.effective_type = \
            parse_fetched(PageParser(settings), last, options.force_type)
    elif check.content is not None:
        check.declared_type = check.content.content_type
    return check
