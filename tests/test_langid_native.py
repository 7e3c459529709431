"""language-identifier's C walk (``_langid``) gives what the NumPy walk and py3langid give, and fails safely."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py3langid.langid import MODEL_FILE, LanguageIdentifier

from gossamer.plugins.builtin import langid_native
from gossamer.plugins.builtin.langid_numpy import NumpyIdentifier, WalkModel

pytest.importorskip("gossamer.plugins.builtin._langid", reason="the optional C extension is not built")

WORDS = ("the quick brown fox über straße café naïve résumé пример текста 中文字符 日本語の文 ελληνικά "
         "عربي हिन्दी 한국어 fn main() { let x = vec![1, 2]; } <div class='x'>&amp;</div> 🔬 — © ’ "
         "DEF SELECT * FROM t WHERE a = 1; import numpy as np").split()


@pytest.fixture(scope="module")
def reference() -> LanguageIdentifier:
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@pytest.fixture(scope="module")
def model(reference: LanguageIdentifier) -> WalkModel:
    return WalkModel.from_py3langid(reference)


@pytest.fixture(scope="module")
def both(model: WalkModel) -> tuple[NumpyIdentifier, NumpyIdentifier]:
    return NumpyIdentifier(model, native=True), NumpyIdentifier(model, native=False)


def texts() -> list[str]:
    """Edge cases and 600 word salads of 0–1,100 characters in several scripts, seeded."""
    rng = random.Random(22)
    salads = [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(0, 160)))[: rng.randrange(0, 1_100)]
              for _ in range(600)]
    return ["", " ", "a", "ab", "abc", "ABC DEF", "x" * 40_000, "\x00\x01\xff", "\ud800 surrogate",
            "Der schnelle braune Fuchs springt über den faulen Hund.", *salads]


PROBABILITY_TOLERANCE = 1e-4
"""How far the C scoring's probabilities may be from py3langid's (float32 sums in another order: 1e-5 seen)."""


def assert_classified_alike(native: NumpyIdentifier, numpy_walk: NumpyIdentifier, text: str | bytes) -> None:
    """The C scores within :data:`PROBABILITY_TOLERANCE` of the exact NumPy path's (py3langid's).

    The same class too, unless the NumPy path's two most probable classes are within twice that of each other.
    """
    data = LanguageIdentifier._encode(text)  # bytes that are not UTF-8 are walked as they are
    scores, expected = native.scores(data), numpy_walk.scores(data)
    assert scores.dtype == expected.dtype and scores.shape == expected.shape
    assert float(np.abs(scores - expected).max()) <= PROBABILITY_TOLERANCE, data[:40]
    assert abs(float(scores.sum()) - 1.0) < 1e-5
    second, first = np.sort(expected)[-2:]
    if first - second > 2 * PROBABILITY_TOLERANCE:
        assert int(scores.argmax()) == int(expected.argmax()), data[:40]
    if isinstance(text, str):
        best, probability = native.classify(text)
        assert best == native.model.classes[int(scores.argmax())] and probability == float(scores.max())


def test_the_same_features_and_counts_as_the_numpy_walk_and_close_scores(both) -> None:
    native, numpy_walk = both
    for text in texts():
        data = LanguageIdentifier._encode(text)
        features, counts = native._native(data)
        expected_features, expected_counts = numpy_walk.counts(data)
        assert features.tolist() == expected_features.tolist()
        assert counts.dtype == expected_counts.dtype and counts.tolist() == expected_counts.tolist()
        assert_classified_alike(native, numpy_walk, text)


def test_the_same_language_as_py3langid_and_its_probability_within_rounding(both, reference) -> None:
    native, _ = both
    for text in texts():
        language, probability = native.classify(text)
        expected_language, expected_probability = reference.classify(text)
        assert language == expected_language, text[:40]
        assert abs(probability - expected_probability) <= PROBABILITY_TOLERANCE, text[:40]


def test_the_scoring_sums_each_features_weighted_row(model: WalkModel) -> None:
    """Against the formula written out in Python (float64), for a text of many features and repeats."""
    from gossamer.plugins.builtin import _langid

    native = NumpyIdentifier(model, native=True)._native
    assert native is not None and native.scores_natively
    data = ("Der schnelle braune Fuchs springt über den faulen Hund. " * 30).encode()
    features, counts = (array.copy() for array in native(data))
    sums = np.log1p(counts.astype(np.float64)) @ model.table[features].astype(np.float64) + model.prior
    sums /= np.sqrt(len(data))
    expected = np.exp(sums - sums.max())
    expected /= expected.sum()
    for keep, fold in model.aliases:
        expected[keep] += expected[fold]
        expected[fold] = 0.0
    out = np.empty(len(model.classes), dtype=np.float32)
    pairs = np.array(model.aliases, dtype=np.int64).reshape(-1, 2)
    best = _langid.score_features(features, counts, len(features), np.asarray(model.table, np.float32),
                                  np.asarray(model.prior, np.float32), len(data), pairs[:, 0].copy(),
                                  pairs[:, 1].copy(), out)
    assert out.tolist() == expected.astype(np.float32).tolist()
    assert best == int(expected.argmax()) and model.classes[best] == "de"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | st.text(alphabet="abcdefghij ÄÖÜäöüß€\u4e00\u0416", max_size=2_000)
       | st.binary(max_size=600))
def test_any_text_or_bytes_classified_as_py3langid_does(both, text: str | bytes) -> None:
    native, numpy_walk = both
    assert_classified_alike(native, numpy_walk, text)


def test_threads_each_get_their_own_buffers(both) -> None:
    native, _ = both
    sample = texts()[10:60]
    expected = [native.classify(text) for text in sample]  # on this thread alone
    results: list[list[tuple[str, float]]] = []

    def run() -> None:
        for _ in range(3):
            found = [native.classify(text) for text in sample]
        results.append(found)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 4


def test_a_damaged_model_raises_instead_of_reading_outside_it(model: WalkModel) -> None:
    rows = model.rows_next.copy()
    rows[(model.start_row << 8) | ord("a")] = len(rows) // 256  # a row past the table
    broken = NumpyIdentifier(WalkModel(rows, model.features_next, model.start_row, model.depth, model.two,
                                       model.table, model.prior, model.classes, model.aliases), native=True)
    with pytest.raises(ValueError, match="transition"):
        broken.classify("aaaa")
    features = model.features_next.copy()
    features[(model.start_row << 8) | ord("b")] = len(model.table)  # a feature past the slots
    broken = NumpyIdentifier(WalkModel(model.rows_next, features, model.start_row, model.depth, model.two,
                                       model.table, model.prior, model.classes, model.aliases), native=True)
    with pytest.raises(ValueError, match="feature"):
        broken.classify("bbbb")
    assert broken.classify("the slots were reset") == NumpyIdentifier(model, native=True).classify(
        "the slots were reset")


def test_bad_buffers_are_refused(model: WalkModel) -> None:
    from gossamer.plugins.builtin import _langid

    slots = np.full(len(model.table), -1, dtype=np.int32)
    features, counts = np.empty(4, dtype=np.int64), np.empty(4, dtype=np.float32)
    with pytest.raises(ValueError, match="len\\(data\\)"):
        _langid.count_features(b"too long", model.rows_next, model.features_next, model.start_row, slots,
                               features, counts)
    with pytest.raises(ValueError, match="fit"):
        _langid.count_features(b"ab", model.rows_next[:-1], model.features_next, model.start_row, slots,
                               features, counts)
    with pytest.raises(ValueError, match="fit"):
        _langid.count_features(b"ab", model.rows_next, model.features_next, len(model.rows_next), slots,
                               features, counts)
    with pytest.raises(ValueError, match="bytes"):
        _langid.count_features(b"ab", model.rows_next, model.features_next, model.start_row,
                               slots.astype(np.int64), features, counts)
    with pytest.raises(TypeError):
        _langid.count_features("ab", model.rows_next, model.features_next, model.start_row, slots, features,
                               counts)


def test_bad_scoring_buffers_are_refused(model: WalkModel) -> None:
    from gossamer.plugins.builtin import _langid

    table, prior = np.asarray(model.table, np.float32), np.asarray(model.prior, np.float32)
    features, counts = np.array([0, 1], dtype=np.int64), np.array([1.0, 2.0], dtype=np.float32)
    none = np.empty(0, dtype=np.int64)
    out = np.empty(len(model.classes), dtype=np.float32)
    assert 0 <= _langid.score_features(features, counts, 2, table, prior, 10, none, none, out) < len(out)
    with pytest.raises(ValueError, match="outside the table"):
        _langid.score_features(np.array([0, len(table)], dtype=np.int64), counts, 2, table, prior, 10, none, none,
                               out)
    with pytest.raises(ValueError, match="outside the table"):  # an alias pair naming a class past the table's
        _langid.score_features(features, counts, 2, table, prior, 10, np.array([0], dtype=np.int64),
                               np.array([len(out)], dtype=np.int64), out)
    with pytest.raises(ValueError, match="float32"):
        _langid.score_features(features, counts, 2, table.astype(np.float64), prior, 10, none, none, out)
    with pytest.raises(ValueError, match="k entries"):
        _langid.score_features(features, counts, 3, table, prior, 10, none, none, out)
    with pytest.raises(ValueError, match="fit"):
        _langid.score_features(features, counts, 2, table, prior[:-1], 10, none, none, out)
    with pytest.raises(ValueError, match="fit"):
        _langid.score_features(features, counts, 2, table, prior, 10, none, none, out[:-1])


def test_an_extension_without_scoring_still_counts_and_numpy_scores(model: WalkModel,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """An extension built from an older source (no ``score_features``): C counts, the exact NumPy scoring."""
    from gossamer.plugins.builtin import _langid

    class OldExtension:
        count_features = _langid.count_features

    monkeypatch.setattr(langid_native, "_loaded", lambda: OldExtension())
    identifier = NumpyIdentifier(model, native=True)
    assert identifier._native is not None and not identifier._native.scores_natively
    text = "Der schnelle braune Fuchs springt über den faulen Hund."
    assert identifier.classify(text) == NumpyIdentifier(model, native=False).classify(text)


def test_the_environment_selects_the_numpy_walk(model: WalkModel, monkeypatch: pytest.MonkeyPatch) -> None:
    assert langid_native.status() is None
    assert NumpyIdentifier(model)._native is not None
    monkeypatch.setenv(langid_native.ENV_VAR, "numpy")
    assert langid_native.status() == "GOSSAMER_LANGID=numpy"
    assert NumpyIdentifier(model)._native is None
    assert NumpyIdentifier(model, native=True)._native is not None


def test_without_the_extension_the_numpy_walk_runs(model: WalkModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(langid_native, "_loaded", lambda: "the C extension is not built (test)")
    assert langid_native.status() == "the C extension is not built (test)"
    assert NumpyIdentifier(model)._native is None
    with pytest.raises(ValueError, match="not built"):
        NumpyIdentifier(model, native=True)
