"""The web graph's link rules: which settings apply, and the host / domain / page of a URL.

* :class:`GraphSettings` — the ``link.*`` properties the graph jobs read.
* :func:`url_host`, :func:`url_domain`, :func:`url_page` — a URL's host (ASCII
  lower-cased, ``""`` when it has none), registered domain (``""`` without a
  host) and page (Nutch's ``URLUtil.getPage``: the URL lower-cased, without its
  query and fragment), each memoized per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gossamer.core import Settings, domain_of
from gossamer.store import host_of

SCOPE = "default"
"""The URL normalizer scope of ``webgraph -normalize`` (Nutch's WebGraph uses the default scope)."""


@dataclass(frozen=True)
class GraphSettings:
    """The ``link.*`` properties of WebGraph (see docs/link-analysis.md)."""

    ignore_internal_host: bool
    ignore_internal_domain: bool
    limit_page: bool
    limit_domain: bool
    delete_gone: bool
    initial_score: float

    @classmethod
    def from_settings(cls, settings: Settings) -> GraphSettings:
        """Read the properties."""
        return cls(
            ignore_internal_host=settings.get_bool("link.ignore.internal.host"),
            ignore_internal_domain=settings.get_bool("link.ignore.internal.domain"),
            limit_page=settings.get_bool("link.ignore.limit.page"),
            limit_domain=settings.get_bool("link.ignore.limit.domain"),
            delete_gone=settings.get_bool("link.delete.gone"),
            initial_score=settings.get_float("link.analyze.initial.score"),
        )


@lru_cache(maxsize=65536)
def url_host(url: str) -> str:
    """The host of ``url`` (ASCII lower-cased; ``""`` when it has none)."""
    return host_of(url)


@lru_cache(maxsize=65536)
def url_domain(url: str) -> str:
    """The registered domain of ``url``'s host (``""`` when it has no host)."""
    host = url_host(url)
    return domain_of(host) if host else ""


@lru_cache(maxsize=65536)
def url_page(url: str) -> str:
    """``url`` lower-cased without its query and fragment (Nutch's ``URLUtil.getPage``)."""
    cut = len(url)
    for mark in "?#":
        at = url.find(mark)
        if 0 <= at < cut:
            cut = at
    return url[:cut].lower()
