"""``urlfilter-fast``: per host / per domain deny rules, looked up by host name (Nutch's FastURLFilter).

File format (``fast-urlfilter.txt``, property ``urlfilter.fast.file``); ``#``
starts a comment reaching to the end of the line, lines are trimmed::

    Host www.example.org          # rules for exactly this host name
      DenyPath /path/to/be/excluded
    Domain example.com            # rules for example.com and every subdomain
      DenyPath .*                 # (".*" or ".?" alone: deny everything)
    Domain example.org
      DenyPathQuery /resource/.*?action=exclude
    Domain .                      # global rules, applied to every URL
      DenyPath (/[^/]+)/[^/]+\\1/[^/]+\\1/

``DenyPath`` regexes are *found* (Java ``Matcher.find``) in the URL path,
``DenyPathQuery`` ones in path + ``?query``.  For ``www.example.com`` the rules
are tried in this order: ``Host www.example.com``, ``Domain www.example.com``,
``Domain example.com``, ``Domain com``, ``Domain .``; the first matching rule
rejects the URL, and a URL no rule matches is accepted.  Host names are compared
as written in the URL (normalize URLs first).  A URL that cannot be parsed is
rejected.  Lines before the first ``Host``/``Domain`` line are ignored; a rule
line that is neither ``DenyPath`` nor ``DenyPathQuery``, or whose regex does not
compile, is skipped with a logged warning (as Nutch does).

Length limits (``-1`` = none): ``urlfilter.fast.url.max.length`` (whole URL),
``urlfilter.fast.url.path.max.length`` (path), ``urlfilter.fast.url.query.max.length``
(query, when there is one).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable

from gossamer.core import Settings, UrlParts, split_url
from gossamer.plugins.api import URLFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.javaregex import JavaRegexError, compile_java
from gossamer.plugins.support.rulefiles import RuleText, load_rules

Rule = Callable[[UrlParts], bool]
_CATCH_ALL = re.compile(r"\s*DenyPath(?:Query)?\s+\.[*?]\s*")


def _deny_all(parts: UrlParts) -> bool:
    return True


def _make_rule(kind: str, regex: str) -> Rule:
    search = compile_java(regex).search
    if kind == "DenyPathQuery":
        return lambda parts: search(parts.file) is not None
    return lambda parts: search(parts.path) is not None


class FastURLFilter(URLFilter):
    """Deny rules grouped by host name and by domain suffix (see the module docstring)."""

    def __init__(self, source: RuleText, max_length: int = -1, max_path: int = -1,
                 max_query: int = -1) -> None:
        self.max_length, self.max_path, self.max_query = max_length, max_path, max_query
        self.host_rules: dict[str, list[Rule]] = defaultdict(list)
        self.domain_rules: dict[str, list[Rule]] = defaultdict(list)
        self._read(source)
        self.host_rules, self.domain_rules = dict(self.host_rules), dict(self.domain_rules)
        self._global = self.domain_rules.get(".", [])

    def _read(self, source: RuleText) -> None:
        current: list[Rule] | None = None
        for lineno, raw in source.lines():
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith(("Host", "Domain")):
                fields = line.split()
                if len(fields) < 2:
                    raise source.error(lineno, f"{fields[0]} without a name: {raw!r}")
                table = self.host_rules if line.startswith("Host") else self.domain_rules
                current = table[fields[1]]
                continue
            if current is None:
                continue
            if _CATCH_ALL.fullmatch(line):
                current.append(_deny_all)
                continue
            kind = "DenyPathQuery" if line.startswith("DenyPathQuery") else \
                "DenyPath" if line.startswith("DenyPath") else None
            fields = line.split()
            if kind is None or len(fields) < 2:
                source.warn(lineno, f"not a DenyPath/DenyPathQuery rule, skipped: {raw!r}")
                continue
            try:
                current.append(_make_rule(kind, fields[1]))
            except JavaRegexError as exc:
                source.warn(lineno, f"rule skipped: {exc}")

    def filter(self, url: str) -> str | None:
        """``None`` when a length limit is exceeded, the URL is malformed or a deny rule matches."""
        if 0 <= self.max_length < len(url):
            return None
        parts = split_url(url)
        if parts is None:
            return None
        if 0 <= self.max_path < len(parts.path):
            return None
        if parts.query is not None and 0 <= self.max_query < len(parts.query):
            return None
        host = parts.host
        for rule in self.host_rules.get(host, ()):
            if rule(parts):
                return None
        suffix = host
        while True:
            for rule in self.domain_rules.get(suffix, ()):
                if rule(parts):
                    return None
            dot = suffix.find(".")
            if dot < 0:
                break
            suffix = suffix[dot + 1:]
        for rule in self._global:
            if rule(parts):
                return None
        return url


def _build(settings: Settings) -> FastURLFilter:
    return FastURLFilter(
        load_rules(settings, "urlfilter.fast.file"),
        settings.get_int("urlfilter.fast.url.max.length"),
        settings.get_int("urlfilter.fast.url.path.max.length"),
        settings.get_int("urlfilter.fast.url.query.max.length"),
    )


PLUGIN = PluginInfo(
    id="urlfilter-fast",
    point="URLFilter",
    factory=_build,
    description="Reject URLs by DenyPath/DenyPathQuery regexes grouped per host and domain (fast-urlfilter.txt)",
    aliases=("org.apache.nutch.urlfilter.fast.FastURLFilter",),
)
