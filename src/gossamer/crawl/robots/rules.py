"""robots.txt rules with Nutch's semantics: parsing, HTTP status meaning, crawl-delay.

* :func:`parse_robots` turns a robots.txt body into immutable :class:`RobotRules`
  for Nutch's agent list (:func:`robot_agents`); :meth:`RobotRules.check` says
  whether a URL may be fetched and *why* (:class:`RobotDecision`).
* :func:`rules_for_response` maps the HTTP outcome of fetching robots.txt to rules
  exactly as Nutch's ``HttpRobotRulesParser`` does (see ``docs/robots.md``).
* :func:`effective_delay` applies ``fetcher.max.crawl.delay`` /
  ``fetcher.min.crawl.delay`` to a robots Crawl-delay, as Nutch's fetcher does.
Fetching over HTTP and the cache per ``protocol:host:port`` (Nutch's key) live in
:mod:`gossamer.crawl.robots.fetching`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from gossamer.core import Settings
from gossamer.crawl.robots.parser import NEEDS_NORMALIZING, Rule, normalize_path, parse_rules

Mode = Literal["some", "all", "none"]
RFC9309_MIN_BYTES = 500 * 1024
"""RFC 9309 §2.5: crawlers must parse at least 500 KiB of a robots.txt."""
UNLIMITED_CAP_BYTES = 16 * 1024 * 1024
"""Safety cap on robots.txt bodies when ``http.content.limit`` is negative (unlimited)."""
DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}


@dataclass(frozen=True, slots=True)
class RobotDecision:
    """Whether a URL may be fetched and a one-line reason.

    ``defer`` is True when the answer is "not now" (robots.txt answered 5xx/429):
    the fetcher re-queues the URL instead of marking it ``ROBOTS_DENIED``.
    """

    allowed: bool
    reason: str
    defer: bool = False


def _pattern_regex(pattern: str) -> str:
    anchored = pattern.endswith("$")
    pieces = (pattern[:-1] if anchored else pattern).split("*")
    regex = re.escape(pieces[0])
    rest = pieces[1:]
    for index, piece in enumerate(rest):
        if not piece:
            continue
        if anchored and index == len(rest) - 1:
            regex += ".*" + re.escape(piece)   # the last piece must end the path: may backtrack
        else:
            regex += "(?>.*?" + re.escape(piece) + ")"  # leftmost occurrence is always best
    if anchored:
        regex += r"\Z" if not rest or rest[-1] else ".*\\Z"
    return regex


@dataclass(frozen=True)
class RuleMatcher:
    """Finds the deciding rule (the first in priority order that matches a path) quickly.

    Plain rules (no ``*`` or ``$``) are prefixes: a dict from pattern to its best
    rule, probed with the path's prefixes of the lengths that occur, longest
    first — cost independent of the number of rules.  Only wildcard rules go
    through one regex alternation.  The winner is the lowest priority index of both.
    """

    plain: dict[str, int]
    lengths: tuple[int, ...]
    wildcard: re.Pattern[str] | None
    wildcard_index: tuple[int, ...]

    def first_match(self, path: str) -> int | None:
        """Index (in priority order) of the deciding rule for ``path``, or ``None``."""
        best: int | None = None
        for length in self.lengths:
            if length <= len(path):
                index = self.plain.get(path[:length])
                if index is not None:
                    best = index if best is None else min(best, index)
        if self.wildcard is not None:
            found = self.wildcard.match(path)
            if found is not None:
                index = self.wildcard_index[found.lastindex - 1]  # type: ignore[operator]
                best = index if best is None else min(best, index)
        return best


def compile_rules(rules: tuple[Rule, ...]) -> RuleMatcher | None:
    """The matcher of rules given in priority order (the first that matches decides)."""
    if not rules:
        return None
    plain: dict[str, int] = {}
    wild: list[tuple[int, Rule]] = []
    for index, rule in enumerate(rules):
        if "*" in rule.pattern or rule.pattern.endswith("$"):
            wild.append((index, rule))
        else:
            plain.setdefault(rule.pattern, index)
    wildcard = re.compile("|".join(f"({_pattern_regex(r.pattern)})" for _, r in wild), re.DOTALL) \
        if wild else None
    return RuleMatcher(plain, tuple(sorted({len(p) for p in plain}, reverse=True)), wildcard,
                       tuple(i for i, _ in wild))


def url_path(url: str) -> str:
    """Path plus query of ``url`` (``/`` if empty), fragment removed; a bare ``/path`` is kept."""
    start = url.find("://")
    if start >= 0:
        cut = len(url)
        for sep in "/?#":
            pos = url.find(sep, start + 3)
            if 0 <= pos < cut:
                cut = pos
        url = url[cut:]
    url = url.split("#", 1)[0]
    return url if url.startswith("/") else "/" + url


@dataclass(frozen=True)
class RobotRules:
    """The robots.txt verdicts for one ``protocol:host:port`` (immutable).

    ``mode`` is ``some`` (rules decide), ``all`` (everything allowed) or ``none``
    (everything denied).  ``note`` says where the rules came from, e.g.
    ``robots.txt HTTP 404: everything allowed``.  ``status`` is the HTTP status of
    the final robots.txt response (None: not fetched, or a network error).
    ``defer_visits``: robots.txt was temporarily unavailable; URLs are to be
    re-queued (Nutch's http.robots.503.defer.visits).  ``cacheable`` is False for
    outcomes Nutch does not cache (5xx/429, network errors).
    """

    mode: Mode
    note: str
    rules: tuple[Rule, ...] = ()
    group: str = ""
    crawl_delay: float | None = None
    sitemaps: tuple[str, ...] = ()
    status: int | None = None
    source: str = ""
    defer_visits: bool = False
    cacheable: bool = True
    redirects: tuple[str, ...] = ()
    _matcher: RuleMatcher | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._matcher is None and self.rules:
            object.__setattr__(self, "_matcher", compile_rules(self.rules))

    def check(self, url: str) -> RobotDecision:
        """May ``url`` be fetched?  Never raises; the reason names the deciding line."""
        if self.mode == "all":
            return RobotDecision(True, self.note)
        if self.mode == "none":
            return RobotDecision(False, self.note, self.defer_visits)
        path = url_path(url)
        if NEEDS_NORMALIZING.search(path):
            path = normalize_path(path, rule=False)
        if path == "/robots.txt":
            return RobotDecision(True, "/robots.txt is always allowed")
        found = self._matcher.first_match(path) if self._matcher is not None else None
        if found is None:
            where = f"group {self.group}" if self.group else "no group for these agents"
            return RobotDecision(True, f"no rule matches ({where})")
        rule = self.rules[found]
        return RobotDecision(rule.allow, f"{rule.directive} (group {self.group})")

    def allowed(self, url: str) -> bool:
        """Shorthand for ``check(url).allowed``."""
        return self.check(url).allowed


def allow_all(note: str, **kwargs: object) -> RobotRules:
    """Rules allowing everything, with ``note`` as the reason."""
    return RobotRules("all", note, **kwargs)  # type: ignore[arg-type]


def robot_agents(settings: Settings) -> list[str]:
    """Nutch's robots agent names: lower-cased http.agent.name, then http.robots.agents.

    ``*`` and repeats are skipped (``*`` is never added: the ``*`` group applies by itself
    when no named group matches).
    """
    names: list[str] = []
    for raw in [settings.get_str("http.agent.name"), *settings.get_list("http.robots.agents")]:
        name = raw.strip().lower()
        if name and name != "*" and name not in names:
            names.append(name)
    return names


def robots_byte_limit(settings: Settings) -> int:
    """Bytes of robots.txt read and parsed: http.content.limit, at least RFC 9309's 500 KiB.

    A negative http.content.limit (no limit) still stops at :data:`UNLIMITED_CAP_BYTES`.
    """
    limit = settings.get_int("http.content.limit")
    return UNLIMITED_CAP_BYTES if limit < 0 else max(limit, RFC9309_MIN_BYTES)


def truncate_robots(content: bytes, max_bytes: int) -> bytes:
    """The first ``max_bytes`` bytes, without a partial last line."""
    if len(content) <= max_bytes:
        return content
    head = content[:max_bytes]
    end = max(head.rfind(b"\n"), head.rfind(b"\r"))
    return head[:end + 1] if end >= 0 else b""


def parse_robots(content: bytes, robots_url: str, agents: list[str], content_type: str | None = "text/plain",
                 max_bytes: int = RFC9309_MIN_BYTES, status: int | None = 200,
                 redirects: tuple[str, ...] = ()) -> RobotRules:
    """Rules of a robots.txt body for crawler ``agents`` (see :func:`robot_agents`).

    Only the first ``max_bytes`` bytes are parsed (whole lines).  An empty body or an
    HTML page without ``user-agent:`` lines allows everything.
    """
    body = truncate_robots(content, max_bytes)
    cut = f" (first {len(body)} of {len(content)} bytes)" if len(body) < len(content) else ""
    prefix = f"robots.txt HTTP {status}" if status is not None else "robots.txt"
    common = dict(status=status, source=robots_url, redirects=redirects)
    if not body.strip():
        return allow_all(f"{prefix}: empty{cut}, everything allowed", **common)
    parsed = parse_rules(body, robots_url, agents, content_type)
    if parsed.html_without_rules:
        return allow_all(f"{prefix}: an HTML page without user-agent lines, everything allowed", **common)
    note = f"{prefix}{cut}: group {parsed.group}" if parsed.group else f"{prefix}{cut}: no group applies"
    return RobotRules("some", note, parsed.rules, parsed.group, parsed.crawl_delay, parsed.sitemaps,
                      status, robots_url, redirects=redirects)


@dataclass(frozen=True)
class RobotsPolicy:
    """The settings that decide how robots.txt is fetched and what its status means."""

    agents: list[str]
    user_agent: str = "gossamer"
    allow_403: bool = True
    defer_5xx: bool = True
    defer_delay: float = 300.0
    defer_retries: int = 3
    redirect_max: int = 5
    timeout: float = 10.0
    max_bytes: int = 1048576
    allowlist: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, settings: Settings) -> RobotsPolicy:
        """Read every http.robots.* (and http.agent.name, http.timeout, http.content.limit)."""
        return cls(
            agents=robot_agents(settings),
            user_agent=settings.get_str("http.agent.name").strip() or "gossamer",
            allow_403=settings.get_bool("http.robots.403.allow"),
            defer_5xx=settings.get_bool("http.robots.503.defer.visits"),
            defer_delay=settings.get_int("http.robots.503.defer.visits.delay") / 1000.0,
            defer_retries=settings.get_int("http.robots.503.defer.visits.retries"),
            redirect_max=settings.get_int("http.robots.redirect.max"),
            timeout=settings.get_int("http.timeout") / 1000.0,
            max_bytes=robots_byte_limit(settings),
            allowlist=tuple(h.strip().lower() for h in settings.get_list("http.robot.rules.allowlist")
                            if h.strip()),
        )

    def allowlisted(self, host: str) -> bool:
        """Whether ``host`` ends with an entry of http.robot.rules.allowlist (Nutch's suffix match)."""
        host = host.lower()
        return any(host.endswith(entry) for entry in self.allowlist)


def rules_for_response(status: int | None, content: bytes, robots_url: str, policy: RobotsPolicy,
                       content_type: str | None = "text/plain", error: str = "",
                       redirects: tuple[str, ...] = ()) -> RobotRules:
    """Nutch's meaning of a robots.txt fetch outcome (``status`` None = network error)."""
    kw = dict(status=status, source=robots_url, redirects=redirects)
    if status is None:
        return allow_all(f"robots.txt not fetched ({error or 'network error'}): everything allowed",
                         cacheable=False, **kw)
    if status == 200:
        return parse_robots(content, robots_url, policy.agents, content_type, policy.max_bytes, status,
                            redirects)
    if 300 <= status < 400:
        return allow_all(f"robots.txt HTTP {status}: more than {policy.redirect_max} redirects, "
                         "everything allowed", **kw)
    if status == 403 and not policy.allow_403:
        return RobotRules("none", "robots.txt HTTP 403: everything denied (http.robots.403.allow=false)",
                          **kw)  # type: ignore[arg-type]
    if status >= 500 or status == 429:
        if policy.defer_5xx:
            return RobotRules("none", f"robots.txt HTTP {status}: visits deferred", defer_visits=True,
                              cacheable=False, **kw)  # type: ignore[arg-type]
        return allow_all(f"robots.txt HTTP {status}: everything allowed (not cached)", cacheable=False, **kw)
    return allow_all(f"robots.txt HTTP {status}: everything allowed", **kw)


def effective_delay(rules: RobotRules, settings: Settings) -> tuple[bool, float, str]:
    """``(skip, delay_seconds, reason)`` for a fetch queue, as Nutch's fetcher decides.

    A robots Crawl-delay > 0 above fetcher.max.crawl.delay (when that is >= 0) skips
    the URL (fetch_gone / ROBOTS_DENIED); otherwise the delay is raised to at least
    fetcher.min.crawl.delay.  Without a Crawl-delay the queue keeps
    fetcher.server.delay (fetcher.server.min.delay when threads.per.queue > 1).
    """
    delay = rules.crawl_delay
    if delay is None or delay <= 0:
        if settings.get_int("fetcher.threads.per.queue") > 1:
            return False, settings.get_float("fetcher.server.min.delay"), "fetcher.server.min.delay"
        return False, settings.get_float("fetcher.server.delay"), "fetcher.server.delay"
    max_delay = settings.get_int("fetcher.max.crawl.delay")
    if 0 <= max_delay < delay:
        return True, delay, (f"ROBOTS_DENIED: Crawl-delay {delay:g} s exceeds "
                             f"fetcher.max.crawl.delay={max_delay} s")
    floor = settings.get_float("fetcher.min.crawl.delay")
    if delay < floor:
        return False, floor, f"Crawl-delay {delay:g} s raised to fetcher.min.crawl.delay={floor:g} s"
    return False, delay, f"Crawl-delay {delay:g} s"
