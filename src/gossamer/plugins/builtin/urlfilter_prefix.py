"""``urlfilter-prefix``: accepts only URLs starting with one of the listed prefixes (Nutch's PrefixURLFilter).

File format (``prefix-urlfilter.txt``, property ``urlfilter.prefix.file``; inline
rules in ``urlfilter.prefix.rules`` win when non-empty): one URL prefix per
line, taken literally and untrimmed; empty lines and lines starting with ``#``
or a space are skipped.  A URL is accepted when some prefix is a prefix of it
(case-sensitive), rejected otherwise — an empty list rejects every URL.
Nutch ships no default file, and neither does Gossamer: without one the
plugin is not configured and leaves the chain.
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.rulefiles import RuleText, load_rules


class PrefixURLFilter(URLFilter):
    """Accepts URLs that start with a listed prefix."""

    def __init__(self, source: RuleText) -> None:
        self.prefixes = tuple(dict.fromkeys(
            line for _, line in source.lines() if line and line[0] not in " \n#"))

    def filter(self, url: str) -> str | None:
        """Return ``url`` when it starts with a listed prefix, else ``None``."""
        return url if url.startswith(self.prefixes) else None


def _build(settings: Settings) -> PrefixURLFilter:
    return PrefixURLFilter(load_rules(settings, "urlfilter.prefix.file", "urlfilter.prefix.rules"))


PLUGIN = PluginInfo(
    id="urlfilter-prefix",
    point="URLFilter",
    factory=_build,
    description="Accept only URLs starting with a prefix listed in prefix-urlfilter.txt",
    aliases=("org.apache.nutch.urlfilter.prefix.PrefixURLFilter",),
)
