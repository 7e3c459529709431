"""``urlfilter-regex``: Nutch's RegexURLFilter, reading ``regex-urlfilter.txt`` unchanged.

Rules come from the property ``urlfilter.regex.rules`` when it is non-empty
(Nutch: inline rules override the file), else from the file named by
``urlfilter.regex.file`` (default ``regex-urlfilter.txt``: the crawl's
configuration directory, then Gossamer's default copy of Nutch's template).
The format and its semantics are described in
:mod:`gossamer.plugins.support.regexrules`; a bad line raises
:class:`~gossamer.plugins.support.rulefiles.RuleFileError` naming the line.
"""

from __future__ import annotations

import pyarrow as pa

from gossamer.core import Settings
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.regexrules import RegexRule, RegexRuleSet, parse_rules
from gossamer.plugins.support.rulefiles import RuleText, load_rules


class RegexURLFilter(URLFilter):
    """Accepts a URL when the first rule matching it is a ``+`` rule; rejects it otherwise."""

    def __init__(self, source: RuleText, fast: bool = True) -> None:
        self.source = source
        self.rules = RegexRuleSet(parse_rules(source, fast))
        self._decide = self.rules.decide

    def filter(self, url: str) -> str | None:
        """Return ``url`` when accepted, ``None`` when rejected (also when no rule matches)."""
        return url if self._decide(url) else None

    def accepted_mask(self, urls: pa.StringArray) -> pa.BooleanArray | None:
        """True where the rules certainly accept the URL (:meth:`RegexRuleSet.accepted_mask`)."""
        return self.rules.accepted_mask(urls)

    def explain(self, url: str) -> RegexRule | None:
        """The rule deciding ``url`` (``None``: no rule matched, so it is rejected)."""
        return self.rules.deciding_rule(url)


def _build(settings: Settings) -> RegexURLFilter:
    return RegexURLFilter(load_rules(settings, "urlfilter.regex.file", "urlfilter.regex.rules"))


PLUGIN = PluginInfo(
    id="urlfilter-regex",
    point="URLFilter",
    factory=_build,
    description="Accept/reject URLs by the +/- Java regex rules of regex-urlfilter.txt (first match decides)",
    aliases=("org.apache.nutch.urlfilter.regex.RegexURLFilter",),
)
