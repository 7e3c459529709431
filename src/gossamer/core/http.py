"""HTTP facts shared by the protocol plugin, the fetcher, WARC files and the parse job.

* :class:`HttpExchange` — one request/response as sent and received (what a WARC
  request + response record pair holds);
* :func:`agent_string` — the User-Agent Nutch composes from the ``http.agent.*`` settings;
* :func:`retry_after_seconds` — a ``Retry-After`` header value in seconds;
* :func:`http_date` — an HTTP date header's value as a datetime (cached: pages repeat them);
* the decompressed-size limit's property name and default.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from functools import lru_cache

from gossamer.core.settings import Settings

DECOMPRESSED_LIMIT_PROPERTY = "http.content.limit.decompressed"
DEFAULT_DECOMPRESSED_LIMIT = 16 * 1024 * 1024
"""Used while :data:`DECOMPRESSED_LIMIT_PROPERTY` is not yet a known setting."""


def agent_string(settings: Settings) -> str:
    """User-Agent as Nutch composes it: ``name/version (description; url; email)``.

    Raises :class:`ValueError` when http.agent.name is empty (Nutch refuses to fetch then).
    """
    name = settings.get_str("http.agent.name").strip()
    if not name:
        raise ValueError("http.agent.name is empty: set it (e.g. -D http.agent.name=mybot) before fetching")
    version = settings.get_str("http.agent.version").strip()
    agent = f"{name}/{version}" if version else name
    extras = [settings.get_str(k).strip() for k in ("http.agent.description", "http.agent.url",
                                                     "http.agent.email")]
    extras = [e for e in extras if e]
    return f"{agent} ({'; '.join(extras)})" if extras else agent


@lru_cache(maxsize=4096)
def http_date(value: str) -> datetime | None:
    """An HTTP date header's value as a datetime (``None`` when it does not parse).

    For ``Last-Modified``, ``Date`` and ``Retry-After``.  Naive when the value names no zone (callers
    decide what that means).

    Cached: a site's pages mostly share a few values (the doc web: 16 Last-Modified values for 42k pages).
    """
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After value (delta seconds or HTTP date); None if absent or invalid."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = http_date(value)
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass
class HttpExchange:
    """One HTTP request/response as sent and received, for WARC records.

    ``raw_body`` is the entity body as transferred (Content-Encoding still applied,
    chunking removed), possibly truncated (``truncated`` says why).
    """

    url: str
    method: str
    request_target: str
    http_version: str
    request_headers: list[tuple[str, str]]
    status: int
    reason: str
    response_headers: list[tuple[str, str]]
    raw_body: bytes
    date: datetime
    ip: str | None = None
    truncated: str = ""
    request_version: str = ""
    """The HTTP version the request went out with (``http_version`` is the response's); empty: the same."""
