"""Syntactic URL checks shared by every job that accepts URLs from outside.

``url_problem`` parses with ada-url (WHATWG) and returns why a URL cannot go
into the crawldb, or ``None`` when it can.  WHATWG parsing already requires a
host for the network schemes (http, https, ftp).  It does not normalize: that is the
URLNormalizer chain's job.
"""

from __future__ import annotations

import re
from collections.abc import Collection

import ada_url

MAX_URL_LENGTH = 65_536
_SPACE = re.compile(r"\s").search


def url_problem(url: str, schemes: Collection[str]) -> str | None:
    """Why ``url`` is unacceptable (not a URL, unknown scheme, no host …), or ``None``."""
    if not url:
        return "empty URL"
    if len(url) > MAX_URL_LENGTH:
        return f"URL longer than {MAX_URL_LENGTH} characters"
    if _SPACE(url):
        return "not a URL (contains white space)"
    if not ada_url.check_url(url):
        return "not a URL"
    scheme = url.partition(":")[0].lower()
    if scheme not in schemes:
        return f"unknown scheme {scheme!r} (accepted: {', '.join(sorted(schemes))})"
    return None
