"""The Python encoder of the built-in static model gives the package's own vectors, bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

static_model = pytest.importorskip("static_model")

from gossamer.index import static_tokens  # noqa: E402
from gossamer.index.embeddings import embedder  # noqa: E402
from gossamer.index.static_tokens import MAX_TOKENS, StaticTokens  # noqa: E402
from gossamer.index.word_store import WordStore  # noqa: E402

MODEL_DIR = static_model.ensure_model_ready(Path(static_model.__file__).parent / "model")
HANDLED = [
    "", "   ", "HashMap\nA hash map stores key-value pairs; lookups take O(1) time.",
    "Macro BOOST_DLL_AUTO_ALIAS\nBOOST_DLL_AUTO_ALIAS — Exports variable or function with a unique alias",
    "a. .. ... x.y ::: ,,, (((", "hello \U0001F9FF\U0001FA80 world ꙮꙮ 🔬 © » “quoted” doesn’t",
    "internationalization " * 300, "a b c d " * 200, "x" * 300,
    "Rocksoft™ and… Java™ ﬁle ① ＡＢＣ １２３", "tab\there\r\nnew\x0bline\x1cx\x00y\x7fz",
    "nb\u00a0sp zw\u200bsp soft\u00adhy \ue000priv", "한국어 텍스트 日本語のテキスト Привет мир א ב",
    "e\u0301t\u00e9 x \u0301\u0302 y \u0301start a\n\u0301\u0302b ﬁ\u0301x tilde\u0303x",
    "Tiê\u0301ng Vie\u0323\u0302t עִבְרִית العَرَبِيَّة ภาษาไทย ক\u09be a\u20dd \u0915\u093f \u1e9b\u0323",
    '"ß↑e\u030a" string functions',
]
LEFT_TO_THE_PACKAGE = ["a<unk>b", "x <pad> y", "＜pad＞ x", "🇫🇷 flag", "👍🏽 ok", "a\u2581b c", "\u0915\u094d\u0937",
                       "family 👨\u200d👩\u200d👧", "ภาษาไทยคำ"]


@pytest.fixture(scope="module")
def model() -> StaticTokens:
    return StaticTokens(MODEL_DIR)


def package(texts: list[str]) -> np.ndarray:
    return np.asarray(static_model.get_embeddings(texts), np.float32).reshape(len(texts), -1)


def test_same_vectors_as_the_package_bit_for_bit(model: StaticTokens) -> None:
    rows = model.encode(HANDLED)
    expected = package(HANDLED)
    for text, row, want in zip(HANDLED, rows, expected, strict=True):
        assert row is not None, text[:40]
        assert row.dtype == np.float32
        assert row.tobytes() == want.tobytes(), text[:40]


def test_texts_normalization_could_join_are_left_to_the_package(model: StaticTokens) -> None:
    assert model.encode(LEFT_TO_THE_PACKAGE) == [None] * len(LEFT_TO_THE_PACKAGE)


def test_only_the_first_tokens_count(model: StaticTokens) -> None:
    ids = model.token_ids("internationalization " * 300)
    assert ids is not None and len(ids) == MAX_TOKENS


def test_the_embedder_mixes_both_and_matches_the_package() -> None:
    texts = HANDLED + LEFT_TO_THE_PACKAGE
    got = embedder().embed(texts)
    want = package(texts)
    norms = np.linalg.norm(want, axis=1, keepdims=True)
    np.divide(want, norms, out=want, where=norms > 0)
    assert got.tobytes() == want.tobytes()


def test_a_full_word_cache_starts_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(static_tokens, "WORD_CACHE", 3)
    model = StaticTokens(MODEL_DIR)
    rows = model.encode(HANDLED[:6])
    assert len(model.words) <= 3 + 40
    assert [row.tobytes() for row in rows if row is not None] == [row.tobytes() for row in package(HANDLED[:6])]


def test_words_kept_on_disk_give_the_same_vectors_without_loading_the_pieces(tmp_path: Path) -> None:
    first = StaticTokens(MODEL_DIR, WordStore(tmp_path, 1000))
    want = [row.tobytes() for row in first.encode(HANDLED) if row is not None]
    again = StaticTokens(MODEL_DIR, WordStore(tmp_path, 1000))
    assert len(again.words) == len(first.words)
    assert [row.tobytes() for row in again.encode(HANDLED) if row is not None] == want
    assert again._unigram is None
    assert want == [row.tobytes() for row in package(HANDLED)]


def test_words_looked_up_as_written_match_texts_normalized_whole() -> None:
    by_word, whole = StaticTokens(MODEL_DIR), StaticTokens(MODEL_DIR)
    whole.rules.by_word = False
    texts = HANDLED + ["ﬁle ﬁle ①② naïve naïve", "Straße　straße x"]
    assert [by_word.token_ids(t) for t in texts] == [whole.token_ids(t) for t in texts]
    assert by_word.raw and not whole.raw


def test_a_mark_after_a_wide_space_is_not_taken_from_the_word_cache() -> None:
    """Normalized whole, no-break space + U+0301 is one space; the mark cached as a word must not count there."""
    model = StaticTokens(MODEL_DIR)
    model.token_ids(" \u0301")  # the mark, cached as a word of its own
    texts = ["\xa0\u0301", "\u3000\u0301 x", "a\u2003\u0301", "\xa0\u0301\u0301"]
    whole = StaticTokens(MODEL_DIR)
    whole.rules.by_word = False
    assert [model.token_ids(t) for t in texts] == [whole.token_ids(t) for t in texts]
    for text, row in zip(texts, model.encode(texts), strict=True):
        if row is not None:
            assert row.tobytes() == package([text])[0].tobytes(), repr(text)


ALPHABET = "abcXYZ019 _.-,;:()<>'\"\n\t\r\u00a0\u200b\u00ad\x0b\x1céüß€—…™ﬁ①\u0301\u0323\u4e00\u0416\U0001F52C"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=400) | st.text(max_size=60))
def test_any_text_encodes_as_the_package_does(model: StaticTokens, text: str) -> None:
    row = model.encode([text])[0]
    if row is not None:
        assert row.tobytes() == package([text])[0].tobytes(), repr(text)
