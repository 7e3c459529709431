"""``urlfilter-ignoreexempt``: exempts links from ``db.ignore.external.links`` (Nutch's ExemptionUrlFilter).

The rules file, named by ``db.ignore.external.exemptions.file`` (default
``db-ignore-external-exemptions.txt``), has the format of ``regex-urlfilter.txt``
(see :mod:`gossamer.plugins.support.regexrules`): a link is exempt when the
first rule matching its *target* URL is a ``+`` rule.  The source URL is not
looked at (as in Nutch).  Gossamer ships Nutch's default file, which has no
active rule, so nothing is exempt until rules are added.
"""

from __future__ import annotations

from gossamer.core import Settings
from gossamer.plugins.api import URLExemptionFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.regexrules import RegexRuleSet, parse_rules
from gossamer.plugins.support.rulefiles import RuleText, load_rules


class ExemptionURLFilter(URLExemptionFilter):
    """Exempts a link when the target URL is accepted by the exemption rules."""

    def __init__(self, source: RuleText) -> None:
        self.source = source
        self.rules = RegexRuleSet(parse_rules(source))

    def exempt(self, from_url: str, to_url: str) -> bool:
        """True when the first rule matching ``to_url`` is a ``+`` rule."""
        return self.rules.decide(to_url)


def _build(settings: Settings) -> ExemptionURLFilter:
    return ExemptionURLFilter(load_rules(settings, "db.ignore.external.exemptions.file"))


PLUGIN = PluginInfo(
    id="urlfilter-ignoreexempt",
    point="URLExemptionFilter",
    factory=_build,
    description="Exempt link targets matching +/- regex rules from db.ignore.external.links",
    aliases=("org.apache.nutch.urlfilter.ignoreexempt.ExemptionUrlFilter",),
)
