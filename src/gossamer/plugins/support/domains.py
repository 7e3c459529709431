"""Domain lists of the domain URL filters (``domain-urlfilter.txt``, ``domain-denylist``).

Hosts, registered domains and suffixes themselves are computed in :mod:`gossamer.core.urls`.
"""

from __future__ import annotations

from collections.abc import Iterable

from gossamer.core import domain_and_suffix, url_host


def read_domain_list(lines: Iterable[tuple[int, str]]) -> frozenset[str]:
    """Entries of a ``domain-urlfilter.txt``-style file, trimmed and lower-cased.

    Blank lines and lines starting with ``#`` are skipped; an entry is a public
    suffix, a registered domain or a host name.
    """
    return frozenset(line.strip().lower() for _, line in lines if line.strip() and not line.startswith("#"))


def url_listed(url: str, entries: frozenset[str]) -> bool | None:
    """Whether ``url``'s public suffix, registered domain or host is in ``entries``.

    ``None`` when the URL is malformed (both domain filters then reject it, as Nutch does).
    """
    host = url_host(url)
    if host is None:
        return None
    domain, suffix = domain_and_suffix(host)
    return host in entries or domain in entries or (suffix is not None and suffix in entries)
