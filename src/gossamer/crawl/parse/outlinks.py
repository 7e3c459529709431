"""Which outlinks of a page are kept, and as which URLs: Nutch's ``ParseOutputFormat.filterNormalize``.

For each outlink the parser found, in document order, until
``db.max.outlinks.per.page`` links are kept (``<0`` = all):

1. a link to the page itself (same URL string) is dropped;
2. a target longer than ``db.max.outlink.length`` characters is dropped;
3. ``db.ignore.internal.links`` / ``db.ignore.external.links`` (with
   ``db.ignore.external.links.mode`` and the URL exemption filters) decide on the
   target as found (:mod:`gossamer.plugins.support.linkscope`);
4. the URL normalizers (scope ``outlink``, when ``parse.normalize.urls``) and URL
   filters (when ``parse.filter.urls``) run; a malformed or rejected URL is dropped;
5. a target that normalizes to the page itself, or to a URL already kept for this
   page, is dropped (Nutch keeps such duplicates; one link per target is what the
   crawldb and the link scores need).

Steps 2 and 4 depend on the URL only, so their result is remembered per process, with
the target's origin for step 3 (``parser.outlink.cache.size`` entries; the cache is
emptied when full): the
navigation links that every page of a site repeats are normalized and filtered
once.  The entries of one origin share one origin string, and a page's own origin is
worked out afresh (a page is parsed once, so remembering it by page URL only cost memory:
~20 MB per fetch process at 5,000 hosts).  A meta-refresh target goes through the same steps with the ``fetcher``
normalizer scope, the ignore rules applying only with ``db.ignore.also.redirects``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from gossamer.core import Outlink, OutlinkList, Settings
from gossamer.crawl.parse.outlink_keep import IGNORE_EXTERNAL, IGNORE_INTERNAL, Scope, keep_links
from gossamer.plugins import PluginRepository, URLChain, URLExemptionFilter
from gossamer.plugins.support import LinkScope, is_exempted, link_origin

_MISSING = object()


def _exempted(filters: Sequence[URLExemptionFilter], from_url: str, to_url: str) -> bool:
    return is_exempted(from_url, to_url, filters)


class OutlinkFilter:
    """Normalizes, filters, scopes, deduplicates and caps a page's outlinks (see the module docstring)."""

    def __init__(self, settings: Settings, repository: PluginRepository, native: bool = True) -> None:
        normalize = settings.get_bool("parse.normalize.urls")
        filters = settings.get_bool("parse.filter.urls")
        self.chain = URLChain(repository, "outlink", normalize, filters)
        self.redirect_chain = URLChain(repository, "fetcher", normalize, filters)
        exemptions: Sequence[URLExemptionFilter] = repository.chain(URLExemptionFilter) if filters else ()
        self.scope = LinkScope(settings, exemptions)
        self.scoped = self.scope.ignore_internal or self.scope.ignore_external
        self.also_redirects = settings.get_bool("db.ignore.also.redirects")
        self.max_length = settings.get_int("db.max.outlink.length")
        limit = settings.get_int("db.max.outlinks.per.page")
        self.max_outlinks = limit if limit >= 0 else 1 << 62
        self.cache_size = max(0, settings.get_int("parser.outlink.cache.size"))
        self._outlink_memo: dict[str, tuple[str | None, str | None]] = {}
        self._redirect_memo: dict[str, str | None] = {}
        self._origin_names: dict[str, str] = {}
        mode = (IGNORE_EXTERNAL if self.scope.ignore_external else 0) | (
            IGNORE_INTERNAL if self.scope.ignore_internal else 0)
        exemptions = self.scope.exemption_filters
        self._keep_scope = Scope(mode, partial(_exempted, exemptions) if exemptions else None)
        self.native = native
        """Whether :meth:`outlinks` may use the C walk (:mod:`.outlink_keep`; tests compare both)."""

    def _normalized(self, url: str, chain: URLChain) -> str | None:
        """``url`` after the length limit, normalizers and filters of ``chain`` (``None``: dropped)."""
        if 0 <= self.max_length < len(url):
            return None
        try:
            return chain.filter(chain.normalize(url)) or None
        except ValueError:
            return None

    def _remember(self, memo: dict[str, Any], key: str, value: Any) -> None:
        if len(memo) >= self.cache_size:
            memo.clear()
        memo[key] = value

    def _process(self, url: str, chain: URLChain, memo: dict[str, str | None]) -> str | None:
        found = memo.get(url, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[return-value]
        result = self._normalized(url, chain)
        self._remember(memo, url, result)
        return result

    def _origin(self, url: str) -> str | None:
        """``url``'s origin (host or domain), as the one string object this filter keeps for it."""
        origin = link_origin(url, self.scope.mode)
        if origin is None:
            return None
        names = self._origin_names
        found = names.get(origin)
        if found is None:
            self._remember(names, origin, origin)
            found = origin
        return found

    def _in_scope(self, from_url: str, source: str | None, to_url: str, target: str | None) -> bool:
        """Whether the ``db.ignore.*`` rules keep ``to_url`` (origin ``target``) linked from ``from_url``."""
        if target is None:
            return False
        internal = source is not None and source == target
        if self.scope.ignore_external and not internal:
            return is_exempted(from_url, to_url, self.scope.exemption_filters)
        return not (self.scope.ignore_internal and internal)

    def _outlink_entry(self, raw: str) -> tuple[str | None, str | None]:
        """``(processed URL or None, origin of raw when scoped and kept)``, remembered per process."""
        url = self._normalized(raw, self.chain)
        entry = (url, self._origin(raw) if url is not None and self.scoped else None)
        self._remember(self._outlink_memo, raw, entry)
        return entry

    def outlinks(self, from_url: str, links: Sequence[Outlink]) -> OutlinkList:
        """The kept outlinks of ``from_url``, with normalized URLs, in order (as columns)."""
        limit = self.max_outlinks
        if limit == 0 or not links:
            return OutlinkList()
        found = OutlinkList.of(links)
        anchors, metadata = found.anchors, found.metadata
        source = self._origin(from_url) if self.scoped else None
        kept_urls, kept = keep_links(found.to_urls, self._outlink_memo, self._outlink_entry, from_url, source,
                                     self._keep_scope, limit, self.native)
        if len(kept) == len(anchors):  # every link kept: copies of the columns, not a list per index
            return OutlinkList(kept_urls, anchors[:], None if metadata is None else metadata[:])
        kept_metadata = None if metadata is None else [metadata[i] for i in kept]
        return OutlinkList(kept_urls, [anchors[i] for i in kept], kept_metadata)

    def redirect(self, from_url: str, target: str) -> str | None:
        """The processed meta-refresh target of ``from_url``, or ``None`` when it is dropped."""
        if not target or target == from_url:
            return None
        if self.scoped and self.also_redirects:
            source = self._origin(from_url)
            if not self._in_scope(from_url, source, target, self._origin(target)):
                return None
        url = self._process(target, self.redirect_chain, self._redirect_memo)
        return None if url is None or url == from_url else url
