import random
import re

import pytest

from gossamer.plugins.support.javaregex import JavaRegexError, compile_java, translate, translate_replacement
from gossamer.plugins.support.regexrules import search_equivalent


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("a(?i)b|c", ["ab", "aB", "c", "C"], ["ac", "Ab"]),  # the flag spans the alternation (Java)
        ("/((?i)index|default)\\.html", ["/INDEX.html", "/Default.html"], ["/index.HTML"]),
        ("x((?i)a|b)y|z", ["xAy", "xby", "z"], ["Z", "xAY"]),
        ("(?i)abc", ["ABC"], ["abd"]),
        ("\\Qa.b\\E", ["a.b"], ["axb"]),
        ("(?<n>ab)\\k<n>", ["abab"], ["abba"]),
        ("\\w+", ["abc"], ["é"]),  # Java's \\w is ASCII
    ],
)
def test_java_semantics(pattern: str, matches: list[str], misses: list[str]) -> None:
    compiled = compile_java(pattern)
    assert all(compiled.fullmatch(m) for m in matches), translate(pattern)
    assert not any(compiled.fullmatch(m) for m in misses), translate(pattern)


def test_untranslatable_constructs_are_clear_errors() -> None:
    for bad in ("[a-z&&[^x]]", "[[a]]", "\\p{InGreek}", "(unclosed"):
        with pytest.raises(JavaRegexError):
            compile_java(bad)


def test_replacements() -> None:
    assert compile_java("(a)(b)").sub(translate_replacement("$2$1\\$"), "ab") == "ba$"


def test_dropping_unanchored_dotstar_keeps_every_find_verdict() -> None:
    rng = random.Random(5)
    atoms = ["a", "b", "/", "[^/]+", "(/[^/]+)", "x?", "\\.", "(?:a|b)"]
    for _ in range(3000):
        core = "".join(rng.choice(atoms) for _ in range(rng.randrange(1, 5)))
        pattern = rng.choice(["", "(?i)"]) + rng.choice([".*", ""]) + core + rng.choice([".*", ""])
        try:
            original = compile_java(pattern)
        except JavaRegexError:
            continue
        simplified = compile_java(search_equivalent(pattern))
        for _ in range(20):
            text = "".join(rng.choice("abAB/.x\n") for _ in range(rng.randrange(0, 12)))
            assert bool(original.search(text)) == bool(simplified.search(text)), (pattern, text)


@pytest.mark.timeout(120)  # a quadratic search over this URL would take many minutes
def test_repeated_segment_variant_is_linear() -> None:
    url = "http://h/" + "/".join(f"s{i}" for i in range(20000)) + "/"
    rule = compile_java(search_equivalent(".*(/[^/]+)/[^/]+\\1/[^/]+\\1/.*"))
    assert rule.search(url) is None
    assert re.search("(/[^/]+)/[^/]+\\1/[^/]+\\1/", "/x/y/x/z/x/")
