"""URL filter plugins (issue 3): Nutch's vectors, file formats, errors, fast paths, link scope."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gossamer.core.settings import Settings, load_settings
from gossamer.core.urls import domain_of, split_url, suffix_of
from gossamer.plugins.api import PluginNotConfigured, URLExemptionFilter
from gossamer.plugins.builtin import (
    urlfilter_domain,
    urlfilter_domaindenylist,
    urlfilter_fast,
    urlfilter_ignoreexempt,
    urlfilter_prefix,
    urlfilter_regex,
    urlfilter_suffix,
    urlfilter_validator,
)
from gossamer.plugins.support.conffiles import PACKAGED_CONF
from gossamer.plugins.support.javaregex import compile_java
from gossamer.plugins.support.linkscope import LinkScope, is_internal, keep_link
from gossamer.plugins.support.regexrules import fast_matcher
from gossamer.plugins.support.rulefiles import RuleFileError, RuleText, java_lines

from .conftest import VECTORS

VECTOR_DATA = json.loads((VECTORS / "regex_urlfilter.json").read_text(encoding="utf-8"))
DEFAULT_RULES = VECTOR_DATA["rulesets"]["conf-default"]["rules"]


def settings_with(**props: str) -> Settings:
    return load_settings(overrides=[f"{k.replace('_', '.')}={v}" for k, v in props.items()])


def from_file(tmp_path: Path, prop: str, text: str) -> Settings:
    path = tmp_path / "rules.txt"
    path.write_text(text, encoding="utf-8")
    return load_settings(overrides=[f"{prop}={path}"])


def regex_filter(tmp_path: Path, rules: str) -> urlfilter_regex.RegexURLFilter:
    return urlfilter_regex.PLUGIN.factory(from_file(tmp_path, "urlfilter.regex.file", rules))


# --- urlfilter-regex: every vector, against the real plugin, rules from a file -------------------

@pytest.mark.parametrize("case", VECTOR_DATA["cases"], ids=lambda c: f"{c['ruleset']}:{c['url'][:60]}")
def test_regex_vectors(case: dict[str, str], tmp_path: Path) -> None:
    plugin = regex_filter(tmp_path, VECTOR_DATA["rulesets"][case["ruleset"]]["rules"])
    expected = case["url"] if case["expected"] == "accept" else None
    assert plugin.filter(case["url"]) == expected


@pytest.mark.parametrize("name", sorted(VECTOR_DATA["rulesets"]))
def test_nutch_rule_files_load_unchanged(name: str, tmp_path: Path) -> None:
    plugin = regex_filter(tmp_path, VECTOR_DATA["rulesets"][name]["rules"])
    assert plugin.rules.rules


def test_shipped_default_has_nutch_default_rules(tmp_path: Path) -> None:
    shipped = urlfilter_regex.PLUGIN.factory(load_settings())
    nutch = regex_filter(tmp_path, DEFAULT_RULES)
    assert [(r.accept, r.regex) for r in shipped.rules.rules] == [(r.accept, r.regex) for r in nutch.rules.rules]
    assert len(shipped.rules.rules) == 5


@pytest.mark.parametrize(("url", "accepted"), [
    ("http://example.com/", True),
    ("https://example.com/a/b.html", True),
    ("file:///etc/passwd", False),
    ("FILE:///etc/passwd", True),  # case-sensitive scheme rule, as in Nutch
    ("mailto:me@example.com", False),
    ("http://example.com/pic.JPEG", False),
    ("http://example.com/pic.jpeg\n", False),  # $ also matches before a final newline
    ("http://example.com/app.js", False),
    ("http://example.com/app.json", True),
    ("http://example.com/a.jsx", True),
    ("http://example.com/page?x=1", False),
    ("http://example.com/a*b", False),
    ("http://user@example.com/", False),
    ("http://example.com/a/b/a/c/a/", False),
    ("http://example.com/a/b/a/c/a", True),  # needs a slash after the third repetition
    ("http://example.com/a/a/a/", True),  # needs one segment between repetitions
    ("http://example.com/x/a/b/a/c/a/d", False),
    ("", False),  # "+." needs one character
])
def test_default_rules(url: str, accepted: bool) -> None:
    plugin = urlfilter_regex.PLUGIN.factory(load_settings())
    assert plugin.filter(url) == (url if accepted else None)


def test_inline_rules_override_file(tmp_path: Path) -> None:
    path = tmp_path / "rules.txt"
    path.write_text("-.\n", encoding="utf-8")
    settings = load_settings(overrides=[f"urlfilter.regex.file={path}", "urlfilter.regex.rules=+^http"])
    plugin = urlfilter_regex.PLUGIN.factory(settings)
    assert plugin.filter("http://x/") == "http://x/"
    assert plugin.filter("ftp://x/") is None


def test_host_and_domain_blocks(tmp_path: Path) -> None:
    rules = "> www.example.org\n-skip\n<\n> example.com\n+skip\n<\n-.\n"
    plugin = regex_filter(tmp_path, rules)
    assert plugin.filter("http://www.example.org/skip") is None
    assert plugin.filter("http://news.example.com/skip") == "http://news.example.com/skip"  # by domain
    assert plugin.filter("http://WWW.EXAMPLE.COM/skip") == "http://WWW.EXAMPLE.COM/skip"  # host lower-cased
    assert plugin.filter("http://other.net/skip") is None
    assert plugin.explain("http://other.net/skip").regex == "."  # type: ignore[union-attr]


def test_regex_is_not_trimmed_and_lines_split_like_java(tmp_path: Path) -> None:
    plugin = regex_filter(tmp_path, "-a \r\n+.\r")
    assert plugin.filter("http://a /") is None
    assert plugin.filter("http://a/") == "http://a/"
    assert list(java_lines("a\fb\r\nc\rd\n")) == [(1, "a\fb"), (2, "c"), (3, "d")]


@pytest.mark.parametrize(("rules", "line", "what"), [
    ("# ok\n\n+.\n*bad\n", 4, "invalid first character"),
    ("+.\n-(unclosed\n", 2, "invalid regex"),
    ("+.\n-[unclosed\n", 2, "unterminated character class"),
    ("\t+.\n", 1, "invalid first character"),
])
def test_bad_rule_lines_are_errors(rules: str, line: int, what: str, tmp_path: Path) -> None:
    with pytest.raises(RuleFileError, match=rf"line {line}: {what}"):
        regex_filter(tmp_path, rules)


def test_missing_file_means_not_configured(tmp_path: Path) -> None:
    settings = load_settings(overrides=[f"urlfilter.regex.file={tmp_path / 'none.txt'}"])
    with pytest.raises(PluginNotConfigured, match="urlfilter.regex.file"):
        urlfilter_regex.PLUGIN.factory(settings)


def test_conf_dir_file_wins_over_packaged_default(tmp_path: Path) -> None:
    (tmp_path / "regex-urlfilter.txt").write_text("-.\n", encoding="utf-8")
    plugin = urlfilter_regex.PLUGIN.factory(load_settings(conf=tmp_path))
    assert plugin.filter("http://example.com/") is None


# --- fast paths equal the plain regexes ---------------------------------------------------------

FAST_SHAPES = [
    "^(?:file|ftp|mailto):",
    "(?i)\\.(?:gif|jpg|png|ico|css|sit|eps|wmf|zip|ppt|mpg|xls|gz|rpm|tgz|mov|exe|jpeg|bmp|js)$",
    "\\.(?:gif|jpg|ico|css|sit|eps|wmf|zip|ppt|mpg|xls|gz|rpm|tgz|mov|exe|png)$",
    ".*(/[^/]+)/[^/]+\\1/[^/]+\\1/",
]
PIECES = ["/", "/", "/", "a", "b", "ab", ".", "gif", "GIF", "Js", "js", "\n", "?", "=", "x", "file:",
          "ftp:", "http://", "mailto:", "\u212a", "\u0130", "é", "//", "/a/", "jpeg", "z.png", ":"]


def random_url(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))


@pytest.mark.parametrize("regex", FAST_SHAPES)
def test_fast_matchers_equal_regex(regex: str) -> None:
    fast = fast_matcher(regex)
    assert fast is not None
    slow = compile_java(regex)
    rng = random.Random(regex)
    for _ in range(40000):
        url = random_url(rng)
        assert fast(url) == (slow.search(url) is not None), repr(url)


def test_fast_filter_equals_rule_by_rule(tmp_path: Path) -> None:
    rng = random.Random(3)
    for name, ruleset in VECTOR_DATA["rulesets"].items():
        (tmp_path / name).write_text(ruleset["rules"], encoding="utf-8")
        settings = load_settings(overrides=[f"urlfilter.regex.file={tmp_path / name}"])
        fast = urlfilter_regex.PLUGIN.factory(settings)
        plain = urlfilter_regex.RegexURLFilter(fast.source, fast=False)
        for _ in range(5000):
            url = random_url(rng)
            assert fast.filter(url) == plain.filter(url), (name, url)


# --- other filters ------------------------------------------------------------------------------

def test_prefix_filter(tmp_path: Path) -> None:
    plugin = urlfilter_prefix.PLUGIN.factory(from_file(
        tmp_path, "urlfilter.prefix.file", "# comment\n http://skipped/\nhttp://a.com/\nhttps://b.org/x\n"))
    assert plugin.filter("http://a.com/page") == "http://a.com/page"
    assert plugin.filter("https://b.org/xyz") == "https://b.org/xyz"
    assert plugin.filter("https://b.org/") is None
    assert plugin.filter("http://skipped/") is None
    assert urlfilter_prefix.PLUGIN.factory(settings_with(urlfilter_prefix_rules="ftp:")).filter("ftp:x") == "ftp:x"
    with pytest.raises(PluginNotConfigured):  # Nutch ships no prefix file
        urlfilter_prefix.PLUGIN.factory(load_settings())


SUFFIX_URLS = [
    "http://www.example.com/test.gif", "http://www.example.com/TEST.GIF",
    "http://www.example.com/test.jpg", "http://www.example.com/test.JPG",
    "http://www.example.com/test.html", "http://www.example.com/test.HTML",
    "http://www.example.com/test.html?q=abc.js", "http://www.example.com/test.js?foo=bar&baz=bar#12333",
]


@pytest.mark.parametrize(("mode", "accepted"), [  # Nutch's TestSuffixURLFilter
    ("+", [1, 3, 4, 5, 7]),
    ("-", [0, 2, 6]),
    ("+I", [4, 5, 7]),
    ("-I", [0, 1, 2, 3, 6]),
    ("+P", [1, 3, 4, 5, 6]),
])
def test_suffix_filter_modes(mode: str, accepted: list[int], tmp_path: Path) -> None:
    rules = f"# this is a comment\n\n{mode}\n.gif\n.jpg\n.js\n"
    plugin = urlfilter_suffix.PLUGIN.factory(from_file(tmp_path, "urlfilter.suffix.file", rules))
    got = [i for i, url in enumerate(SUFFIX_URLS) if plugin.filter(url) == url]
    assert got == accepted


def test_suffix_default_file() -> None:
    plugin = urlfilter_suffix.PLUGIN.factory(load_settings())
    assert plugin.filter("http://xyz.com/music.MP3?q=abc") is None
    assert plugin.filter("http://xyz.com/search?q=foo.com") == "http://xyz.com/search?q=foo.com"
    assert plugin.filter("http://xyz.com/") == "http://xyz.com/"


def test_domain_filter(tmp_path: Path) -> None:
    plugin = urlfilter_domain.PLUGIN.factory(from_file(
        tmp_path, "urlfilter.domain.file", "# c\nnet\n  Apache.org \nwww.example.com\nco.uk\n"))
    for url in ["http://lucene.apache.org/", "http://apache.org", "http://foo.net/", "http://www.example.com/",
                "http://www.bbc.co.uk/"]:
        assert plugin.filter(url) == url
    for url in ["http://example.com/", "http://mail.example.com/", "http://apache.com/", "not a url", "/rel"]:
        assert plugin.filter(url) is None
    with pytest.raises(PluginNotConfigured):
        urlfilter_domain.PLUGIN.factory(load_settings())


def test_domaindenylist_filter() -> None:
    plugin = urlfilter_domaindenylist.PLUGIN.factory(
        settings_with(urlfilter_domaindenylist_rules="com\nexample.org\nwww.example.net"))
    assert plugin.filter("http://www.google.com/") is None
    assert plugin.filter("http://a.example.org/") is None
    assert plugin.filter("http://www.example.net/") is None
    assert plugin.filter("http://example.net/") == "http://example.net/"
    assert plugin.filter("garbage") is None
    assert urlfilter_domaindenylist.PLUGIN.factory(load_settings()).filter("http://x.com/") == "http://x.com/"


@pytest.mark.parametrize(("url", "valid"), [  # Nutch's TestUrlValidator, then more of its rules
    ("example.com/file[/].html", False),
    ("http://www.example.com/space here.html", False),
    ("/main.html", False),
    ("www.example.com/main.html", False),
    ("ftp:www.example.com/main.html", False),
    ("http://999.000.456.32/nutch/trunk/README.txt", False),
    (" http://www.example.com/ma|in\\toc.html", False),
    ("https://issues.apache.org/jira/NUTCH-1127", True),
    ("http://domain.tld/function.cgi?url=http://fonzi.com/&amp;name=Fonzi&amp;mood=happy", True),
    ("http://validator.w3.org/feed/check.cgi?url=http%3A%2F%2Ffeeds.feedburner.com%2Fperishablepress", True),
    ("ftp://alfa.bravo.pi/mike/check/plan.pdf", True),
    ("http://localhost/", False),
    ("http://example.c/", False),
    ("http://example.1a/", False),
    ("http://example.museum/", True),
    ("http://127.0.0.1:8080/", True),
    ("http://example.com:123456/", False),
    ("http://example.com:/", False),
    ("http://user@example.com/", False),
    ("http://exa_mple.com/", False),
    ("http://example.com/a/../b", True),
    ("http://example.com/../b", False),
    ("http://example.com/a[1]", False),
    ("http://example.com/#frag ment", False),
    ("http://example.com/caf\u00e9", False),
    ("http://example.com", True),
    ("h2tp://example.com/", False),
])
def test_validator(url: str, valid: bool) -> None:
    plugin = urlfilter_validator.PLUGIN.factory(load_settings())
    assert plugin.filter(url) == (url if valid else None)


FAST_RULES = """
DenyPath /ignored-before-any-block
Host www.example.org
  DenyPath /path/to/be/excluded   # comment
  DenyPath /some/other/path/excluded
Domain example.com
  DenyPath .*
Domain example.org
  DenyPathQuery /resource/.*?action=exclude
Domain .
  DenyPath (/[^/]+)/[^/]+\\1/[^/]+\\1/
  Bogus line
  DenyPath [broken
"""


def test_fast_filter(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    plugin = urlfilter_fast.PLUGIN.factory(from_file(tmp_path, "urlfilter.fast.file", FAST_RULES))
    assert "line 12: not a DenyPath" in caplog.text and "line 13: rule skipped" in caplog.text
    rejected = ["http://www.example.org/path/to/be/excluded/x", "http://example.com/", "http://a.b.example.com/x",
                "http://news.example.org/resource/x?action=exclude", "http://x.net/a/b/a/c/a/", "no-scheme",
                "http://example.org/resource/action=exclude"]  # "?" in ".*?" is a regex quantifier
    accepted = ["http://example.org/path/to/be/excluded", "http://news.example.org/resource/x?action=keep",
                "http://notexample.com/", "file:/ignored-before-any-block"]
    for url in rejected:
        assert plugin.filter(url) is None, url
    for url in accepted:
        assert plugin.filter(url) == url, url


def test_fast_filter_lengths(tmp_path: Path) -> None:
    path = tmp_path / "fast.txt"
    path.write_text("", encoding="utf-8")
    base = [f"urlfilter.fast.file={path}"]
    by_len = urlfilter_fast.PLUGIN.factory(load_settings(overrides=[*base, "urlfilter.fast.url.max.length=20"]))
    assert by_len.filter("http://x.com/") and by_len.filter("http://x.com/" + "a" * 10) is None
    by_path = urlfilter_fast.PLUGIN.factory(load_settings(overrides=[*base, "urlfilter.fast.url.path.max.length=3"]))
    assert by_path.filter("http://x.com/ab?long-query") and by_path.filter("http://x.com/abc") is None
    by_query = urlfilter_fast.PLUGIN.factory(load_settings(overrides=[*base, "urlfilter.fast.url.query.max.length=2"]))
    assert by_query.filter("http://x.com/long-path") and by_query.filter("http://x.com/?abc") is None
    assert urlfilter_fast.PLUGIN.factory(load_settings()).filter("http://x/") == "http://x/"  # shipped template


def test_ignoreexempt(tmp_path: Path) -> None:
    plugin = urlfilter_ignoreexempt.PLUGIN.factory(
        from_file(tmp_path, "db.ignore.external.exemptions.file", "+(?i)\\.(jpg|png|gif)$\n-.\n"))
    assert plugin.exempt("http://a.com/", "http://cdn.net/x.PNG")
    assert not plugin.exempt("http://a.com/", "http://cdn.net/x.html")
    assert not urlfilter_ignoreexempt.PLUGIN.factory(load_settings()).exempt("http://a/", "http://b/x.png")


# --- helpers: domains, link scope ---------------------------------------------------------------

def test_domains() -> None:
    assert (domain_of("lucene.apache.org"), suffix_of("lucene.apache.org")) == ("apache.org", "org")
    assert (domain_of("www.bbc.co.uk"), suffix_of("www.bbc.co.uk")) == ("bbc.co.uk", "co.uk")
    assert (domain_of("10.1.2.3"), suffix_of("10.1.2.3")) == ("10.1.2.3", None)
    assert (domain_of("intranet.local"), suffix_of("intranet.local")) == ("local", None)
    assert domain_of("co.uk") == "co.uk"
    assert split_url("http://u@Host:8080/p?q#f") == ("http", "Host", "/p", "q")
    assert split_url("http://h:x/") is None and split_url("relative/path") is None


class ExemptImages(URLExemptionFilter):
    def exempt(self, from_url: str, to_url: str) -> bool:
        return to_url.endswith(".png")


class ExemptNothing(URLExemptionFilter):
    def exempt(self, from_url: str, to_url: str) -> bool:
        return False


def test_is_internal() -> None:
    assert is_internal("http://a.example.com/", "http://A.EXAMPLE.com/x")
    assert not is_internal("http://a.example.com/", "http://b.example.com/")
    assert is_internal("http://a.example.com/", "http://b.example.com/", "byDomain")
    assert is_internal("http://a.example.com/", "http://b.example.com/", "BYDOMAIN")
    assert not is_internal("bad", "bad")


def test_keep_link() -> None:
    src = "http://www.example.com/page"
    defaults = load_settings()
    assert keep_link(src, "http://other.org/", defaults)
    assert not keep_link(src, src, defaults)  # links to self are dropped
    external = settings_with(db_ignore_external_links="true")
    assert keep_link(src, "http://www.example.com/b", external)
    assert not keep_link(src, "http://news.example.com/b", external)
    assert not keep_link(src, "not a url", external)
    assert keep_link(src, "http://cdn.net/a.png", external, [ExemptImages()])
    assert not keep_link(src, "http://cdn.net/a.png", external, [ExemptImages(), ExemptNothing()])  # all must exempt
    by_domain = settings_with(db_ignore_external_links="true", db_ignore_external_links_mode="byDomain")
    assert keep_link(src, "http://news.example.com/b", by_domain)
    internal = settings_with(db_ignore_internal_links="true")
    assert not keep_link(src, "http://www.example.com/b", internal)
    assert keep_link(src, "http://news.example.com/b", internal)
    both = settings_with(db_ignore_internal_links="true", db_ignore_external_links="true")
    scope = LinkScope(both, [ExemptImages()])
    assert not scope.keep(src, "http://www.example.com/b.png")  # internal, ignored
    assert scope.keep(src, "http://cdn.net/b.png")  # external but exempt
    assert not scope.keep("malformed", "http://cdn.net/b.html")  # no source origin: external


def test_packaged_conf_files_parse() -> None:
    for name in ["regex-urlfilter.txt", "suffix-urlfilter.txt", "fast-urlfilter.txt",
                 "domaindenylist-urlfilter.txt", "db-ignore-external-exemptions.txt"]:
        assert (PACKAGED_CONF / name).is_file()
    assert RuleText("x", "y").error(3, "z").args[0] == "y, line 3: z"
