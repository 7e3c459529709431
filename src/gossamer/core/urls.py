"""URL helpers every part shares: syntactic checks, hosts, registered domains, public suffixes.

* :func:`url_problem` parses with ada-url (WHATWG) and returns why a URL cannot go
  into the crawldb, or ``None`` when it can.  WHATWG parsing already requires a
  host for the network schemes (http, https, ftp).  It does not normalize: that is the
  URLNormalizer chain's job.
* :func:`split_url` splits a URL the way ``java.net.URL`` does for the parts the
  filters use (scheme, host, path, query) and returns ``None`` where
  ``new URL(url)`` would throw (no scheme, bad scheme characters, non-numeric port).
* :func:`domain_of` is Nutch's ``URLUtil.getDomainName``: an IPv4 address is its own
  domain; otherwise the public suffix plus one label (``lucene.apache.org`` →
  ``apache.org``, ``www.bbc.co.uk`` → ``bbc.co.uk``); a host under no known
  suffix yields its last label (``intranet.local`` → ``local``), a host that is
  itself a public suffix yields itself.
* :func:`suffix_of` is ``URLUtil.getDomainSuffix``: the public suffix of the
  host (``co.uk``), ``None`` for IPv4 addresses and unknown suffixes.

Public suffixes come from the Public Suffix List snapshot bundled with
``tldextract`` (ICANN section only, like Nutch's ``domain-suffixes.xml`` which
lists no private registries).  The extractor is built with
``suffix_list_urls=()`` and no cache directory: it never touches the network or
the disk.  Results are memoized per host.  The host rule of the table partitioner
(:func:`gossamer.store.partitioning.host_of`) is separate: it must match its
vectorized Arrow form exactly.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache
from typing import Any, NamedTuple

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


@lru_cache(maxsize=1)
def _extractor() -> Any:
    """The public-suffix extractor, built on first use (importing tldextract costs ~0.25 s)."""
    import tldextract

    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True,
                                 include_psl_private_domains=False)
_IPV4 = re.compile(r"(?:\d{1,3}\.){3}\d{1,3}", re.ASCII)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*", re.ASCII)


class UrlParts(NamedTuple):
    """The parts of a URL the filters look at; ``host`` is as written (not lower-cased)."""

    scheme: str
    host: str
    path: str
    query: str | None

    @property
    def file(self) -> str:
        """Path plus ``?query`` (Java's ``URL.getFile``)."""
        return self.path if self.query is None else f"{self.path}?{self.query}"


def split_url(url: str) -> UrlParts | None:
    """Scheme, host, path and query of ``url``; ``None`` when ``java.net.URL`` would reject it.

    The fragment is dropped; an IPv6 host keeps its brackets (as ``URL.getHost``).
    """
    colon = url.find(":")
    if colon <= 0 or not _SCHEME.fullmatch(url, 0, colon):
        return None
    rest = url[colon + 1:]
    hash_at = rest.find("#")
    if hash_at >= 0:
        rest = rest[:hash_at]
    query: str | None = None
    host = ""
    if rest.startswith("//"):
        end = len(rest)
        for sep in "/?":
            at = rest.find(sep, 2)
            if 0 <= at < end:
                end = at
        authority, rest = rest[2:end], rest[end:]
        hostport = authority[authority.rfind("@") + 1:]
        bracket = hostport.rfind("]")
        port_colon = hostport.find(":", bracket + 1)
        if port_colon >= 0:
            port = hostport[port_colon + 1:]
            if port and not (port.isascii() and port.isdigit()):
                return None
            hostport = hostport[:port_colon]
        host = hostport
    q_at = rest.find("?")
    if q_at >= 0:
        rest, query = rest[:q_at], rest[q_at + 1:]
    return UrlParts(url[:colon].lower(), host, rest, query)


def url_host(url: str) -> str | None:
    """Lower-cased host of ``url`` (``URLUtil.getHost``); ``None`` for a malformed URL."""
    parts = split_url(url)
    return None if parts is None else parts.host.lower()


@lru_cache(maxsize=65536)
def domain_and_suffix(host: str) -> tuple[str, str | None]:
    """``(registered domain, public suffix or None)`` of ``host`` (memoized)."""
    host = host.lower().rstrip(".")
    if not host or _IPV4.fullmatch(host) or host.startswith("["):
        return host, None
    parts = _extractor().extract_str(host)
    if not parts.suffix:
        return host.rsplit(".", 1)[-1], None
    if not parts.domain:  # the host is itself a public suffix
        parent = host.split(".", 1)[1] if "." in host else ""
        return host, (domain_and_suffix(parent)[1] or parent) if parent else host
    return f"{parts.domain}.{parts.suffix}", parts.suffix


def domain_of(host: str) -> str:
    """Registered domain of ``host`` (see the module docstring)."""
    return domain_and_suffix(host)[0]


def suffix_of(host: str) -> str | None:
    """Public suffix of ``host``, or ``None`` (IPv4 address, unknown suffix)."""
    return domain_and_suffix(host)[1]


def url_domain(url: str) -> str | None:
    """Registered domain of ``url``'s host; ``None`` for a malformed URL."""
    host = url_host(url)
    return None if host is None else domain_of(host)
