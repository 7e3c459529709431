"""URL normalizer plugins: Nutch's vectors plus further cases of the same documented rules."""

from __future__ import annotations

import json
import random
import re
import warnings
from pathlib import Path
from xml.sax.saxutils import escape

import pytest

from gossamer.core.settings import load_settings
from gossamer.plugins.api import PluginNotConfigured, URLNormalizer
from gossamer.plugins.builtin import (
    urlnormalizer_basic,
    urlnormalizer_host,
    urlnormalizer_protocol,
    urlnormalizer_querystring,
    urlnormalizer_regex,
    urlnormalizer_slash,
)
from gossamer.plugins.support.javaregex import JavaRegexError, compile_java, translate_replacement
from gossamer.plugins.support.javaurl import java_trim
from gossamer.plugins.support.regexprefilter import prefilter

VECTORS = json.loads((Path(__file__).parent / "vectors" / "url_normalize.json").read_text(encoding="utf-8"))
CASES = VECTORS["cases"]
DEFAULT_XML = Path(urlnormalizer_regex.__file__).resolve().parents[2] / "conf" / "regex-normalize.xml"

# Nutch's old conf/regex-normalize.xml.template, verbatim rules: "\&amp;" escapes and comments.
NUTCH_OLD_TEMPLATE = """<?xml version="1.0"?>
<!-- This is the configuration file for the RegexUrlNormalize Class. -->
<!-- WATCH OUT: an xml parser reads this file an ampersands must be
     expanded to &amp; -->
<regex-normalize>
<regex>
  <pattern>(\\?|\\&amp;|\\&amp;amp;)PHPSESSID=[a-zA-Z0-9]{32}$</pattern>
  <substitution></substitution>
</regex>
<regex>
  <pattern>(\\?|\\&amp;|\\&amp;amp;)PHPSESSID=[a-zA-Z0-9]{32}(\\&amp;|\\&amp;amp;)(.*)</pattern>
  <substitution>$1$3</substitution>
</regex>
</regex-normalize>
"""


def build(plugin, *defines: str) -> URLNormalizer:
    """A plugin instance built from settings with ``-D``-style overrides."""
    return plugin.factory(load_settings(overrides=list(defines)))


def basic(**config: object) -> URLNormalizer:
    return build(urlnormalizer_basic.PLUGIN, *(f"{k}={v}" for k, v in config.items()))


def rules_xml(rules: list[tuple[str, str]]) -> str:
    body = "".join(f"<regex><pattern>{escape(p)}</pattern><substitution>{escape(s)}</substitution></regex>\n"
                   for p, s in rules)
    return f"<?xml version=\"1.0\"?>\n<regex-normalize>\n{body}</regex-normalize>\n"


@pytest.fixture(scope="module")
def rule_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("regex-rules")
    files = {}
    for name, rules in VECTORS["regex_rule_sets"].items():
        files[name] = folder / f"{name}.xml"
        files[name].write_text(rules_xml([(r["pattern"], r["substitution"]) for r in rules]), encoding="utf-8")
    return files


# --- vectors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [c for c in CASES if c["normalizer"] == "basic"], ids=lambda c: c["input"])
def test_basic_vectors(case: dict) -> None:
    normalizer = basic(**case["config"])
    if case.get("expect_error"):
        with pytest.raises(ValueError):
            normalizer.normalize(case["input"], case["scope"])
    else:
        assert normalizer.normalize(case["input"], case["scope"]) == case["expected"]


@pytest.mark.parametrize("case", [c for c in CASES if c["normalizer"] == "regex"], ids=lambda c: c["input"])
def test_regex_vectors(case: dict, rule_files: dict[str, Path]) -> None:
    normalizer = build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.file={rule_files[case['rules']]}")
    assert normalizer.normalize(case["input"], case["scope"]) == case["expected"]


# --- basic: further cases of §8.1 ---------------------------------------------------------------

@pytest.mark.parametrize(("url", "expected"), [
    ("https://example.com:443/a", "https://example.com/a"),
    ("ftp://example.com:21/a", "ftp://example.com/a"),
    ("http://example.com:443/a", "http://example.com:443/a"),
    ("http://example.com:080/", "http://example.com/"),
    ("http://example.com:0081/", "http://example.com:81/"),
    ("HtTpS://WWW.Example.COM/Path/File.HTML?Q=A#Frag", "https://www.example.com/Path/File.HTML?Q=A"),
    ("http://example.com/%7euser/%2e%2e/x", "http://example.com/x"),
    ("http://example.com/a%2fb%3fc%25", "http://example.com/a%2Fb%3Fc%25"),
    ("http://example.com/a\\b", "http://example.com/a%5Cb"),
    ("http://example.com/a\tb", "http://example.com/a%09b"),
    ("http://example.com/[x]^`", "http://example.com/%5Bx%5D%5E%60"),
    ("http://example.com/\x7f", "http://example.com/%7F"),
    ("http://example.com/?a=b+c&d=%26&e=%2F", "http://example.com/?a=b+c&d=%26&e=%2F"),
    ("http://example.com/a?b=../c//d", "http://example.com/a?b=../c//d"),
    ("http://example.com/a/b/..", "http://example.com/a/"),
    ("http://example.com/a/./", "http://example.com/a/"),
    ("http://example.com/../../a/../b", "http://example.com/b"),
    ("http://example.com/..?x=1", "http://example.com/?x=1"),
    ("http://example.com/.well-known/x", "http://example.com/.well-known/x"),
    ("http://example.com#top", "http://example.com/"),
    ("http:foo/bar", "http:/foo/bar"),
    ("url:http://example.com/", "http://example.com/"),
    ("  http://example.com/ \n", "http://example.com/"),
    ("http://user:pw@example.com/", "http://example.com/"),
    ("ftp://user:pw@Example.com:21/f", "ftp://user:pw@example.com/f"),
    ("http://[2001:DB8::1]:80/", "http://[2001:db8::1]/"),
    ("http://[2001:db8::1]:8080/x", "http://[2001:db8::1]:8080/x"),
    ("http://ex%41mple.com/", "http://example.com/"),
    ("file:///a/b/../c", "file:/a/c"),
    ("file:/tmp/x y", "file:/tmp/x%20y"),
    ("FILE:/tmp/x", "file:/tmp/x"),
    ("mailto:someone@example.com#x", "mailto:someone@example.com#x"),
    ("https://example.com/caf\u00e9?q=\u00fc", "https://example.com/caf%C3%A9?q=%C3%BC"),
    ("https://example.com/\ud800", "https://example.com/%3F"),
    ("", ""),
])
def test_basic_rules(url: str, expected: str) -> None:
    assert basic().normalize(url, "default") == expected


@pytest.mark.parametrize("url", [
    "example.com/page", "   ", "foo:bar", "javascript:void(0)", "http://example.com:8o/", "http://example.com:-5/",
    "http://[zz::1]/", "http://[::1]x/", "http://a@b@example.com/", "http://ex%zzample.com/", "http://ex%4/",
    "jar:http://example.com/x.jar",
])
def test_basic_malformed(url: str) -> None:
    with pytest.raises(ValueError):
        basic().normalize(url, "default")


def test_basic_unchanged_url_is_the_same_object() -> None:
    url = "http://example.com/a/b.html?x=1&y=%2F"
    assert basic().normalize(url, "default") is url


@pytest.mark.parametrize(("config", "url", "expected"), [
    ({"urlnormalizer.basic.host.idn": "toAscii"}, "http://B\u00fccher.de/", "http://xn--bcher-kva.de/"),
    ({"urlnormalizer.basic.host.idn": "toAscii"}, "http://already-ascii.de./", "http://already-ascii.de./"),
    ({"urlnormalizer.basic.host.idn": "toUnicode"}, "http://xn--bcher-kva.de/", "http://b\u00fccher.de/"),
    ({"urlnormalizer.basic.host.idn": "toUnicode"}, "http://xn--zz.de/", "http://xn--zz.de/"),
    ({"urlnormalizer.basic.host.idn": "TOUNICODE"}, "http://XN--BCHER-KVA.de/", "http://b\u00fccher.de/"),
    ({"urlnormalizer.basic.host.trim-trailing-dot": "true"}, "http://example.com./", "http://example.com/"),
    ({}, "http://example.com./", "http://example.com./"),
    ({"urlnormalizer.basic.host.idn": "toAscii", "urlnormalizer.basic.host.idna2008": "true"},
     "http://fa\u00df.de/", "http://xn--fa-hia.de/"),
    ({"urlnormalizer.basic.host.idn": "toAscii"}, "http://fa\u00df.de/", "http://fass.de/"),
])
def test_basic_idn_options(config: dict, url: str, expected: str) -> None:
    assert basic(**config).normalize(url, "default") == expected


def test_basic_idn_invalid_host_is_malformed() -> None:
    with pytest.raises(ValueError):
        basic(**{"urlnormalizer.basic.host.idn": "toAscii"}).normalize("http://a\u00e9..b/", "default")
    with pytest.raises(ValueError):
        basic(**{"urlnormalizer.basic.host.idn": "sideways"})


def test_basic_is_idempotent_and_fast_path_agrees() -> None:
    rnd = random.Random(7)
    pieces = ["a", "B", ".", "..", "/", "//", "%41", "%2f", "%zz", "?", "&", "=", "#", " ", "\u00e9", "~", "-", "["]
    pieces.append("%")
    normalizer = basic()
    slow = normalizer._normalize_slow  # the full algorithm, without the fast path
    for _ in range(20000):
        url = rnd.choice(["http://", "https://", "ftp://", "HTTP://"])
        url += rnd.choice(["example.com", "Ex.org", "x.de:80", "x.de:8080", "x.de:0443", "y.com:443",
                           "z.net:", "h.io:21", "h.io:99999"])
        url += "/" + "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 12)))
        url += rnd.choice(["", "", "#", "#frag", "#a b\n", "#x#y"])
        once = normalizer.normalize(url, "default")
        assert once == slow(java_trim(url)), url
        if not re.search(r"%[0-9A-Fa-f]?%", url):  # "%%41", "%a%41": decoding makes a new escape (as Nutch)
            assert normalizer.normalize(once, "default") == once, url
    assert normalizer.normalize("http://x.org/%%41a", "default") == "http://x.org/%Aa"


# --- regex normalizer ---------------------------------------------------------------------------

def test_default_conf_file_has_rule_2_commented_out() -> None:
    normalizer = build(urlnormalizer_regex.PLUGIN)
    assert len(normalizer.default.rules) == 7
    assert normalizer.normalize("http://www.foo.com/index.html", "default") == "http://www.foo.com/index.html"
    assert normalizer.normalize("http://f.com/a//b/?&x=1&&y=2&#frag", "default") == "http://f.com/a/b/?x=1&y=2"
    assert normalizer.normalize("file:///tmp/x", "default") == "file:/tmp/x"
    assert DEFAULT_XML.is_file()


def test_nutch_old_template_loads_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "regex-normalize.xml"
    path.write_text(NUTCH_OLD_TEMPLATE, encoding="utf-8")
    normalizer = build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.file={path}")
    sid = "PHPSESSID=" + "a1" * 16
    assert normalizer.normalize(f"http://x.com/p?{sid}", "default") == "http://x.com/p"
    assert normalizer.normalize(f"http://x.com/p?a=1&{sid}&b=2", "default") == "http://x.com/p?a=1&b=2"


def test_inline_rules_property() -> None:
    xml = rules_xml([("^https:", "http:")])
    normalizer = build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.rules={xml}")
    assert normalizer.normalize("https://a.com/", "default") == "http://a.com/"


def test_per_scope_files(tmp_path: Path, rule_files: dict[str, Path]) -> None:
    scope1 = rule_files["regex-normalize-scope1"]
    normalizer = build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.file={rule_files['regex-normalize-default']}",
                       f"urlnormalizer.regex.file.fetcher={scope1}",
                       f"urlnormalizer.regex.file.outlink={tmp_path / 'missing.xml'}")
    url = "https://www.foo.bar.com/foo.php?url=http://www.example.com/test.php"
    assert normalizer.normalize(url, "fetcher") == "https://bar.com/"
    assert normalizer.normalize("http://www.foo.bar.com/", "fetcher") == "http://bar.com/"
    assert normalizer.normalize("http://www.foo.com/index.htm", "inject") == "http://www.foo.com/"
    with pytest.warns(urlnormalizer_regex.RegexRuleWarning, match="missing.xml"):
        assert normalizer.normalize("http://www.foo.com/index.htm", "outlink") == "http://www.foo.com/"
    assert normalizer.rules_for("fetcher") is normalizer.rules_for("fetcher")


def test_bad_rule_is_reported_and_skipped(tmp_path: Path) -> None:
    path = tmp_path / "rules.xml"
    path.write_text(rules_xml([("a", "b"), ("(unclosed", "x"), ("c(d)", "$2"), ("e", "f")])
                    + "", encoding="utf-8")
    with pytest.warns(urlnormalizer_regex.RegexRuleWarning) as caught:
        normalizer = build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.file={path}")
    messages = [str(w.message) for w in caught]
    assert any("rule 2" in m and str(path) in m for m in messages)
    assert any("rule 3" in m for m in messages)
    assert normalizer.normalize("http://ace.com/", "default") == "http://bcf.com/"


def test_rule_without_substitution_is_ignored() -> None:
    xml = "<regex-normalize><regex><pattern>a</pattern></regex><regex><pattern>b</pattern>" \
          "<substitution/></regex></regex-normalize>"
    normalizer = build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.rules={xml}")
    assert normalizer.normalize("http://ab.com/", "default") == "http://a.com/"


def test_regex_missing_or_broken_file(tmp_path: Path) -> None:
    with pytest.raises(PluginNotConfigured):
        build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.file={tmp_path / 'none.xml'}")
    broken = tmp_path / "broken.xml"
    broken.write_text("<regex-normalize><regex>", encoding="utf-8")
    with pytest.raises(PluginNotConfigured):
        build(urlnormalizer_regex.PLUGIN, f"urlnormalizer.regex.file={broken}")


def test_java_replacement_group_numbers() -> None:
    assert translate_replacement("$12", 1) == "\\g<1>2"
    assert translate_replacement("$12", 12) == "\\g<12>"
    assert translate_replacement("\\$1$0") == "$1\\g<0>"
    with pytest.raises(JavaRegexError):
        translate_replacement("$3", 2)
    assert compile_java("x(a)y").sub(translate_replacement("[$12]", 1), "xay") == "[a2]"


def test_prefilters_never_hide_a_match() -> None:
    patterns = [r["pattern"] for rules in VECTORS["regex_rule_sets"].values() for r in rules]
    patterns += [r"(?<!:)a{2}b", r"^ab+c", r"[xy]$", r"(?i)ab(cd|ef)", r"(foo|bar)=\d"]
    rnd = random.Random(3)
    alphabet = "aAbBcdefxyz/:?&#.=;_-0123456789\nSIDsidPHPphpINDEXindex"
    for java in patterns:
        pattern = compile_java(java)
        may_match = prefilter(pattern)
        if may_match is None:
            continue
        for _ in range(20000):
            text = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 20)))
            if pattern.search(text):
                assert may_match(text), (java, text)


# --- querystring, host, protocol, slash ---------------------------------------------------------

@pytest.mark.parametrize(("url", "expected"), [
    ("http://example.com/?c=d&a=b", "http://example.com/?a=b&c=d"),
    ("http://example.com/a/b/c", "http://example.com/a/b/c"),
    ("http://example.com:1234/a/b/c#ref", "http://example.com:1234/a/b/c#ref"),
    ("http://example.com:1234/a/b/c?c=d&a=b#ref", "http://example.com:1234/a/b/c?a=b&c=d#ref"),
    ("http://example.com/?c=d&a=b&a=c", "http://example.com/?a=b&a=c&c=d"),
    ("http://example.com/?b=1&a=2&", "http://example.com/?a=2&b=1"),
    ("http://example.com/?b=1&&a=2", "http://example.com/?&a=2&b=1"),
    ("http://example.com/?b&B&a", "http://example.com/?B&a&b"),
    ("http://example.com/?", "http://example.com/?"),
])
def test_querystring(url: str, expected: str) -> None:
    assert build(urlnormalizer_querystring.PLUGIN).normalize(url, "default") == expected


def test_host_normalizer(tmp_path: Path) -> None:
    path = tmp_path / "hosts.txt"
    path.write_text("# comment\n*.example.com example.com\nwww.example.net example.net\n\n"
                    "example.org www.example.org\nbroken-line\n", encoding="utf-8")
    with pytest.warns(UserWarning, match="line 6"):
        normalizer = build(urlnormalizer_host.PLUGIN, f"urlnormalizer.hosts.file={path}")
    assert normalizer.normalize("http://example.org/page.html", "default") == "http://www.example.org/page.html"
    assert normalizer.normalize("http://www.example.net/p/s.html", "default") == "http://example.net/p/s.html"
    assert normalizer.normalize("http://example.com/?does=it", "default") == "http://example.com/?does=it"
    assert normalizer.normalize("http://http.www.example.com/buh", "default") == "http://example.com/buh"
    assert normalizer.normalize("http://whatever.example.com:8080/b", "default") == "http://example.com:8080/b"
    assert normalizer.normalize("http://other.org/", "default") == "http://other.org/"
    inline = build(urlnormalizer_host.PLUGIN, "urlnormalizer.hosts.rules=a.com b.com")
    assert inline.normalize("http://a.com/a.com", "default") == "http://b.com/a.com"


def test_protocol_normalizer(tmp_path: Path) -> None:
    path = tmp_path / "protocols.txt"
    path.write_text("example.org\thttp\nexample.net\thttp\nexample.io\thttps\nexample.nl   https\n"
                    "*.example.com\thttps\n\thttps\ninvalid-rule1.example.top\n"
                    "invalid-rule2.example.top\thttps\thttp\ninvalid-rule3.example.top\t@mail\n", encoding="utf-8")
    with pytest.warns(UserWarning):
        normalizer = build(urlnormalizer_protocol.PLUGIN, f"urlnormalizer.protocols.file={path}")
    assert normalizer.normalize("https://example.org/", "default") == "http://example.org/"
    assert normalizer.normalize("http://example.io/", "default") == "https://example.io/"
    assert normalizer.normalize("http://example.nl/x?y#z", "default") == "https://example.nl/x?y#z"
    assert normalizer.normalize("https://example.io/", "default") == "https://example.io/"
    assert normalizer.normalize("http://example.com/", "default") == "https://example.com/"
    assert normalizer.normalize("http://a.b.example.com/", "default") == "https://a.b.example.com/"
    assert normalizer.normalize("http://myexample.com/", "default") == "http://myexample.com/"
    assert normalizer.normalize("http://example.io:8080/", "default") == "http://example.io:8080/"
    assert normalizer.normalize("http://invalid-rule2.example.top/", "default") == "http://invalid-rule2.example.top/"


def test_protocol_default_template_loads_without_rules() -> None:
    normalizer = build(urlnormalizer_protocol.PLUGIN)
    assert normalizer.normalize("http://example.org/", "default") == "http://example.org/"


def test_slash_normalizer() -> None:
    normalizer = build(urlnormalizer_slash.PLUGIN, "urlnormalizer.slashes.rules=www.example.org +\nwww.example.net\t-")
    cases = {
        "http://www.example.org/": "http://www.example.org/",
        "http://www.example.org": "http://www.example.org",
        "http://www.example.org/page": "http://www.example.org/page/",
        "http://www.example.net/path/to/something/": "http://www.example.net/path/to/something",
        "http://example.org/buh": "http://example.org/buh",
        "http://www.example.org/page?a=b&c=d": "http://www.example.org/page/?a=b&c=d",
        "http://www.example.net/path/to/something/?a=b&c=d": "http://www.example.net/path/to/something?a=b&c=d",
        "http://www.example.org/noise.mp3": "http://www.example.org/noise.mp3",
        "http://www.example.org/page.shtml": "http://www.example.org/page.shtml",
        "http://www.example.org/this.is.not.an_extension": "http://www.example.org/this.is.not.an_extension/",
        "http://www.example.org:8080/page": "http://www.example.org:8080/page/",
    }
    for url, expected in cases.items():
        assert normalizer.normalize(url, "default") == expected, url


@pytest.mark.parametrize(("plugin", "prop"), [
    (urlnormalizer_host.PLUGIN, "urlnormalizer.hosts.file"),
    (urlnormalizer_slash.PLUGIN, "urlnormalizer.slashes.file"),
    (urlnormalizer_protocol.PLUGIN, "urlnormalizer.protocols.file"),
])
def test_missing_rule_file_means_not_configured(plugin, prop: str, tmp_path: Path) -> None:
    with pytest.raises(PluginNotConfigured, match=re.escape(prop)):
        build(plugin, f"{prop}={tmp_path / 'absent.txt'}")


def test_plugin_infos() -> None:
    for module in (urlnormalizer_basic, urlnormalizer_regex, urlnormalizer_querystring, urlnormalizer_host,
                   urlnormalizer_protocol, urlnormalizer_slash):
        info = module.PLUGIN
        assert info.point == "URLNormalizer"
        assert info.id.startswith("urlnormalizer-")
        assert info.aliases[0].startswith("org.apache.nutch.net.urlnormalizer.")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        build(urlnormalizer_regex.PLUGIN)  # the shipped default file loads cleanly
