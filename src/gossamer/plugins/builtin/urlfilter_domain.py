"""``urlfilter-domain``: accepts only URLs of listed hosts, domains or public suffixes (Nutch's DomainURLFilter).

File format (``domain-urlfilter.txt``, property ``urlfilter.domain.file``; inline
rules in ``urlfilter.domain.rules`` win when non-empty): one entry per line,
trimmed and lower-cased; blank lines and lines starting with ``#`` are skipped.
An entry is a public suffix (``com``, ``co.uk``: every host under it), a
registered domain (``apache.org``: it and all its subdomains) or a host name
(``www.apache.org``: that host only).  A URL is accepted when its public suffix,
registered domain or host is listed (see :mod:`gossamer.plugins.support.domains`);
a malformed URL is rejected.  Nutch ships no default list, nor does Gossamer:
without one the plugin is not configured and leaves the chain.
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.domains import read_domain_list, url_listed
from gossamer.plugins.support.rulefiles import RuleText, load_rules


class DomainURLFilter(URLFilter):
    """Allow list of public suffixes, registered domains and hosts."""

    def __init__(self, source: RuleText) -> None:
        self.entries = read_domain_list(source.lines())

    def filter(self, url: str) -> str | None:
        """Return ``url`` when its suffix, domain or host is listed; ``None`` otherwise."""
        return url if url_listed(url, self.entries) else None


def _build(settings: Settings) -> DomainURLFilter:
    return DomainURLFilter(load_rules(settings, "urlfilter.domain.file", "urlfilter.domain.rules"))


PLUGIN = PluginInfo(
    id="urlfilter-domain",
    point="URLFilter",
    factory=_build,
    description="Accept only URLs whose host, domain or public suffix is listed in domain-urlfilter.txt",
    aliases=("org.apache.nutch.urlfilter.domain.DomainURLFilter",),
)
