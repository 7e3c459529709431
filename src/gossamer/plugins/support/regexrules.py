"""Nutch's ``regex-urlfilter.txt`` rule format (``RegexURLFilterBase``): parser and matcher.

Format, one rule per line:

* ``+regex`` accepts, ``-regex`` rejects a URL in which the Java regex is
  *found* (``Matcher.find``, anywhere in the URL).  The regex is everything after
  the sign, untrimmed.
* empty lines and lines starting with ``#``, a space or ``\\n`` are skipped;
* ``> host-or-domain`` (value trimmed) opens a block: the rules up to the next
  ``<`` line apply only to URLs whose lower-cased host, or whose registered
  domain (``URLUtil.getDomainName``), equals the value exactly;
* any other first character is an error naming the line (Nutch throws too).

Rules are tried in order; the first that applies and matches decides; when none
matches, the URL is rejected.

Speed: a few rule shapes of Nutch's default files are evaluated without the
regex engine, by a predicate proven equal to the compiled regex (the
randomized test in ``tests/test_urlfilters.py`` checks this):

* ``^(?:a|b|c):`` — a ``str.startswith`` on a tuple;
* ``(?i)\\.(?:ext|ext2)$`` and ``\\.(?:ext|ext2)$`` — the text after the last dot,
  looked up in a set (``$`` also matches before one final ``\\n``, as in ``re``);
* ``.*(/[^/]+)/[^/]+\\1/[^/]+\\1/`` (repeated path segments) — a scan of the
  ``/``-separated segments for ``x, y, x, z, x`` followed by a ``/``.

Every other rule runs as the compiled regex (:func:`compile_java`).

Columns of URLs: :meth:`RegexRuleSet.accepted_mask` screens them in one RE2 pass, an RE2
pattern per rule found wherever the rule's regex is (:func:`rule_screen`): the rules above
the first ``+`` rule that surely matches (``+.``, ``+.*``) cannot reject a URL in which none is
found.  URLs where one is found are decided one by one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gossamer.core import domain_of, url_host
from gossamer.plugins.support.javaregex import JavaRegexError, compile_java
from gossamer.plugins.support.rulefiles import RuleText
from gossamer.plugins.support.urlscreen import LINE_TERMINATORS_ONLY, any_of, pattern_screen, re2_literal, screened

if TYPE_CHECKING:
    import pyarrow as pa

Matcher = Callable[[str], bool]

_PREFIX_ALTS = re.compile(r"\^\(\?:([A-Za-z0-9]+(?:\|[A-Za-z0-9]+)*)\):")
_SUFFIX_ALTS = re.compile(r"(\(\?i\))?\\\.\(\?:([A-Za-z0-9]+(?:\|[A-Za-z0-9]+)*)\)\$")
_REPEATED_SEGMENTS = ".*(/[^/]+)/[^/]+\\1/[^/]+\\1/"


@dataclass(frozen=True)
class RegexRule:
    """One rule: sign (accept?), the Java regex text, its matcher, an optional host/domain scope."""

    accept: bool
    regex: str
    match: Matcher
    scope: str | None = None
    lineno: int = 0


def fast_matcher(regex: str) -> Matcher | None:
    """A regex-free predicate equal to ``compile_java(regex).search`` for known shapes, else ``None``."""
    if m := _PREFIX_ALTS.fullmatch(regex):
        prefixes = tuple(f"{alt}:" for alt in m.group(1).split("|"))
        return lambda url: url.startswith(prefixes)
    if m := _SUFFIX_ALTS.fullmatch(regex):
        fold = m.group(1) is not None
        exts = frozenset(alt.lower() if fold else alt for alt in m.group(2).split("|"))
        return _suffix_matcher(exts, fold)
    if regex == _REPEATED_SEGMENTS:
        return _has_repeated_segments
    return None


def rule_screen(regex: str) -> str:
    """An RE2 pattern found in every string the rule regex is found in (``""``: in every string)."""
    if m := _PREFIX_ALTS.fullmatch(regex):
        return "^(?:" + "|".join(map(re2_literal, m.group(1).split("|"))) + "):"
    if m := _SUFFIX_ALTS.fullmatch(regex):
        body = "\\.(?:" + "|".join(map(re2_literal, m.group(2).split("|"))) + ")\\n?$"
        return f"(?i:{body})" if m.group(1) else body
    if regex == _REPEATED_SEGMENTS:
        return "(?:/[^/]+){5}/"  # "/x/y/x/z/x/" is five non-empty segments and a slash
    return pattern_screen(compile_java(regex)) or ""


def _accept_screens(rules: list[RegexRule]) -> list[str] | None:
    """Screens of the ``-`` rules above a ``+`` rule that matches every URL they are not found in.

    ``None`` when no such ``+`` rule is known (no URL is certainly accepted).
    """
    screens: list[str] = []
    for rule in rules:
        if rule.accept:
            if rule.regex in ("", ".*"):
                return screens
            return screens + [LINE_TERMINATORS_ONLY] if rule.regex == "." else None
        screens.append(rule_screen(rule.regex))
    return None


def _suffix_matcher(exts: frozenset[str], fold: bool) -> Matcher:
    def match(url: str) -> bool:
        dot = url.rfind(".")
        if dot < 0:
            return False
        tail = url[dot + 1:]
        if tail.endswith("\n"):
            tail = tail[:-1]
        if fold:
            if not tail.isascii():  # (?i) under re.ASCII folds ASCII letters only
                return False
            tail = tail.lower()
        return tail in exts

    return match


def _has_repeated_segments(url: str) -> bool:
    """True when ``/x/y/x/z/x/`` occurs: segments x, y, x, z, x (all non-empty) and a ``/`` after."""
    if url.count("/") < 6:
        return False
    segs = url.split("/")
    # segs[i] must follow a "/" (i >= 1) and segs[i + 4] must be followed by one (i + 4 < last index)
    for i in range(1, len(segs) - 5):
        x = segs[i]
        if x and segs[i + 2] == x and segs[i + 4] == x and segs[i + 1] and segs[i + 3]:
            return True
    return False


_LEADING_DOTSTAR = re.compile(r"^((?:\(\?[a-zA-Z]+\))?)\.\*(?![?+*{])")


def regex_alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of a regex (``a|b(c|d)`` → ``["a", "b(c|d)"]``).

    Escaped characters and character classes are skipped over; groups nest.
    """
    parts: list[str] = []
    depth, start, index, in_class = 0, 0, 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
        index += 1
    parts.append(pattern[start:])
    return [part.strip() for part in parts if part.strip()]


def search_equivalent(regex: str) -> str:
    """``regex`` without a leading (and trailing) unanchored ``.*``: the same find() verdict, linear time.

    ``.*X`` is found somewhere exactly when ``X`` is, but a backtracking engine
    retries the ``.*`` from every start position — quadratic on long URLs (e.g.
    Nutch's repeated-segment rule written slightly differently).
    """
    if len(regex_alternatives(regex)) > 1:
        return regex
    stripped = _LEADING_DOTSTAR.sub(r"\1", regex, count=1)
    if stripped.endswith(".*"):
        head = stripped[:-2]
        backslashes = len(head) - len(head.rstrip("\\"))
        if backslashes % 2 == 0 and head and not head.endswith(("(", "|", ")")):
            stripped = head
    return stripped if stripped.strip("^$") and not stripped.endswith("(?i)") else regex


def compile_rule_regex(regex: str, fast: bool = True) -> Matcher:
    """The matcher of one rule regex (``find`` semantics); :class:`JavaRegexError` if invalid."""
    pattern = compile_java(regex)
    if fast and (quick := fast_matcher(regex)) is not None:
        return quick
    if fast:
        pattern = compile_java(search_equivalent(regex))
    return pattern.search  # type: ignore[return-value]


def parse_rules(source: RuleText, fast: bool = True) -> list[RegexRule]:
    """Parse a rule file (see the module docstring); raises ``RuleFileError`` naming the line."""
    rules: list[RegexRule] = []
    scope: str | None = None
    for lineno, line in source.lines():
        if not line:
            continue
        first = line[0]
        if first in " \n#":
            continue
        if first == ">":
            scope = line[1:].strip()
            continue
        if first == "<":
            scope = None
            continue
        if first not in "+-":
            raise source.error(lineno, f"invalid first character {first!r} (expected +, -, #, >, < "
                                       f"or a space): {line!r}")
        regex = line[1:]
        try:
            matcher = compile_rule_regex(regex, fast)
        except JavaRegexError as exc:
            raise source.error(lineno, str(exc)) from None
        rules.append(RegexRule(first == "+", regex, matcher, scope, lineno))
    return rules


class RegexRuleSet:
    """An ordered rule list: :meth:`decide` returns the first deciding rule's verdict, else False."""

    def __init__(self, rules: list[RegexRule]) -> None:
        self.rules = rules
        self._scoped = any(rule.scope is not None for rule in rules)
        self._plain = [(rule.match, rule.accept) for rule in rules]
        self._screens = None if self._scoped else _accept_screens(rules)

    def decide(self, url: str) -> bool:
        """True when the URL is accepted (first matching rule is ``+``), False otherwise."""
        if not self._scoped:
            for match, accept in self._plain:
                if match(url):
                    return accept
            return False
        host = url_host(url)
        domain = domain_of(host) if host is not None else None
        for rule in self.rules:
            if rule.scope is not None and rule.scope != host and rule.scope != domain:
                continue
            if rule.match(url):
                return rule.accept
        return False

    def accepted_mask(self, urls: pa.StringArray) -> pa.BooleanArray | None:
        """True where :meth:`decide` certainly accepts (see the module docstring); ``None``: no shortcut.

        Host-scoped rule sets, and sets with no ``+.`` style rule, offer no shortcut.
        """
        if self._screens is None:
            return None
        trouble = any_of(self._screens) if self._screens else None
        return screened(urls, None, trouble, self.decide)

    def deciding_rule(self, url: str) -> RegexRule | None:
        """The rule that decides ``url`` (for checker tools explaining a verdict), or ``None``."""
        host = url_host(url) if self._scoped else None
        domain = domain_of(host) if host is not None else None
        for rule in self.rules:
            if rule.scope is not None and rule.scope != host and rule.scope != domain:
                continue
            if rule.match(url):
                return rule
        return None
