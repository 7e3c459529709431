"""Internal and external links: Nutch's ``db.ignore.*`` decision for outlinks (and redirects).

Nutch decides in ``ParseOutputFormat.filterNormalize`` (outlinks) and the
fetcher (redirects, when ``db.ignore.also.redirects``), before normalizing and
filtering the target:

1. a link to the page itself (``to_url == from_url``, compared as strings) is dropped;
2. when neither ``db.ignore.internal.links`` nor ``db.ignore.external.links`` is
   set, every other link is kept;
3. otherwise the *origin* of both URLs is compared: the lower-cased host
   (``db.ignore.external.links.mode`` = ``byHost``, the default, and any value
   other than ``byDomain``) or the registered domain (``byDomain``, any case).
   A target that is not a valid URL is dropped;
4. ``db.ignore.external.links``: a link to another origin is dropped unless the
   URL exemption filters exempt it — every active exemption filter must exempt
   it, and there must be at least one (Nutch's ``URLExemptionFilters``);
5. ``db.ignore.internal.links``: a link to the same origin is dropped.

A source URL that cannot be parsed has no origin: every link from it counts as
external.  Use :class:`LinkScope` in loops (it reads the settings once and
caches the source's origin); :func:`keep_link` is the one-off form.
"""

from __future__ import annotations

from collections.abc import Sequence

from gossamer.core import Settings, domain_of, url_host
from gossamer.plugins.api import URLExemptionFilter

BY_HOST = "byHost"
BY_DOMAIN = "byDomain"


def _by_domain(mode: str) -> bool:
    return mode.lower() == BY_DOMAIN.lower()


def link_origin(url: str, mode: str) -> str | None:
    """Host (``byHost``) or registered domain (``byDomain``) of ``url``; ``None`` if malformed."""
    host = url_host(url)
    if host is None:
        return None
    return domain_of(host) if _by_domain(mode) else host


def is_internal(from_url: str, to_url: str, mode: str = BY_HOST) -> bool:
    """Whether both URLs have the same origin under ``mode``; a malformed URL is never internal."""
    origin = link_origin(from_url, mode)
    return origin is not None and origin == link_origin(to_url, mode)


def is_exempted(from_url: str, to_url: str, filters: Sequence[URLExemptionFilter]) -> bool:
    """Nutch's ``URLExemptionFilters.isExempted``: at least one filter, and every filter exempts."""
    return bool(filters) and all(f.exempt(from_url, to_url) for f in filters)


class LinkScope:
    """The ``db.ignore.*`` settings and exemption filters, applied by :meth:`keep`."""

    def __init__(self, settings: Settings, exemption_filters: Sequence[URLExemptionFilter] = ()) -> None:
        self.ignore_internal = settings.get_bool("db.ignore.internal.links")
        self.ignore_external = settings.get_bool("db.ignore.external.links")
        self.mode = BY_DOMAIN if _by_domain(settings.get_str("db.ignore.external.links.mode")) else BY_HOST
        self.exemption_filters = tuple(exemption_filters)
        self._last_from: str | None = None
        self._last_origin: str | None = None

    def _origin_of_source(self, from_url: str) -> str | None:
        if from_url != self._last_from:
            self._last_from, self._last_origin = from_url, link_origin(from_url, self.mode)
        return self._last_origin

    def keep(self, from_url: str, to_url: str) -> bool:
        """True to keep the link ``from_url`` → ``to_url`` (see the module docstring)."""
        if from_url == to_url:
            return False
        if not (self.ignore_internal or self.ignore_external):
            return True
        target = link_origin(to_url, self.mode)
        if target is None:
            return False
        source = self._origin_of_source(from_url)
        internal = source is not None and source == target
        if self.ignore_external and not internal:
            return is_exempted(from_url, to_url, self.exemption_filters)
        return not (self.ignore_internal and internal)


def keep_link(from_url: str, to_url: str, settings: Settings,
              exemption_filters: Sequence[URLExemptionFilter] = ()) -> bool:
    """One-off form of :meth:`LinkScope.keep`."""
    return LinkScope(settings, exemption_filters).keep(from_url, to_url)
