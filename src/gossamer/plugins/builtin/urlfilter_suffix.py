"""``urlfilter-suffix``: accepts or rejects URLs by literal suffix (Nutch's SuffixURLFilter).

File format (``suffix-urlfilter.txt``, property ``urlfilter.suffix.file``; inline
rules in ``urlfilter.suffix.rules`` win when non-empty), one entry per line:

* a line starting with ``+`` or ``-`` sets the mode: ``-`` (the default) accepts
  only URLs ending with a listed suffix, ``+`` accepts everything *except* them.
  The letters ``I`` (case-insensitive matching) and ``P`` (match the URL path
  only, without query and fragment) anywhere on such a line switch those options
  on for the whole file, e.g. ``+I``, ``+P``, ``-IP``;
* empty lines and lines starting with ``#`` or a space are skipped;
* every other line is a literal suffix (no regex, untrimmed), e.g. ``.gif``.

With ``P`` a URL that cannot be parsed is matched as a whole (Nutch: "don't care").
Gossamer ships Nutch's template (``+I``, ``+P`` and a list of media, archive and
binary suffixes).
"""

from __future__ import annotations

from gossamer.core import Settings, split_url
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.rulefiles import RuleText, load_rules


class SuffixURLFilter(URLFilter):
    """Suffix allow list (mode ``-``) or deny list (mode ``+``), optionally case-insensitive / path-only."""

    def __init__(self, source: RuleText) -> None:
        self.mode_accept = False
        self.ignore_case = False
        self.path_only = False
        suffixes: list[str] = []
        for _, line in source.lines():
            if not line or line[0] in " \n#":
                continue
            if line[0] in "+-":
                self.mode_accept = line[0] == "+"
                self.path_only |= "P" in line
                self.ignore_case |= "I" in line
            else:
                suffixes.append(line)
        if self.ignore_case:
            suffixes = [s.lower() for s in suffixes]
        self.suffixes = tuple(dict.fromkeys(suffixes))

    def filter(self, url: str) -> str | None:
        """Apply the mode to whether ``url`` (or its path) ends with a listed suffix."""
        subject = url.lower() if self.ignore_case else url
        if self.path_only:
            parts = split_url(subject)
            if parts is not None:
                subject = parts.path
        listed = subject.endswith(self.suffixes)
        return url if listed != self.mode_accept else None


def _build(settings: Settings) -> SuffixURLFilter:
    return SuffixURLFilter(load_rules(settings, "urlfilter.suffix.file", "urlfilter.suffix.rules"))


PLUGIN = PluginInfo(
    id="urlfilter-suffix",
    point="URLFilter",
    factory=_build,
    description="Accept or reject URLs by the literal suffixes of suffix-urlfilter.txt",
    aliases=("org.apache.nutch.urlfilter.suffix.SuffixURLFilter",),
)
