"""Batch URL screens (issue 22): a mask is true only where the per-URL answer is certainly "unchanged".

Every mask is compared with the per-URL code it stands for, over Nutch's vectors and many random
URLs built near the edges of the screened shapes; a few clean URLs must pass (the shortcut works).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from gossamer.core import url_problem
from gossamer.core.settings import load_settings
from gossamer.engine import TaskContext
from gossamer.plugins import PluginRepository, URLChain
from gossamer.plugins.builtin import urlfilter_regex, urlnormalizer_basic, urlnormalizer_regex
from gossamer.plugins.support.javaregex import compile_java
from gossamer.plugins.support.regexrules import rule_screen
from gossamer.plugins.support.rulefiles import RuleText
from gossamer.plugins.support.urlscreen import pattern_screen, valid_url_mask

from .conftest import VECTORS

NORMALIZE = json.loads((VECTORS / "url_normalize.json").read_text(encoding="utf-8"))
FILTER = json.loads((VECTORS / "regex_urlfilter.json").read_text(encoding="utf-8"))
CLEAN = [
    "http://www.example.com/", "https://example.org/a/b/c.html", "http://docs.season2.io/future-2.html",
    "https://www.second123.com/tribune-salad/county/rural-123.html", "http://a-b.example.net/x/y/?q",
    "ftp://ftp.example.com/pub/file.txt", "http://localhost.localdomain:8080/docs/a.html",
]
SCHEMES = ["http", "https", "ftp", "HTTP", "file", "mailto", "htp", "", "Https"]
HOSTS = ["example.com", "EXAMPLE.com", "www.example.co.uk", "xn--bcher-kva.de", "a_b.com", "1.2.3.4", "10",
         "0x1f", "256.1.1.1", "-", "a..b", "ex-ample.com", "example.com.", "ex%41.com", "user@host.com", "é.fr",
         "[::1]", "a.09", "sub.0x10", "h"]
PORTS = ["", "", "", ":80", ":8080", ":443", ":", ":0", ":21", ":99999", ":65535", ":65536", ":080", ":8"]
PIECES = ["/", "a", ".", "..", "%41", "%7e", "%7E", "%zz", "%", "sid=1", "index.html", "a.", "b//c", "~", " ", "\t",
          "é", "?", "&", "&&", "?&", "#", "=", "*", "!", "@", "file.gif", "x.JS", "\n", "\r", "/./", "/../",
          "PHPSESSID=1", "x-y", "A", ";", ":", "'", "(", "+", ",", "$", "[", "]", "|", "^", "`", "{", "\\",
          "/a/b/a/c/a/", "/x/", "\u2028", "\x00", "\x7f", "ſid=", "jsessionid=2", "default.aspx"]


def _random_urls(count: int, seed: int = 22) -> list[str]:
    rnd = random.Random(seed)
    urls = []
    for _ in range(count):
        tail = "".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 7)))
        url = f"{rnd.choice(SCHEMES)}://{rnd.choice(HOSTS)}{rnd.choice(PORTS)}{'/' if rnd.random() < 0.7 else ''}{tail}"
        urls.append(url)
    for clean in CLEAN:  # one-character mutations of clean URLs
        for _ in range(300):
            at = rnd.randrange(len(clean))
            urls.append(clean[:at] + rnd.choice(PIECES) + clean[at + 1:])
    return urls


def corpus() -> list[str]:
    """Vector inputs and outputs, filter vector URLs, clean URLs and random ones."""
    urls = [case["input"] for case in NORMALIZE["cases"]]
    urls += [case["expected"] for case in NORMALIZE["cases"] if isinstance(case.get("expected"), str)]
    urls += [case["url"] for case in FILTER["cases"]]
    return urls + CLEAN + _random_urls(12_000)


URLS = corpus()
URL_ARRAY = pa.array(URLS, pa.string())


def _true_urls(mask: pa.BooleanArray | None) -> list[str]:
    assert mask is not None
    assert len(mask) == len(URLS) and mask.null_count == 0
    return URL_ARRAY.filter(mask).to_pylist()


def _normalizes_to_itself(normalizer, url: str, scope: str = "default") -> bool:
    try:
        return normalizer.normalize(url, scope) == url
    except ValueError:
        return False


@pytest.mark.parametrize("schemes", [["http", "https", "ftp", "file"], ["https"], ["file"]])
def test_valid_url_mask_means_no_url_problem(schemes: list[str]) -> None:
    passed = _true_urls(valid_url_mask(URL_ARRAY, schemes))
    assert all(url_problem(url, schemes) is None for url in passed)
    if "https" in schemes:
        assert "https://example.org/a/b/c.html" in passed


@pytest.mark.parametrize("config", [[], ["urlnormalizer.basic.host.idn=toUnicode"],
                                    ["urlnormalizer.basic.host.idn=toAscii"],
                                    ["urlnormalizer.basic.host.trim-trailing-dot=true"]])
def test_basic_mask_means_unchanged(config: list[str]) -> None:
    normalizer = urlnormalizer_basic.PLUGIN.factory(load_settings(overrides=config))
    passed = _true_urls(normalizer.unchanged_mask(URL_ARRAY, "default"))
    assert all(_normalizes_to_itself(normalizer, url) for url in passed)
    assert set(CLEAN) <= set(passed)


@pytest.mark.parametrize("rule_set", sorted(NORMALIZE["regex_rule_sets"]) + ["shipped"])
def test_regex_normalizer_mask_means_unchanged(rule_set: str) -> None:
    if rule_set == "shipped":
        normalizer = urlnormalizer_regex.PLUGIN.factory(load_settings())
    else:
        rules = NORMALIZE["regex_rule_sets"][rule_set]
        xml = "<regex-normalize>" + "".join(
            f"<regex><pattern>{_xml(r['pattern'])}</pattern><substitution>{_xml(r['substitution'])}"
            "</substitution></regex>" for r in rules) + "</regex-normalize>"
        normalizer = urlnormalizer_regex.PLUGIN.factory(load_settings(overrides=[f"urlnormalizer.regex.rules={xml}"]))
    passed = _true_urls(normalizer.unchanged_mask(URL_ARRAY, "default"))
    assert all(_normalizes_to_itself(normalizer, url) for url in passed)
    if rule_set == "shipped":
        assert set(CLEAN) <= set(passed)


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


@pytest.mark.parametrize("name", sorted(FILTER["rulesets"]))
def test_regex_filter_mask_means_accepted(name: str) -> None:
    url_filter = urlfilter_regex.RegexURLFilter(RuleText(FILTER["rulesets"][name]["rules"], name))
    mask = url_filter.accepted_mask(URL_ARRAY)
    if mask is None:  # host-scoped rules or no "+." rule: no shortcut, which is allowed
        return
    passed = _true_urls(mask)
    assert all(url_filter.filter(url) == url for url in passed)
    rejected = [url for url in URLS if url_filter.filter(url) is None]
    assert not set(rejected) & set(passed)


@pytest.mark.parametrize("scope", ["inject", "default", "outlink"])
def test_default_chain_mask_means_unchanged(scope: str) -> None:
    chain = URLChain(PluginRepository(load_settings()), scope)
    passed = _true_urls(chain.unchanged_mask(URL_ARRAY))
    assert all(chain.apply(url) == url for url in passed)
    assert set(CLEAN) - {"ftp://ftp.example.com/pub/file.txt", "http://a-b.example.net/x/y/?q"} <= set(passed)


def test_chain_without_plugins_keeps_everything_and_empty_input() -> None:
    chain = URLChain(PluginRepository(load_settings()), "inject", normalize=False, filter=False)
    assert pc.all(chain.unchanged_mask(URL_ARRAY)).as_py()
    assert len(URLChain(PluginRepository(load_settings()), "inject").unchanged_mask(pa.array([], pa.string()))) == 0


def _random_texts(count: int) -> list[str]:
    rnd = random.Random(5)
    alphabet = "aAbBcdefxyz/:?&#.=;_-0123456789\n\rSIDsidPHPphpINDEXindexſK*!@gifJS\u2028"
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 24))) for _ in range(count)]


TEXTS = _random_texts(20_000) + URLS[:3000]
TEXT_ARRAY = pa.array(TEXTS, pa.string())


@pytest.mark.parametrize("regex", sorted({rule["pattern"] for rules in NORMALIZE["regex_rule_sets"].values()
                                          for rule in rules} | {"(?<!:)a{2}b", "^ab+c", "[xy]$", "(?i)ab(cd|ef)",
                                                                "[?*!@=]", "(?i)[s]id"}))
def test_pattern_screen_is_found_wherever_the_regex_is(regex: str) -> None:
    pattern = compile_java(regex)
    screen = pattern_screen(pattern)
    if screen is None:
        return
    found = pc.match_substring_regex(TEXT_ARRAY, screen).to_pylist()
    assert all(hit for text, hit in zip(TEXTS, found, strict=True) if pattern.search(text)), regex


@pytest.mark.parametrize("regex", sorted({line[1:] for ruleset in FILTER["rulesets"].values()
                                          for line in ruleset["rules"].splitlines() if line[:1] in "+-"}))
def test_rule_screen_is_found_wherever_the_rule_is(regex: str) -> None:
    pattern = compile_java(regex)
    found = pc.match_substring_regex(TEXT_ARRAY, rule_screen(regex)).to_pylist()
    assert all(hit for text, hit in zip(TEXTS, found, strict=True) if pattern.search(text)), regex


def test_rule_screen_repeated_segments() -> None:
    regex = ".*(/[^/]+)/[^/]+\\1/[^/]+\\1/"
    texts = ["http://h/a/b/a/c/a/", "http://h/a/b/a", "/x/y/x/z/x/", "http://a/b/c/d/e/"]
    found = pc.match_substring_regex(pa.array(texts), rule_screen(regex)).to_pylist()
    assert found == [True, False, True, True]


def test_mask_of_task_chain_is_usable_from_a_task() -> None:
    from gossamer.plugins import task_chain

    ctx = TaskContext(load_settings())
    assert task_chain(ctx, "inject").unchanged_mask(pa.array(CLEAN[:2])).to_pylist() == [True, True]


def test_corpus_is_big_enough() -> None:
    assert len(URLS) > 10_000
    assert Path(VECTORS).is_dir()


def test_a_pattern_re2_refuses_makes_the_screen_conservative() -> None:
    from gossamer.plugins.support.urlscreen import any_of, re2_literal, screened

    huge = any_of(["(?:" + re2_literal(f"x{i:06d}") + "){3,20}" for i in range(20_000)])
    urls = pa.array(["http://a.example/", "b"])
    assert screened(urls, None, huge, lambda url: url == "b").to_pylist() == [False, True]
    assert screened(urls, huge, None).to_pylist() == [False, False]
