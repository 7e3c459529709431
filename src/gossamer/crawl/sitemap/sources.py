"""Where sitemaps come from, and which URLs a sitemap may list.

Sources (Nutch's SitemapProcessor): the lines of a ``-sitemapUrls`` directory — a
sitemap URL, or a host name whose robots.txt is read — and the hosts of a hostdb or
of the crawldb, whose robots.txt ``Sitemap:`` lines name the sitemaps (``/sitemap.xml``
when there is none and ``sitemap.url.default.sitemap.xml``).

The cross-host rule (:func:`allowed`): a sitemap lists URLs of its own host only —
in strict mode (``sitemap.strict.parsing``, crawler-commons' strict parsing) only
under its own directory, too.  A sitemap announced in host H's robots.txt may also
list any URL of H (sitemaps.org's cross-submission).  ``sitemap.allow.cross.host``
lifts the rule.  The sitemaps an index names follow the host rule (not the path rule).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.store import Place, TableVersion

ORIGIN_PATTERN = r"^(?P<origin>[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*)"


@dataclass(frozen=True)
class SitemapSeed:
    """A sitemap to fetch: its URL, the host whose robots.txt announced it (``""``: none), its nesting depth."""

    url: str
    owner: str = ""
    depth: int = 0


@dataclass(frozen=True)
class ScopeRule:
    """The cross-host rule of the module docstring."""

    strict: bool = True
    cross_host: bool = False

    def allowed(self, url: str, sitemap_url: str, owner: str = "") -> bool:
        """Whether the sitemap at ``sitemap_url`` (announced by ``owner``'s robots.txt) may list ``url``."""
        if self.cross_host:
            return True
        host = _host(url)
        if owner and host == owner:
            return True
        if host != _host(sitemap_url):
            return False
        if not self.strict:
            return True
        base = urlsplit(sitemap_url).path.rpartition("/")[0] + "/"
        return (urlsplit(url).path or "/").startswith(base)

    def allowed_sitemap(self, url: str, index_url: str, owner: str = "") -> bool:
        """Whether the index at ``index_url`` may send us to the sitemap ``url`` (the host rule only)."""
        return self.cross_host or _host(url) in (_host(index_url), owner)


def _host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def host_of_url(url: str) -> str:
    """The lower-case host name of ``url`` (``""`` when it has none)."""
    return _host(url)


def seed_lines(lines: Iterable[str]) -> Iterator[str]:
    """The non-blank, non-comment lines of a ``-sitemapUrls`` file, stripped."""
    for line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            yield text


def read_seed_dir(place: Place) -> list[str]:
    """Every seed line of the files of ``place`` (a file, or a directory's non-hidden files, sorted)."""
    files = [place] if place.is_file() else [place / name for name in sorted(place.child_names())
                                             if not name.startswith((".", "_"))]
    out: list[str] = []
    for file in files:
        if file.is_file():
            out.extend(seed_lines(file.read_bytes().decode("utf-8", errors="replace").splitlines()))
    return out


def is_url(text: str) -> bool:
    """True for a URL line (``scheme://…`` or ``file:/…``), False for a host name."""
    return "://" in text or text.startswith("file:/")


def table_origins(version: TableVersion) -> list[str]:
    """The distinct ``scheme://host[:port]`` of the ``url`` column of a table version, sorted."""
    origins: set[str] = set()
    for batch in version.iter_batches(columns=["url"]):
        found = pc.struct_field(pc.extract_regex(batch.column("url"), ORIGIN_PATTERN), [0])
        origins.update(o for o in pc.unique(found.drop_null() if isinstance(found, pa.Array) else found).to_pylist()
                       if o)
    return sorted(origins)


def table_hosts(version: TableVersion) -> list[str]:
    """The distinct values of the ``host`` column of a table version (a hostdb), sorted."""
    hosts: set[str] = set()
    for batch in version.iter_batches(columns=["host"]):
        hosts.update(h for h in pc.unique(batch.column("host")).to_pylist() if h)
    return sorted(hosts)
