"""``urlfilter-domaindenylist``: rejects URLs of listed hosts, domains or public suffixes.

Nutch's DomainDenylistURLFilter (formerly ``urlfilter-domainblacklist``).  The
file (``domaindenylist-urlfilter.txt``, property ``urlfilter.domaindenylist.file``;
inline rules in ``urlfilter.domaindenylist.rules`` win when non-empty) has the
format of ``domain-urlfilter.txt`` (see :mod:`gossamer.plugins.builtin.urlfilter_domain`):
a URL whose public suffix, registered domain or host is listed is rejected,
every other URL accepted.  A malformed URL is rejected (Nutch's behaviour, in
spite of its comment saying otherwise).  Gossamer ships Nutch's empty template.
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.domains import read_domain_list, url_listed
from gossamer.plugins.support.rulefiles import RuleText, load_rules


class DomainDenylistURLFilter(URLFilter):
    """Deny list of public suffixes, registered domains and hosts."""

    def __init__(self, source: RuleText) -> None:
        self.entries = read_domain_list(source.lines())

    def filter(self, url: str) -> str | None:
        """Return ``None`` when the suffix, domain or host of ``url`` is listed (or it is malformed)."""
        return url if url_listed(url, self.entries) is False else None


def _build(settings: Settings) -> DomainDenylistURLFilter:
    return DomainDenylistURLFilter(
        load_rules(settings, "urlfilter.domaindenylist.file", "urlfilter.domaindenylist.rules"))


PLUGIN = PluginInfo(
    id="urlfilter-domaindenylist",
    point="URLFilter",
    factory=_build,
    description="Reject URLs whose host, domain or public suffix is listed in domaindenylist-urlfilter.txt",
    aliases=("org.apache.nutch.urlfilter.domaindenylist.DomainDenylistURLFilter",),
)
