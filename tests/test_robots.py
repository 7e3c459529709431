"""robots.txt: every case of vectors/robots.json, more cases of the same rules, real HTTP, the checker."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import protego
import pytest

from gossamer.core.settings import Settings
from gossamer.crawl.robots.fetching import RobotsCache, cache_key, fetch_robots, fetch_robots_txt, robots_url_for
from gossamer.crawl.robots.rules import (
    RFC9309_MIN_BYTES,
    RobotRules,
    RobotsPolicy,
    effective_delay,
    parse_robots,
    robot_agents,
    rules_for_response,
)
from tests import fetch_server
from tests.conftest import VECTORS

DATA = json.loads((VECTORS / "robots.json").read_text(encoding="utf-8"))
ROBOTS_URL = "http://www.example.com/robots.txt"


def settings(**values: object) -> Settings:
    """Test settings (keys use _ for dots); the loopback test servers allowed past the SSRF guard."""
    values = {"http_filter_ipaddress_include": "loopback", "http_client": fetch_server.HTTP_CLIENT, **values}
    return Settings().with_values([(k.replace("_", "."), v) for k, v in values.items()], "test")


def policy(**overrides: object) -> RobotsPolicy:
    from dataclasses import replace
    return replace(RobotsPolicy.from_settings(settings()), agents=["gossamer"], **overrides)


# --- the conformance vectors ------------------------------------------------------------------

@pytest.mark.parametrize("case", DATA["cases"], ids=[f"{i}-{c['from'].split('#')[1]}"
                                                      for i, c in enumerate(DATA["cases"])])
def test_rule_vectors(case: dict) -> None:
    rules = parse_robots(case["robots_txt"].encode("utf-8"), ROBOTS_URL, case["agents"])
    decision = rules.check(case["url"])
    assert decision.allowed == (case["expected"] == "allowed"), decision.reason


@pytest.mark.parametrize("case", DATA["crawl_delay_cases"], ids=lambda c: c["from"].split("#")[1])
def test_crawl_delay_vectors(case: dict) -> None:
    rules = parse_robots(case["robots_txt"].encode("utf-8"), ROBOTS_URL, case["agents"])
    expected = case["expected_crawl_delay_ms"]
    assert rules.crawl_delay == (None if expected is None else expected / 1000)
    for check in case["checks"]:
        assert rules.check(check["url"]).allowed == (check["expected"] == "allowed"), check
    if "expected_sitemaps" in case:
        assert list(rules.sitemaps) == case["expected_sitemaps"]


def _status_rules(status: object, pol: RobotsPolicy) -> RobotRules:
    return rules_for_response(status if isinstance(status, int) else None, b"User-agent: *\nDisallow: /",
                              ROBOTS_URL, pol)


def test_http_status_vectors() -> None:
    """Each row of http_status_rules_nutch, against rules_for_response / fetch_robots."""
    rows = {str(r["robots_http_status"]): r["result"] for r in DATA["http_status_rules_nutch"]}
    assert len(rows) == 7
    assert "parse body" in rows["200"]
    assert not _status_rules(200, policy()).allowed("http://www.example.com/x")
    assert "allow all" in rows["403"] and "forbid all if false" in rows["403"]
    assert _status_rules(403, policy()).allowed("http://www.example.com/x")
    assert not _status_rules(403, policy(allow_403=False)).allowed("http://www.example.com/x")
    assert "defer visits" in rows["5xx or 429"] and "if defer disabled: allow all" in rows["5xx or 429"]
    for status in (500, 503, 599, 429):
        deferred = _status_rules(status, policy())
        decision = deferred.check("http://www.example.com/x")
        assert (decision.allowed, decision.defer, deferred.cacheable) == (False, True, False)
        plain = _status_rules(status, policy(defer_5xx=False))
        assert plain.allowed("http://www.example.com/x") and not plain.cacheable
    assert policy().defer_delay == 300.0 and policy().defer_retries == 3
    assert "follow up to http.robots.redirect.max=5" in rows["301/302/303/307/308"]
    assert policy().redirect_max == 5
    redirected = _status_rules(301, policy())
    assert redirected.allowed("http://www.example.com/x") and redirected.cacheable
    assert "allow all" in rows["other (404, 410, 401 ...)"]
    for status in (404, 410, 401, 400, 418, 204):
        assert _status_rules(status, policy()).allowed("http://www.example.com/x")
    assert "not cached" in rows["exception/timeout"]
    failed = _status_rules("timeout", policy())
    assert failed.allowed("http://www.example.com/x") and not failed.cacheable
    assert "without fetching" in rows["host in http.robot.rules.allowlist"]
    listed = asyncio.run(fetch_robots("http://www.example.com/x",
                                      settings(http_robot_rules_allowlist="example.com")))
    assert listed.mode == "all" and "allowlist" in listed.note


# --- more cases of the same documented rules -----------------------------------------------------

MORE = [  # robots.txt, agents, url, allowed
    ("User-agent: foo\nDisallow: /a\n\nUser-agent: foo\nDisallow: /b\n", ["foo"], "http://x/b", False),
    ("User-agent: foo\nDisallow: /a\n", ["foobar"], "http://x/a", True),          # no prefix matching
    ("User-agent: foobot\nDisallow: /a\n", ["foo"], "http://x/a", True),
    ("User-agent: Foo-Bar_X\nDisallow: /a\n", ["foo-bar_x"], "http://x/a", False),
    ("User-agent: foo/2.1 (+http://x)\nDisallow: /a\n", ["foo"], "http://x/a", False),
    ("User-agent: *\nDisallow: /a\nUser-agent: b\nDisallow: /c\n", ["b"], "http://x/a", True),
    ("User-agent: a\nUser-agent: *\nDisallow: /x\n", ["zzz"], "http://x/x", False),
    ("User-agent: a\nDisallow: /x\n", ["zzz"], "http://x/x", True),
    ("User-agent: b\nDisallow: /b\nUser-agent: a\nDisallow: /a\n", ["a", "b"], "http://x/b", False),
    ("User-agent: *\nDisallow /a\n", ["x"], "http://x/a", False),                  # missing colon
    ("User-agent: *\nDissalow: /a\n", ["x"], "http://x/a", False),                 # typo accepted
    ("User-agent: *\nDisallow: /a$b\n", ["x"], "http://x/a$b", False),             # mid $ literal
    ("\ufeffUser-agent: *\nDisallow: /a\n", ["x"], "http://x/a", False),           # UTF-8 BOM
    ("User-agent: *\nDisallow: /\nAllow: /$\n", ["x"], "http://x/?q", False),
    ("User-agent: *\nDisallow: /*\n", ["x"], "http://x/robots.txt", True),
    ("User-agent: *\nDisallow: /*\n", ["x"], "http://x/robots.txt?x", False),
    ("User-agent: *\nDisallow: /a b\n", ["x"], "http://x/a%20b", False),
    ("User-agent: *\nDisallow: /%7efoo\n", ["x"], "http://x/~foo", False),
    ("User-agent: *\nDisallow: /a\n", ["x"], "http://x/A", True),
    ("User-agent: *\nDisallow: /a*b*c$\n", ["x"], "http://x/a-b-c-c", False),
    ("User-agent: *\nDisallow: /a*b*c$\n", ["x"], "http://x/a-b-c-d", True),
    ("User-agent: *\nDisallow: /x\n", ["x"], "http://x/x#frag", False),
    ("User-agent: *\nDisallow: /x\n", ["x"], "/x", False),                          # bare path
    ("<html><body>\nUser-agent: *<br>\nDisallow: /x</body></html>", ["x"], "http://x/x", False),
    ("<html><body>Not found</body></html>", ["x"], "http://x/x", True),
    ("User-agent: *\n" + "Disallow: /" + "a*" * 40 + "z\n", ["x"], "http://x/" + "a" * 5000, True),
]


@pytest.mark.parametrize(("text", "agents", "url", "allowed"), MORE)
def test_more_rule_cases(text: str, agents: list[str], url: str, allowed: bool) -> None:
    assert parse_robots(text.encode("utf-8"), ROBOTS_URL, agents).check(url).allowed is allowed


def test_utf16_and_html_content_type() -> None:
    body = "User-agent: *\nDisallow: /a\n".encode("utf-16-le")
    assert not parse_robots(b"\xff\xfe" + body, ROBOTS_URL, []).allowed("http://x/a")
    assert parse_robots(b"Disallow: /a", ROBOTS_URL, [], "text/html; charset=utf-8").mode == "all"


@pytest.mark.parametrize(("value", "seconds"), [("5", 5.0), ("0.5", 0.5), (" 2 ", 2.0), ("1.2345", 1.234),
                                                ("abc", None), ("10s", None), ("99999999999", None)])
def test_crawl_delay_values(value: str, seconds: float | None) -> None:
    assert parse_robots(f"User-agent: *\nCrawl-delay: {value}\n".encode(), ROBOTS_URL, []).crawl_delay == seconds


def test_crawl_delay_groups() -> None:
    text = b"User-agent: *\nCrawl-delay: 10\nUser-agent: a\nDisallow: /x\n"
    assert parse_robots(text, ROBOTS_URL, ["a"]).crawl_delay is None       # specific agent: no * delay
    assert parse_robots(text, ROBOTS_URL, ["b"]).crawl_delay == 10
    twice = b"User-agent: a\nCrawl-delay: 4\nUser-agent: b\nCrawl-delay: 2\nDisallow: /\n"
    assert parse_robots(twice, ROBOTS_URL, ["a", "b"]).crawl_delay == 2     # shortest for named agents


def test_sitemaps_and_reasons() -> None:
    text = b"Sitemap: /s1.xml\nUser-agent: gossamer\nDisallow: /private/\nSitemap: https://cdn.x/s2.xml\n" \
           b"Sitemap: /s1.xml\nhttp://www.example.com/sitemap-old.xml\nSitemap: nohost\n"
    rules = parse_robots(text, ROBOTS_URL, ["gossamer"])
    assert rules.sitemaps == ("http://www.example.com/s1.xml", "https://cdn.x/s2.xml",
                              "http://www.example.com/sitemap-old.xml", "http://www.example.com/nohost")
    denied = rules.check("http://www.example.com/private/a")
    assert denied == type(denied)(False, "Disallow: /private/ (group user-agent: gossamer)")
    assert rules.check("http://www.example.com/pub").reason == "no rule matches (group user-agent: gossamer)"
    assert rules_for_response(404, b"", ROBOTS_URL, policy()).check("http://x/").reason == \
        "robots.txt HTTP 404: everything allowed"
    assert _status_rules(503, policy()).check("http://x/").reason == "robots.txt HTTP 503: visits deferred"


def test_size_cap_parses_whole_lines_only() -> None:
    filler = b"# " + b"x" * 1000 + b"\n"
    text = b"User-agent: *\nDisallow: /early\n" + filler * 600 + b"Disallow: /late\n"
    rules = parse_robots(text, ROBOTS_URL, [], max_bytes=RFC9309_MIN_BYTES)
    assert not rules.allowed("http://x/early") and rules.allowed("http://x/late")
    assert f"of {len(text)} bytes)" in rules.note
    assert RobotsPolicy.from_settings(settings(http_content_limit=1000)).max_bytes == RFC9309_MIN_BYTES
    assert RobotsPolicy.from_settings(settings(http_content_limit=2**21)).max_bytes == 2**21
    assert RobotsPolicy.from_settings(settings(http_content_limit=-1)).max_bytes == 16 * 2**20


def test_agent_list_and_policy() -> None:
    s = settings(http_agent_name=" MyBot ", http_robots_agents="*,OtherBot, mybot ,third")
    assert robot_agents(s) == ["mybot", "otherbot", "third"]
    assert robot_agents(settings()) == []
    assert RobotsPolicy.from_settings(settings(http_timeout=2500)).timeout == 2.5


@pytest.mark.parametrize(("crawl_delay", "extra", "expected"), [
    (None, {}, (False, 5.0)),
    (None, {"fetcher_threads_per_queue": 2, "fetcher_server_min_delay": 0.5}, (False, 0.5)),
    (1.0, {}, (False, 5.0)),                                  # raised to fetcher.min.crawl.delay
    (10.0, {}, (False, 10.0)),
    (31.0, {}, (True, 31.0)),                                 # > fetcher.max.crawl.delay=30
    (31.0, {"fetcher_max_crawl_delay": -1}, (False, 31.0)),   # -1: never skip
    (2.0, {"fetcher_min_crawl_delay": 0.0}, (False, 2.0)),
])
def test_effective_delay(crawl_delay: float | None, extra: dict, expected: tuple[bool, float]) -> None:
    rules = RobotRules("all", "test", crawl_delay=crawl_delay)
    skip, delay, reason = effective_delay(rules, settings(**extra))
    assert (skip, delay) == expected
    assert ("ROBOTS_DENIED" in reason) is skip


def test_cache_keying_and_bound() -> None:
    assert cache_key("HTTP://Example.COM/a") == "http:example.com:80"
    assert cache_key("https://example.com:8443/a") == "https:example.com:8443"
    assert cache_key("https://example.com/a") == "https:example.com:443"
    cache = RobotsCache(max_entries=2)
    rules = RobotRules("all", "x")
    cache.put("http://a.example/x", rules)
    assert cache.get("http://A.example:80/other") is rules
    assert cache.get("https://a.example/x") is None and cache.get("http://a.example:8080/") is None
    cache.put("http://b.example/", rules)
    cache.get("http://a.example/")
    cache.put("http://c.example/", rules)                    # evicts b (least recently used)
    assert cache.get("http://b.example/") is None and len(cache) == 2
    cache.put("http://d.example/", RobotRules("all", "err", cacheable=False))
    assert cache.get("http://d.example/") is None
    assert robots_url_for("https://Example.com:443/a?b") == "https://example.com/robots.txt"
    assert robots_url_for("http://[::1]:8080/a") == "http://[::1]:8080/robots.txt"


def test_protego_differences_are_the_documented_ones() -> None:
    """Cases where protego disagrees with crawler-commons (see docs/robots.md); Gossamer follows the latter."""
    differ = []
    for i, case in enumerate(DATA["cases"]):
        agent = case["agents"][0] if case["agents"] else "*"
        if protego.Protego.parse(case["robots_txt"]).can_fetch(case["url"] or "http://x/", agent) != \
                (case["expected"] == "allowed"):
            differ.append(i)
    assert differ == [14, 17, 157, 158]


# --- a real HTTP server on 127.0.0.1 -----------------------------------------------------------

class _Handler(BaseHTTPRequestHandler):
    routes: dict[str, tuple[int, dict[str, str], bytes, float]] = {}
    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802
        self.seen.append((self.path, self.headers.get("User-Agent", "")))
        status, headers, body, delay = self.routes.get(self.path, (404, {}, b"not found", 0.0))
        if delay:
            time.sleep(delay)
        self.send_response(status)
        for key, value in {"Content-Type": "text/plain", **headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def route(path: str, status: int = 200, body: bytes = b"", headers: dict[str, str] | None = None,
          delay: float = 0.0) -> None:
    _Handler.routes[path] = (status, headers or {}, body, delay)


def fetch(url: str, pol: RobotsPolicy | None = None) -> RobotRules:
    return asyncio.run(fetch_robots_txt(url, pol or policy(), settings=settings()))


@pytest.mark.usefixtures("http_client")
def test_fetch_statuses(server: str) -> None:
    route("/robots.txt", 200, b"User-agent: gossamer\nDisallow: /private/\nCrawl-delay: 2\n")
    cache = RobotsCache()
    rules = asyncio.run(fetch_robots(server + "/page", settings(http_agent_name="Gossamer"), cache=cache))
    assert not rules.allowed(server + "/private/x") and rules.crawl_delay == 2 and rules.status == 200
    assert _Handler.seen[-1] == ("/robots.txt", "Gossamer")
    assert cache.get(server + "/other") is rules
    for status, allowed in ((404, True), (410, True), (401, True), (403, True)):
        route(f"/s{status}/robots.txt", status, b"User-agent: *\nDisallow: /")
        assert fetch(f"{server}/s{status}/robots.txt").allowed(server + "/x") is allowed
    assert not fetch(f"{server}/s403/robots.txt", policy(allow_403=False)).allowed(server + "/x")
    for status in (500, 503, 429):
        route(f"/s{status}/robots.txt", status, b"")
        rules = fetch(f"{server}/s{status}/robots.txt")
        assert rules.check(server + "/x").defer and not rules.cacheable
        cache.put(f"{server}/s{status}/", rules)


@pytest.mark.usefixtures("http_client")
def test_fetch_redirects(server: str) -> None:
    for i in range(7):
        route(f"/r{i}/robots.txt", 301 if i % 2 else 307, headers={"Location": f"/r{i + 1}/robots.txt"})
    route("/r7/robots.txt", 200, b"User-agent: *\nDisallow: /deep/\n")
    followed = fetch(f"{server}/r2/robots.txt")
    assert followed.redirects == tuple(f"{server}/r{i}/robots.txt" for i in range(3, 8))
    assert not followed.allowed(server + "/deep/x")
    too_many = fetch(f"{server}/r1/robots.txt")
    assert too_many.mode == "all" and too_many.status in (301, 307) and "more than 5 redirects" in too_many.note
    assert fetch(f"{server}/r2/robots.txt", policy(redirect_max=0)).mode == "all"
    port = server.rsplit(":", 1)[1]
    route("/x/robots.txt", 302, headers={"Location": f"http://localhost:{port}/robots.txt"})
    route("/robots.txt", 200, b"User-agent: *\nDisallow: /\n")
    moved = fetch(f"{server}/x/robots.txt")
    cache = RobotsCache()
    cache.put(server + "/", moved)
    assert cache.get(f"http://localhost:{port}/a") is moved                 # cached for the target host too


@pytest.mark.usefixtures("http_client")
def test_fetch_size_cap_slow_and_refused(server: str) -> None:
    big = b"User-agent: *\nDisallow: /early\n" + (b"#" + b"y" * 99 + b"\n") * 20000 + b"Disallow: /late\n"
    route("/big/robots.txt", 200, big)
    rules = fetch(f"{server}/big/robots.txt", policy(max_bytes=600_000))
    assert not rules.allowed(server + "/early") and rules.allowed(server + "/late")
    route("/slow/robots.txt", 200, b"User-agent: *\nDisallow: /", delay=1.5)
    started = time.monotonic()
    slow = fetch(f"{server}/slow/robots.txt", policy(timeout=0.3))
    assert time.monotonic() - started < 1.4
    assert slow.mode == "all" and not slow.cacheable and "Timeout" in slow.note
    refused = asyncio.run(fetch_robots("http://127.0.0.1:9/", settings(http_timeout=1000)))
    assert refused.mode == "all" and not refused.cacheable and refused.status is None
    route("/html/robots.txt", 200, b"<html><body>Hello</body></html>", {"Content-Type": "text/html"})
    assert fetch(f"{server}/html/robots.txt").mode == "all"


# --- the robotschecker command ---------------------------------------------------------------

@pytest.fixture
def checker_cli(cli):  # type: ignore[no-untyped-def]
    from gossamer.cli.main import app
    from gossamer.cli.robots_cmd import robotschecker_command
    if not any(c.name == "robotschecker" for c in app.registered_commands):
        app.command("robotschecker")(robotschecker_command)
    return cli


def test_robotschecker_file_url_and_stdin(checker_cli, server: str, tmp_path: Path,  # type: ignore[no-untyped-def]
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /x\n\nUser-agent: mybot\nDisallow: /private/\n"
                      "Crawl-delay: 1.5\nSitemap: https://example.com/sitemap.xml\n")
    urls = tmp_path / "urls.txt"
    urls.write_text("https://example.com/private/a\nhttps://example.com/x\n\n# comment\nnot a url\n")
    result = checker_cli("robotschecker", robots, urls, "MyBot,other")
    assert result.code == 0, result.err
    assert result.out.splitlines() == [
        "denied\thttps://example.com/private/a\tDisallow: /private/ (group user-agent: mybot)",
        "allowed\thttps://example.com/x", "error\tnot a url\tnot a URL or path",
        "Crawl-delay: 1.5", "Sitemap: https://example.com/sitemap.xml"]
    assert "agents: mybot,other" in result.err
    star = checker_cli("robotschecker", robots, urls, "-D", "http.agent.name=")
    assert star.out.splitlines()[:2] == ["allowed\thttps://example.com/private/a",
                                         "denied\thttps://example.com/x\tDisallow: /x (group user-agent: *)"]
    assert "Crawl-delay: none" in star.out
    route("/robots.txt", 200, b"User-agent: gossamer\nDisallow: /\n")
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{server}/a\n/b\n"))
    piped = checker_cli("robotschecker", f"{server}/robots.txt", "-", "-D", "http.agent.name=gossamer")
    assert piped.code == 0
    assert piped.out.splitlines()[:2] == [f"denied\t{server}/a\tDisallow: / (group user-agent: gossamer)",
                                          "denied\t/b\tDisallow: / (group user-agent: gossamer)"]
    missing = checker_cli("robotschecker", tmp_path / "nope.txt", urls)
    assert missing.code == 2 and "not found" in missing.err


def test_check_speed_is_reasonable() -> None:
    rules = parse_robots(REALISTIC.encode(), ROBOTS_URL, ["gossamer"])
    urls = [f"http://www.example.com/{p}/{i}.html?q={i}" for i in range(2000)
            for p in ("wiki", "w/index.php", "api", "Special:Search")][:5000]
    started = time.perf_counter()
    for url in urls:
        rules.check(url)
    assert len(urls) / (time.perf_counter() - started) > 20_000


REALISTIC = "\n".join(["User-agent: *", *[f"Disallow: /{p}" for p in (
    "w/", "api/", "trap/", "wiki/Special:", "wiki/Spezial:", "wiki/Special%3A", "*?action=edit",
    "*?title=Special:", "*.json$", "cgi-bin/", "tmp/", "search", "login", "*/print/", "*sessionid=")],
    "Allow: /w/load.php", "Allow: /api/rest_v1/?doc", "Crawl-delay: 1", "",
    "User-agent: gossamer", *[f"Disallow: /{p}" for p in (
        "w/", "api/", "trap/", "wiki/Special:", "*?action=", "*.json$", "cgi-bin/", "private/*/edit",
        "search$", "*/print/", "*&oldid=", "wiki/User_talk:", "wiki/Talk:")],
    "Allow: /w/load.php", "Allow: /w/index.php?title=*&action=raw", "Sitemap: /sitemap.xml"])


def test_rule_matcher_agrees_with_a_plain_alternation() -> None:
    """The prefix-dict fast path must pick exactly the rule a single regex alternation picks."""
    import random
    import re as stdre

    from gossamer.crawl.robots.parser import Rule
    from gossamer.crawl.robots.rules import _pattern_regex, compile_rules

    rng = random.Random(11)
    alphabet = ["/", "a", "b", "x", ".php", "*", "$", "%2F", "?q"]
    for _ in range(300):
        rules = []
        for _ in range(rng.randrange(1, 25)):
            pattern = "/" + "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 5)))
            rules.append(Rule(pattern, rng.random() < 0.5, f"line {pattern}"))
        rules.sort(key=lambda r: (-len(r.pattern), not r.allow))
        rules_t = tuple(rules)
        naive = stdre.compile("|".join(f"({_pattern_regex(r.pattern)})" for r in rules_t), stdre.DOTALL)
        matcher = compile_rules(rules_t)
        for _ in range(40):
            path = "/" + "".join(rng.choice(["a", "b", "x", "/", ".php", "?q", "%2F"]) for _ in range(6))
            found = naive.match(path)
            expected = None if found is None else found.lastindex - 1
            assert matcher.first_match(path) == expected, (rules_t, path)
