"""What the fetch loop hands out: results, the sink interface, and the run summary."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from gossamer.core import Content, CrawlDatum, HttpExchange, Report


@dataclass
class FetchResult:
    """What the sink receives for one fetched URL.

    ``datum`` is the crawl_fetch datum (a copy of the input datum with a ``fetch_*``
    status, fetch time now and ``_pst_``/``nutch.protocol.code``/``Content-Type``
    metadata); ``content`` the decoded content (None when nothing arrived);
    ``exchange`` the HTTP request/response for WARC (None without a response);
    ``linked`` redirect targets recorded as ``linked`` datums for a later round.
    """

    url: str
    datum: CrawlDatum
    content: Content | None
    exchange: HttpExchange | None
    linked: list[tuple[str, CrawlDatum]] = field(default_factory=list)


class FetchSink(Protocol):
    """Receives results; called from the event loop, so it must be quick (buffer, then write in batches)."""

    def result(self, result: FetchResult) -> None:
        """One fetched URL."""

    def dropped(self, url: str, datum: CrawlDatum, reason: str, detail: str) -> None:
        """A URL removed without a fetch; ``reason`` is a short category, ``detail`` the full text."""


class ListSink:
    """A sink that keeps everything in lists (tests, small runs)."""

    def __init__(self) -> None:
        self.results: list[FetchResult] = []
        self.drops: list[tuple[str, str, str]] = []

    def result(self, result: FetchResult) -> None:
        """Append the result."""
        self.results.append(result)

    def dropped(self, url: str, datum: CrawlDatum, reason: str, detail: str) -> None:
        """Append ``(url, reason, detail)``."""
        self.drops.append((url, reason, detail))

    def by_url(self) -> dict[str, FetchResult]:
        """The last result of each URL."""
        return {r.url: r for r in self.results}


@dataclass
class FetchSummary(Report):
    """Counts of one fetch loop; ``by_status`` is keyed by fetch status name (``fetch_success`` …).

    ``results``: every URL the loop finished (each has a ``by_status`` entry); ``pages``:
    those a server answered (any HTTP status, or content from another protocol) — a
    refused connection, a timeout before the headers, a robots.txt denial or a refused
    address is a result but no page; ``errors``: results whose protocol status is an
    exception or a failure (a refused connection is one).
    """

    SAMPLES = ()
    MERGE_MAX = ("started", "elapsed")

    started: float = 0.0
    elapsed: float = 0.0
    results: int = 0
    pages: int = 0
    bytes: int = 0
    errors: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_protocol: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    redirects_followed: int = 0
    redirect_loops: int = 0
    stopped: str = ""

    @property
    def pages_per_second(self) -> float:
        """Pages (server responses) per second of elapsed time."""
        return self.pages / self.elapsed if self.elapsed > 0 else 0.0

    def json_extra(self) -> dict[str, object]:
        """The rate, beside the counts."""
        return {"pages_per_second": round(self.pages_per_second, 2)}
