"""``urlnormalizer-regex``: Nutch's RegexURLNormalizer over ``regex-normalize.xml``.

The file keeps Nutch's format unchanged::

    <regex-normalize>
      <regex>
        <pattern>#.*?(\\?|&amp;|$)</pattern>      <!-- a Java regex -->
        <substitution>$1</substitution>          <!-- Java replaceAll replacement -->
      </regex>
    </regex-normalize>

Rules run in file order, each as Java's ``Matcher.replaceAll`` on the result of
the previous one.  Rules come from ``urlnormalizer.regex.rules`` (inline XML)
when set, else from the file ``urlnormalizer.regex.file``; for a scope,
``urlnormalizer.regex.file.<scope>`` names a file of its own, and a scope whose
file is unset, missing or empty uses the default rules (Nutch's fallback).
Rule sets are loaded once per scope and cached.

A rule whose pattern does not compile (or whose substitution names a group the
pattern lacks) is reported with :func:`warnings.warn` — file and rule number —
and skipped; the other rules load.  Each rule has a prefilter derived from its
pattern (:mod:`gossamer.plugins.support.regexprefilter`: required literals,
anchors) that skips the substitution on URLs the pattern cannot match —
exactly equivalent, since a rule that does not match leaves the URL unchanged.
"""

from __future__ import annotations

import re
import threading
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pyarrow as pa

from gossamer.core import Settings
from gossamer.plugins.api import PluginNotConfigured, URLNormalizer
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.conffiles import find_conf_file, read_conf_text
from gossamer.plugins.support.javaregex import compile_java, translate_replacement
from gossamer.plugins.support.regexprefilter import compile_prefilter, prefilter_expr
from gossamer.plugins.support.urlscreen import all_true, any_of, pattern_screen, screened

_GROUP_REF = re.compile(r"\\g<([^>]*)>")


class RegexRuleWarning(UserWarning):
    """A rule of a regex-normalize.xml file was skipped (bad pattern or substitution)."""


@dataclass(frozen=True)
class RegexRule:
    """One rule: compiled pattern, Python replacement template, and the Java originals."""

    pattern: re.Pattern[str]
    template: str
    java_pattern: str
    java_substitution: str


class RuleSet:
    """Ordered rules, each with an optional prefilter (a necessary condition for a match).

    When every rule has a prefilter, one combined check (any rule may match?)
    lets untouched URLs through with a single call; for a column of URLs, the RE2 form of one
    prefilter term per rule makes the same check in one pass (:meth:`unchanged_mask`).
    """

    def __init__(self, rules: list[RegexRule], origin: str) -> None:
        self.rules = rules
        self.origin = origin
        screens = [pattern_screen(rule.pattern) for rule in rules]
        self._trouble = any_of(screens) if None not in screens else ""  # type: ignore[arg-type]
        exprs = [prefilter_expr(rule.pattern) for rule in rules]
        self._steps = [(None if expr is None else compile_prefilter([expr]), rule.pattern.sub, rule.template)
                       for expr, rule in zip(exprs, rules, strict=True)]
        known = [expr for expr in exprs if expr is not None]
        self._any = compile_prefilter(known) if known and len(known) == len(exprs) else None

    def apply(self, url: str) -> str:
        """Run every rule in order (Java ``replaceAll`` semantics)."""
        if self._any is not None and not self._any(url):
            return url
        for may_match, sub, template in self._steps:
            if may_match is None or may_match(url):
                url = sub(template, url)
        return url

    def unchanged_mask(self, urls: pa.StringArray) -> pa.BooleanArray:
        """True where :meth:`apply` certainly returns the URL unchanged.

        One RE2 pass finds the URLs some rule may match; those are run through :meth:`apply`.
        """
        if not self.rules:
            return all_true(len(urls))
        return screened(urls, None, self._trouble, lambda url: self.apply(url) == url)


def _build_rule(java_pattern: str, java_sub: str) -> RegexRule:
    """Compile one rule; ``ValueError`` (incl. ``JavaRegexError``) when it is unusable."""
    pattern = compile_java(java_pattern)
    template = translate_replacement(java_sub, pattern.groups)
    for ref in _GROUP_REF.findall(template):
        if not ref.isdigit() and ref not in pattern.groupindex:
            raise ValueError(f"no group named {ref!r} in the pattern")
    return RegexRule(pattern, template, java_pattern, java_sub)


def parse_rules(text: str, origin: str) -> list[RegexRule]:
    """Rules of a regex-normalize.xml document, in order; bad rules are warned about and skipped.

    Raises ``ValueError`` when the XML itself does not parse.  As in Nutch, a rule
    needs a non-empty ``<pattern>`` and a ``<substitution>`` element (which may be
    empty); text is taken verbatim (not trimmed).
    """
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ValueError(f"{origin}: not valid XML: {exc}") from None
    if root.tag != "regex-normalize":
        warnings.warn(f"{origin}: top-level element is <{root.tag}>, not <regex-normalize>",
                      RegexRuleWarning, stacklevel=2)
    rules: list[RegexRule] = []
    for number, regex in enumerate((el for el in root if isinstance(el.tag, str)), start=1):
        java_pattern: str | None = None
        java_sub: str | None = None
        for field in regex:
            if not isinstance(field.tag, str):
                continue
            if field.tag == "pattern" and field.text:
                java_pattern = field.text
            if field.tag == "substitution" and field.text:
                java_sub = field.text
            if not field.text and len(field) == 0:
                java_sub = ""
        if java_pattern is None or java_sub is None:
            continue
        try:
            rules.append(_build_rule(java_pattern, java_sub))
        except (ValueError, re.error) as exc:
            warnings.warn(f"{origin}: rule {number} skipped ({java_pattern!r} -> {java_sub!r}): {exc}",
                          RegexRuleWarning, stacklevel=2)
    return rules


class RegexURLNormalizer(URLNormalizer):
    """Applies the rule set of a scope (see the module docstring); thread-safe."""

    def __init__(self, settings: Settings, default: RuleSet) -> None:
        self.settings = settings
        self.default = default
        self._scoped: dict[str, RuleSet] = {}
        self._lock = threading.Lock()

    def normalize(self, url: str, scope: str) -> str:
        """Return ``url`` rewritten by the scope's rules."""
        rules = self._scoped.get(scope)
        if rules is None:
            rules = self.rules_for(scope)
        return rules.apply(url)

    def unchanged_mask(self, urls: pa.StringArray, scope: str) -> pa.BooleanArray:
        """True where the scope's rules certainly leave the URL unchanged (see :meth:`RuleSet.unchanged_mask`)."""
        rules = self._scoped.get(scope)
        if rules is None:
            rules = self.rules_for(scope)
        return rules.unchanged_mask(urls)

    def rules_for(self, scope: str) -> RuleSet:
        """The (cached) rule set of ``scope``: its own file's rules, else the default rules."""
        with self._lock:
            if scope not in self._scoped:
                self._scoped[scope] = self._load_scope(scope)
            return self._scoped[scope]

    def _load_scope(self, scope: str) -> RuleSet:
        if not scope:
            return self.default
        name = self.settings.get_str(f"urlnormalizer.regex.file.{scope}")
        if not name:
            return self.default
        path = find_conf_file(self.settings, name)
        if path is None:
            warnings.warn(f"urlnormalizer.regex.file.{scope}={name!r}: no such file; using the default rules",
                          RegexRuleWarning, stacklevel=3)
            return self.default
        try:
            rules = parse_rules(path.read_text(encoding="utf-8"), str(path))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            warnings.warn(f"{path}: {exc}; using the default rules for scope {scope!r}",
                          RegexRuleWarning, stacklevel=3)
            return self.default
        return RuleSet(rules, str(path)) if rules else self.default


def _build(settings: Settings) -> RegexURLNormalizer:
    inline = settings.get_str("urlnormalizer.regex.rules")
    if inline.strip():
        text, origin = inline, "property urlnormalizer.regex.rules"
    else:
        text, path = read_conf_text(settings, "urlnormalizer.regex.file")
        origin = str(path)
    try:
        rules = parse_rules(text, origin)
    except ValueError as exc:
        raise PluginNotConfigured(str(exc)) from None
    return RegexURLNormalizer(settings, RuleSet(rules, origin))


PLUGIN = PluginInfo(
    id="urlnormalizer-regex",
    point="URLNormalizer",
    factory=_build,
    description="Regex substitutions from regex-normalize.xml (per-scope files)",
    aliases=("org.apache.nutch.net.urlnormalizer.regex.RegexURLNormalizer", "RegexURLNormalizer"),
)
