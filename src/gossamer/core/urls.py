"""Syntactic URL checks shared by every job that accepts URLs from outside.

``url_problem`` parses with ada-url (WHATWG) and returns why a URL cannot go
into the crawldb, or ``None`` when it can.  It does not normalize: that is the
URLNormalizer chain's job.
"""

from __future__ import annotations

from collections.abc import Collection

import ada_url

NETWORK_SCHEMES = frozenset({"http", "https", "ftp"})
MAX_URL_LENGTH = 65_536


def url_problem(url: str, schemes: Collection[str]) -> str | None:
    """Why ``url`` is unacceptable (not a URL, unknown scheme, no host …), or ``None``."""
    if not url:
        return "empty URL"
    if len(url) > MAX_URL_LENGTH:
        return f"URL longer than {MAX_URL_LENGTH} characters"
    if any(ch.isspace() for ch in url):
        return "not a URL (contains white space)"
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        return "not a URL"
    scheme = parsed.protocol.rstrip(":").lower()
    if scheme not in schemes:
        return f"unknown scheme {scheme!r} (accepted: {', '.join(sorted(schemes))})"
    if scheme in NETWORK_SCHEMES and not parsed.hostname:
        return "no host"
    return None
