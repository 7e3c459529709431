"""robots.txt text -> the rules for one crawler (crawler-commons / RFC 9309 semantics).

This is the parsing half of :mod:`gossamer.crawl.robots.rules`; it knows nothing of
HTTP.  The semantics follow crawler-commons' ``SimpleRobotRulesParser`` as used
by Nutch (``tests/vectors/robots.json``); they are re-implemented here from the
documented behaviour, not translated:

* Bytes are UTF-8 (a UTF-8 / UTF-16LE / UTF-16BE byte-order mark is honoured).
  An HTML page (``text/html`` type or an ``<html>``/``<head>``/``<body>`` tag)
  without any ``user-agent:`` line allows everything; otherwise tags are stripped.
* Lines end at CR, LF, NEL, LS or PS; ``#`` starts a comment.  A directive is a
  known name (plus crawler-commons' typo spellings) followed by ``:`` or blanks.
* A group is a run of ``User-agent`` lines and the lines after them; it ends at
  the next ``User-agent`` line once an ``Allow``/``Disallow`` line (even an empty
  one) was read.  All groups naming one of the agents are merged; the ``*``
  groups apply only when no group names an agent.  Names match case-insensitively
  over the whole value, or by the value's leading product token when the value is
  not a plain token (``foo/1.2``, ``foo bar``).
* Empty ``Allow:``/``Disallow:`` values are ignored.
* ``Crawl-delay`` belongs to the ``User-agent`` lines directly above it (not to
  the rule group); the shortest value for a named agent wins, the ``*`` value is
  used only when no group names an agent.
* ``Sitemap`` lines count wherever they are, resolved against the robots.txt URL.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

_LINE_BREAKS = re.compile("[\n\r\u0085\u2028\u2029]+")
_HTML_TAG_PAGE = re.compile(r"<(html|head|body)\s*>", re.IGNORECASE)
_HAS_USER_AGENT = re.compile(r"user-agent:", re.IGNORECASE)
_HTML_TAG = re.compile(r"<[^>]+>")
_JAVA_BLANKS = "".join(chr(c) for c in range(33))
"""Characters Java's ``String.trim()`` removes (every code point <= U+0020)."""

_DIRECTIVES: dict[str, str] = {
    "user-agent": "agent", "useragent": "agent", "useg-agent": "agent", "ser-agent": "agent",
    "disallow": "disallow", "desallow": "disallow", "dissalow": "disallow", "dssalow": "disallow",
    "dsallow": "disallow", "allow": "allow", "crawl-delay": "delay", "crawl delay": "delay",
    "sitemap": "sitemap", "http": "http", "host": "other", "no-index": "other",
    "request-rate": "other", "visit-time": "other", "robot-version": "other", "comment": "other",
}
_DIRECTIVE_LINE = re.compile(
    "(" + "|".join(sorted(map(re.escape, _DIRECTIVES), key=len, reverse=True)) + r"|acap-[^: \t]+)"
    r"(?:[ \t]*:[ \t]*|[ \t]+)(.*)\Z",
    re.IGNORECASE | re.DOTALL,
)
_PRODUCT_TOKEN = re.compile(r"[a-zA-Z_-]+")

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_KEPT = _UNRESERVED | frozenset("!&'()+,;=:@/?")
_HEX = frozenset("0123456789abcdefABCDEF")
NEEDS_NORMALIZING = re.compile(r"[^A-Za-z0-9\-._~!&'()+,;=:@/?]")
"""A path without any of these characters is already in normalized form."""


def normalize_path(text: str, *, rule: bool) -> str:
    """Percent-encoding normal form used on both sides of a match.

    ``%XX`` of an unreserved character is decoded, any other ``%XX`` is kept with
    upper-case hex (so ``%2F``, ``%2A``, ``%24`` stay literal); non-ASCII and
    unsafe characters are UTF-8 percent-encoded.  In a URL (``rule=False``) ``*``
    and ``$`` are plain characters and become ``%2A``/``%24``; in a rule they are
    the wildcard and (only as the last character) the end anchor.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _KEPT:
            out.append(ch)
        elif ch == "%" and i + 2 < n and text[i + 1] in _HEX and text[i + 2] in _HEX:
            decoded = chr(int(text[i + 1:i + 3], 16))
            out.append(decoded if decoded in _UNRESERVED else "%" + text[i + 1:i + 3].upper())
            i += 3
            continue
        elif rule and (ch == "*" or (ch == "$" and i == n - 1)):
            out.append(ch)
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``Allow``/``Disallow`` path pattern, normalized; ``raw`` is as written."""

    pattern: str
    allow: bool
    raw: str

    @property
    def directive(self) -> str:
        """``Allow: /x`` / ``Disallow: /x`` as written in robots.txt."""
        return f"{'Allow' if self.allow else 'Disallow'}: {self.raw}"


@dataclass(frozen=True, slots=True)
class ParsedRobots:
    """What one robots.txt says to a crawler with the given agent names.

    ``rules`` are in match priority order (longer pattern first, Allow before
    Disallow at equal length).  ``group`` names the group(s) selected:
    ``user-agent: name[, name]``, ``user-agent: *`` or ``""`` (none: all allowed).
    ``crawl_delay`` is in seconds (None when not given).  ``html_without_rules``
    is True for an HTML page that is no robots.txt (everything allowed).
    """

    rules: tuple[Rule, ...]
    group: str
    crawl_delay: float | None
    sitemaps: tuple[str, ...]
    html_without_rules: bool = False


def decode_robots(content: bytes) -> str:
    """Text of a robots.txt body: BOM-selected UTF-8/UTF-16, else UTF-8 with replacement."""
    if content.startswith(b"\xef\xbb\xbf"):
        return content[3:].decode("utf-8", "replace")
    if content.startswith(b"\xff\xfe"):
        return content[2:].decode("utf-16-le", "replace")
    if content.startswith(b"\xfe\xff"):
        return content[2:].decode("utf-16-be", "replace")
    return content.decode("utf-8", "replace")


def parse_delay(value: str) -> float | None:
    """Crawl-delay value in seconds: ``5`` (32-bit integer) or ``0.5`` (decimal); else None."""
    try:
        if "." in value:
            seconds = float(value)
            return round(seconds * 1000.0) / 1000.0 if math.isfinite(seconds) else None
        number = int(value, 10)
    except ValueError:
        return None
    return float(number) if -2**31 <= number < 2**31 else None


def _agent_matches(value: str, agents: frozenset[str]) -> bool:
    if value in agents:
        return True
    if _PRODUCT_TOKEN.fullmatch(value):
        return False
    token = _PRODUCT_TOKEN.match(value)
    return token is not None and token.group() in agents


def _sitemap(value: str, base: str) -> str | None:
    try:
        url = urljoin(base, value) if base else value
        return url if urlsplit(url).hostname else None
    except ValueError:
        return None


def parse_rules(content: bytes, robots_url: str, agents: list[str],
                content_type: str | None = "text/plain") -> ParsedRobots:
    """Parse ``content`` for crawler ``agents`` (lower-case product tokens, never ``*``)."""
    text = decode_robots(content)
    strip_html = False
    if (content_type or "").lower().startswith("text/html") or _HTML_TAG_PAGE.search(text):
        if not _HAS_USER_AGENT.search(text):
            return ParsedRobots((), "", None, (), html_without_rules=True)
        strip_html = True
    targets = frozenset(a.lower() for a in agents if a and a != "*")
    real: list[Rule] = []
    wild: list[Rule] = []
    real_names: list[str] = []
    real_delays: list[float] = []
    wild_delays: list[float] = []
    sitemaps: dict[str, None] = {}
    group_real = group_wild = group_has_rules = wild_seen = False
    run_real = run_wild = previous_was_agent = False
    for line in _LINE_BREAKS.split(text):
        if strip_html:
            line = _HTML_TAG.sub("", line)
        line = line.split("#", 1)[0].strip(_JAVA_BLANKS)
        if not line:
            continue
        found = _DIRECTIVE_LINE.match(line)
        kind = _DIRECTIVES.get(found.group(1).lower(), "other") if found else "unknown"
        value = found.group(2).strip(_JAVA_BLANKS) if found else ""
        if kind == "agent":
            if group_has_rules:
                group_real = group_wild = group_has_rules = False
            if not previous_was_agent:
                run_real = run_wild = False
            previous_was_agent = True
            name = value.lower()
            if name == "*":
                group_wild = run_wild = wild_seen = True
            elif name and _agent_matches(name, targets):
                group_real = run_real = True
                if name not in real_names:
                    real_names.append(name)
            continue
        previous_was_agent = False
        if kind in ("allow", "disallow"):
            group_has_rules = True
            if value and (group_real or group_wild):
                rule = Rule(normalize_path(value, rule=True), kind == "allow", value)
                (real if group_real else wild).append(rule)
                if group_real and group_wild:
                    wild.append(rule)
        elif kind == "delay":
            delay = parse_delay(value) if (run_real or run_wild) else None
            if delay is not None:
                (real_delays if run_real else wild_delays).append(delay)
        elif kind == "sitemap" or (kind == "http" and "sitemap" in value):
            url = _sitemap(value if kind == "sitemap" else "http:" + value, robots_url)
            if url:
                sitemaps[url] = None
    if real_names:
        chosen, group = real, "user-agent: " + ", ".join(real_names)
        delays = real_delays
    elif wild_seen:
        chosen, group, delays = wild, "user-agent: *", wild_delays
    else:
        chosen, group, delays = [], "", []
    ordered = sorted(dict.fromkeys(chosen), key=lambda r: (-len(r.pattern), not r.allow))
    return ParsedRobots(tuple(ordered), group, min(delays) if delays else None, tuple(sitemaps))

