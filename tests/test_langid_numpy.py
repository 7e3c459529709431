"""language-identifier's NumPy classification equals py3langid's, and its model cache is safe to lose."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from gossamer.plugins.builtin import langid_cache
from gossamer.plugins.builtin.langid_cache import cache_dir, cached_model, model_path, read_model, write_model
from gossamer.plugins.builtin.langid_numpy import NumpyIdentifier, WalkModel, automaton_depth

SENTENCES = [
    "The quick brown fox jumps over the lazy dog while the cat sleeps.",
    "Der schnelle braune Fuchs springt über den faulen Hund.",
    "Le renard brun rapide saute par-dessus le chien paresseux.",
    "El rápido zorro marrón salta sobre el perro perezoso.",
    "Быстрая коричневая лиса перепрыгивает через ленивую собаку.",
    "敏捷的棕色狐狸跳过了懒狗。", "素早い茶色の狐がのろまな犬を飛び越える。",
    "Η γρήγορη καφέ αλεπού πηδά πάνω από το τεμπέλικο σκυλί.",
    "fn main() { let x: Vec<u8> = Vec::new(); println!(\"{:?}\", x); }",
    "ALL CAPITALS SHOUTING TEXT IS LOWERED FIRST", "", " ", "a", "ab", "abc", "abcde", "x" * 40_000,
    "Sprachen: " + "Deutsch und English mixed " * 2_000,
]


@pytest.fixture(scope="module")
def reference() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@pytest.fixture(scope="module")
def numpy_identifier(reference: LanguageIdentifier) -> NumpyIdentifier:
    return NumpyIdentifier(WalkModel.from_py3langid(reference), native=False)


def test_same_language_and_probability_as_py3langid(reference, numpy_identifier) -> None:
    for text in SENTENCES:
        assert numpy_identifier.classify(text) == reference.classify(text), text[:40]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300) | st.text(alphabet="abcdefghij ÄÖÜäöüß€\u4e00\u0416", max_size=2_000))
def test_any_text_classified_as_py3langid_does(reference, numpy_identifier, text: str) -> None:
    assert numpy_identifier.classify(text) == reference.classify(text)


def test_the_walk_emits_the_byte_by_byte_walks_features(reference, numpy_identifier) -> None:
    data = "Über 12 Hunde — and some more words".encode()
    state, expected = 0, []
    for byte in data:
        state = reference.tk_nextmove[reference._rowbase[state] + byte]
        expected.append(reference.tk_output[state])
    assert numpy_identifier.features(data).tolist() == expected


def test_automaton_depth_of_a_small_automaton() -> None:
    # states 0 (start), 1 = "a", 2 = "ab"; every other byte goes back to the start; row per state
    nextmove = np.zeros(3 * 256, dtype=np.uint32)
    nextmove[ord("a")] = 1
    nextmove[256 + ord("a")] = 1
    nextmove[256 + ord("b")] = 2
    nextmove[512 + ord("a")] = 1
    assert automaton_depth(nextmove, np.arange(3)) == 2


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "gossamer"


def test_the_model_is_cached_and_read_back_mapped(cache_home: Path, numpy_identifier) -> None:
    first = cached_model(model_path())
    assert first is not None
    directory = cache_dir(model_path())
    assert directory.parent == cache_home and (directory / "meta.json").is_file()
    again = read_model(directory)
    assert isinstance(again.table.base, np.memmap) and not again.table.flags.writeable
    for text in SENTENCES[:6]:
        assert NumpyIdentifier(again, native=False).classify(text) == numpy_identifier.classify(text)


def test_a_damaged_cache_is_derived_again(cache_home: Path, numpy_identifier) -> None:
    directory = cache_dir(model_path())
    write_model(numpy_identifier.model, directory)
    (directory / "table.npy").write_bytes(b"not an array")
    model = cached_model(model_path())
    assert model is not None
    assert NumpyIdentifier(model, native=False).classify(SENTENCES[1]) == numpy_identifier.classify(SENTENCES[1])
    assert read_model(directory).table.shape == numpy_identifier.model.table.shape  # written anew


def test_an_unwritable_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, numpy_identifier) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # gossamer/ cannot be made under a file
    model = cached_model(model_path())
    assert model is not None
    assert NumpyIdentifier(model, native=False).classify(SENTENCES[2]) == numpy_identifier.classify(SENTENCES[2])


def test_an_unknown_model_layout_falls_back_to_py3langid(cache_home: Path, monkeypatch: pytest.MonkeyPatch,
                                                         reference) -> None:
    def unknown(identifier: object) -> WalkModel:
        raise AttributeError("tk_nextmove")

    monkeypatch.setattr(WalkModel, "from_py3langid", staticmethod(unknown))
    assert cached_model(model_path()) is None
    langid_cache.language_classifier.cache_clear()
    try:
        classify = langid_cache.language_classifier()
        assert classify(SENTENCES[3]) == reference.classify(SENTENCES[3])
    finally:
        langid_cache.language_classifier.cache_clear()
