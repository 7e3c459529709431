"""The values of a sitemap entry: dates (``lastmod``), ``changefreq`` and ``priority``.

Dates are W3C Datetime (sitemaps.org: ``2024``, ``2024-05``, ``2024-05-17``,
``2024-05-17T10:00:00+02:00`` …), RFC 822 (RSS ``pubDate``) or ISO 8601 (Atom
``updated``).  A date without a zone is UTC.  What cannot be read, and a date more
than a day in the future (a clock or a lie), gives 0: "not known".  ``changefreq``
maps to Nutch's intervals (SitemapProcessor); a priority outside 0…1 or unreadable
is not known (``None``).
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

CHANGEFREQ_SECONDS: dict[str, int] = {
    "always": 1,
    "hourly": 3600,
    "daily": 86400,
    "weekly": 604800,
    "monthly": 2592000,
    "yearly": 31536000,
    "never": 2**31 - 1,
}
"""sitemaps.org ``changefreq`` → fetch interval in seconds, as Nutch's SitemapProcessor."""

DEFAULT_PRIORITY = 0.5
"""sitemaps.org's default priority of a URL (crawler-commons uses it when the tag is missing)."""

FUTURE_SLACK_MS = 86_400_000
"""A lastmod later than now plus this is ignored."""

_YEAR_MONTH = re.compile(r"^(\d{4})(?:-(\d{2}))?$")


def parse_date(text: str | None, now_ms: int | None = None) -> int:
    """Milliseconds since the epoch of a sitemap or feed date; 0 when absent, unreadable or in the future."""
    if not text:
        return 0
    text = text.strip()
    moment = _w3c(text) or _rfc822(text)
    if moment is None:
        return 0
    millis = int(moment.timestamp() * 1000)
    limit = (now_ms if now_ms is not None else int(time.time() * 1000)) + FUTURE_SLACK_MS
    return millis if 0 < millis <= limit else 0


def _w3c(text: str) -> datetime | None:
    match = _YEAR_MONTH.match(text)
    if match:
        try:
            return datetime(int(match.group(1)), int(match.group(2) or 1), 1, tzinfo=UTC)
        except ValueError:
            return None
    try:
        moment = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _rfc822(text: str) -> datetime | None:
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def parse_changefreq(text: str | None) -> str | None:
    """The ``changefreq`` keyword in lower case, or None when absent or not one of sitemaps.org's seven."""
    if not text:
        return None
    word = text.strip().lower()
    return word if word in CHANGEFREQ_SECONDS else None


def parse_priority(text: str | None) -> float | None:
    """The priority as a float in 0…1, or None when absent or invalid."""
    if not text:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


def interval_for(changefreq: str | None, default: int, low: float, high: int) -> int:
    """The fetch interval (s) for ``changefreq``: Nutch's mapping clamped to ``[low, high]``; ``default`` if None."""
    if changefreq is None:
        return default
    seconds = CHANGEFREQ_SECONDS[changefreq]
    return int(min(max(seconds, low), high))
