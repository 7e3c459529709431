import hashlib
import json
import random

import pytest

from gossamer.core.records import Content, ParseData, ParseStatusCode, ParseText
from gossamer.core.settings import load_settings
from gossamer.plugins import ParseResult, PluginRepository, Signature
from gossamer.plugins.builtin.signature_textprofile import text_profile, tokens

from .conftest import VECTORS

DATA = json.loads((VECTORS / "text_profile_signature.json").read_text())


def textprofile() -> Signature:
    settings = load_settings(overrides=["db.signature.class=org.apache.nutch.crawl.TextProfileSignature"])
    return PluginRepository(settings).single(Signature)


def parse_of(text: str) -> ParseResult:
    return ParseResult(ParseData(ParseStatusCode.SUCCESS), ParseText(text))


CONTENT = Content("http://example.com/", "http://example.com/", b"<html>raw</html>")


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["text"][:30])
def test_text_profile_vectors(case: dict) -> None:
    content = CONTENT
    if "content_bytes_utf8" in case:
        content = Content(case["url"], case["url"], case["content_bytes_utf8"].encode("utf-8"))
    else:
        assert text_profile(case["text"]) == case["profile_string"]
    assert textprofile().calculate(content, parse_of(case["text"])).hex() == case["signature_md5_hex"]


@pytest.mark.parametrize("pair", DATA["pairs"], ids=lambda p: p["text_a"][:30])
def test_text_profile_pairs(pair: dict) -> None:
    sig = textprofile()
    same = sig.calculate(CONTENT, parse_of(pair["text_a"])) == sig.calculate(CONTENT, parse_of(pair["text_b"]))
    assert same is pair["same_signature"]


@pytest.mark.parametrize("case", DATA["md5_signature_cases"], ids=lambda c: c["content_utf8"])
def test_md5_signature_vectors(case: dict) -> None:
    sig = PluginRepository(load_settings()).single(Signature)
    content = Content("http://x/", "http://x/", case["content_utf8"].encode())
    assert sig.calculate(content, None).hex() == case["md5_hex"]


def test_word_order_never_matters_and_empty_text_falls_back_to_md5() -> None:
    rng = random.Random(3)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "an", "of", "Ω123", "x9y"]
    sig = textprofile()
    for _ in range(50):
        text = [rng.choice(words) for _ in range(rng.randrange(1, 300))]
        shuffled = text[:]
        rng.shuffle(shuffled)
        assert sig.calculate(CONTENT, parse_of(" ".join(text))) == sig.calculate(CONTENT, parse_of(
            "\n".join(shuffled)))
    assert sig.calculate(CONTENT, parse_of("")) == hashlib.md5(CONTENT.content).digest()


def test_quantization_and_java_tokenization() -> None:
    # 250 x "common": QUANT = round(250 * 0.01) = 3 (Java rounds 2.5 up); 4 x "rare" -> 3; 2 x "tiny" dropped
    text = " ".join(["common"] * 250 + ["rare"] * 4 + ["tiny"] * 2)
    assert text_profile(text) == "common 249\nrare 3"
    assert tokens("Foo_bar ½x ÉTÉ 42") == ["foo", "bar", "x", "été", "42"]  # _ and ½ are separators in Java
    assert text_profile("bb bb cc", min_token_len=1) == "bb 2"
    assert text_profile("zzz yyy zzz yyy", sec_sort_lex=True) == "yyy 2\nzzz 2"
