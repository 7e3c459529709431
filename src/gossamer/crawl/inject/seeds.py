"""Nutch's seed-line format: ``url <TAB> key=value <TAB> key=value …``.

Blank lines and lines whose first non-blank character is ``#`` are not seeds.
Reserved keys: ``nutch.score`` (float), ``nutch.fetchInterval`` (seconds) and
``nutch.fetchInterval.fixed`` (seconds; also recorded as ``fixedInterval``
metadata so adaptive schedules keep it).  Any other ``key=value`` becomes crawldb
metadata.  Unlike Nutch, which logs and ignores a malformed item, a line with a
malformed item (no ``=``, empty key, a reserved value that is not a number) is
rejected as a whole, so a typo never silently injects a URL with wrong settings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

SCORE_KEY = "nutch.score"
INTERVAL_KEY = "nutch.fetchInterval"
FIXED_INTERVAL_KEY = "nutch.fetchInterval.fixed"


_PLAIN_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


class SeedError(ValueError):
    """A seed line that cannot be used; the message says why."""


@dataclass
class SeedLine:
    """A parsed seed line (the URL is not yet validated or normalized)."""

    url: str
    score: float | None = None
    interval: int | None = None
    fixed_interval: float | None = None
    metadata: dict[str, str] = field(default_factory=dict)


def is_seed_text(line: str) -> bool:
    """False for blank and comment lines."""
    if line[:1] in _PLAIN_START:  # the common case: a line starting with a URL
        return True
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def parse_seed_line(line: str) -> SeedLine:
    """Parse one non-comment seed line; raises :class:`SeedError` for malformed metadata."""
    url, *items = line.strip().split("\t")
    seed = SeedLine(url.strip())
    for item in items:
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise SeedError(f"bad metadata {item!r} (expected key=value)")
        if key == SCORE_KEY:
            seed.score = _number(key, value)
        elif key == INTERVAL_KEY:
            seed.interval = _interval(key, value)
        elif key == FIXED_INTERVAL_KEY:
            seed.fixed_interval = float(_interval(key, value))
        else:
            seed.metadata[key] = value
    return seed


def _number(key: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise SeedError(f"bad metadata {key}={value!r} (not a number)") from None
    if not math.isfinite(number):
        raise SeedError(f"bad metadata {key}={value!r} (not a finite number)")
    return number


def _interval(key: str, value: str) -> int:
    seconds = _number(key, value)
    if seconds < 0 or seconds > 2**31 - 1:
        raise SeedError(f"bad metadata {key}={value!r} (interval out of range)")
    return int(round(seconds))
