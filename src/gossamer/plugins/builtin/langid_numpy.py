"""py3langid's ``classify`` computed with NumPy array steps: the same language and probability, ~2x faster.

py3langid identifies a language by walking the text's UTF-8 bytes through a DFA,
one byte per Python loop turn, counting the n-gram features the states it
reaches stand for, and scoring the counts with a naive Bayes table.  The DFA is
an Aho-Corasick automaton: the state after a byte is the longest suffix of the
bytes read so far that is a path from the start state, so it depends only on
the last :attr:`WalkModel.depth` bytes (the longest such path: 6 in the model
py3langid ships).  :class:`NumpyIdentifier` therefore walks every window of
that many bytes from the start state at once, as a few NumPy gathers over the
whole text, and reaches exactly the states of the byte-by-byte walk.

States are represented by their transition row (py3langid shares identical rows
between states): ``rows_next[row * 256 + byte]`` is the row of the next state
and ``features_next[row * 256 + byte]`` the feature it emits (``-1``: none).

The features are counted in order of first occurrence, as py3langid's
``Counter`` is, and scored with the same NumPy operations in the same order on a
``float32`` copy of the table (the cast NumPy made from ``float16`` on every
page, made once), so scores and probabilities are bit-for-bit py3langid's.
First occurrences are found without sorting: ``np.minimum.at`` writes each
feature's first position into a scratch array of one slot per feature (kept by
the identifier, reset after each text), and a feature's count is the number of
positions whose first position is its own (``np.bincount`` over ≤ text-length
slots); each thread has its own scratch array.

When the optional C extension ``_langid`` is built, the features and counts come
from it instead (py3langid's byte-by-byte walk in C, ~4x cheaper than the NumPy
walk; :mod:`~gossamer.plugins.builtin.langid_native`; :meth:`NumpyIdentifier.counts`
is the reference) and so do the scores: the same sums in double precision, so the
probabilities are py3langid's within float32 rounding rather than bit for bit.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from py3langid.langid import LanguageIdentifier

from gossamer.plugins.builtin.langid_native import native_counter

_BYTE = np.arange(256, dtype=np.int64)
_POSITIONS32 = np.arange(1 << 15, dtype=np.int32)
"""Positions of a text's emitted features (more are made for a text of over 32 Ki features)."""
_NO_POSITION = np.iinfo(np.int32).max
_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@dataclass(frozen=True)
class WalkModel:
    """py3langid's model as the arrays the NumPy walk reads (see the module docstring)."""

    rows_next: np.ndarray
    features_next: np.ndarray
    start_row: int
    depth: int
    two: np.ndarray
    """Row after two bytes read from the start state, by ``first_byte * 256 + second_byte``."""
    table: np.ndarray
    prior: np.ndarray
    classes: tuple[str, ...]
    aliases: tuple[tuple[int, int], ...]

    @classmethod
    def from_py3langid(cls, identifier: Any) -> WalkModel:
        """The arrays of a py3langid ``LanguageIdentifier`` (AttributeError/TypeError for another layout)."""
        moves = identifier.tk_nextmove
        nextmove = np.frombuffer(moves, dtype=_UINT[moves.itemsize]) if not isinstance(moves, np.ndarray) \
            else moves
        state_row = np.asarray(identifier.tk_row, dtype=np.int64)
        outputs = np.asarray(identifier.tk_output, dtype=np.int32)
        rows_next = state_row[nextmove].astype(np.uint16 if state_row.max() < 1 << 16 else np.uint32)
        start_row = int(state_row[0])
        first = rows_next[(start_row << 8) + _BYTE].astype(np.int64)
        two = rows_next[((first << 8)[:, None] + _BYTE[None, :]).ravel()].astype(np.int32)
        return cls(rows_next, outputs[nextmove], start_row, automaton_depth(nextmove, state_row), two,
                   np.asarray(identifier.nb_ptc, dtype=np.float32), np.asarray(identifier.nb_pc),
                   tuple(identifier.nb_classes), tuple((int(a), int(b)) for a, b in identifier._alias_pairs))

    def check(self) -> None:
        """ValueError unless the arrays fit together (e.g. read back from a damaged cache)."""
        rows = len(self.rows_next)
        if (rows % 256 or len(self.features_next) != rows or self.two.shape != (1 << 16,)
                or self.table.ndim != 2 or self.table.shape[1] != len(self.classes)
                or self.prior.shape != (len(self.classes),) or not 3 <= self.depth <= 64
                or not 0 <= self.start_row < rows // 256):
            raise ValueError("language model arrays do not fit together")


def automaton_depth(nextmove: np.ndarray, state_row: np.ndarray) -> int:
    """The longest shortest path from the start state (state 0): how many bytes decide a state.

    ``nextmove[state_row[s] * 256 + byte]`` is the state after ``s`` reads ``byte``.  A
    breadth-first search, expanding each transition row once per level.
    """
    seen = np.zeros(len(state_row), dtype=bool)
    seen[0] = True
    frontier = np.array([0], dtype=np.int64)
    depth = 0
    while True:
        rows = np.unique(state_row[frontier]).astype(np.int64)
        fresh = np.zeros_like(seen)
        fresh[nextmove[((rows << 8)[:, None] + _BYTE[None, :]).ravel()]] = True
        fresh &= ~seen
        if not fresh.any():
            return depth
        seen |= fresh
        frontier = np.flatnonzero(fresh)
        depth += 1


class NumpyIdentifier:
    """``classify(text) -> (language, probability)`` as py3langid's ``LanguageIdentifier`` (exactly on the NumPy path).

    The model must come from an identifier made with ``norm_probs=True`` and no ``min_confidence``.
    """

    def __init__(self, model: WalkModel, native: bool | None = None) -> None:
        """An identifier over ``model``; ``native`` selects the walk.

        In C (``True``; ValueError when the extension is not built), with NumPy (``False``), or in C when
        :func:`~gossamer.plugins.builtin.langid_native.status` allows it (``None``).
        """
        self.model = model
        self._native = native_counter(model, required=bool(native)) if native is not False else None
        self._scratch = threading.local()
        """Per thread, ``first``: a feature's first position in the text being scored (:data:`_NO_POSITION` between
        texts)."""
        keeps, folds = (list(side) for side in zip(*model.aliases, strict=True)) if model.aliases else ([], [])
        self._folds = (np.array(keeps, dtype=np.intp), np.array(folds, dtype=np.intp)) \
            if len(set(keeps) | set(folds)) == 2 * len(keeps) else None
        """The alias pairs as index arrays when no class is in two pairs (one step for all; else pair by pair)."""

    def features(self, data: bytes) -> np.ndarray:
        """The feature emitted after each byte of ``data`` (``-1`` where none), as py3langid's walk emits them.

        ``rows[i]`` is the row after the window before byte ``i`` (bytes ``i - depth + 1`` … ``i - 1``,
        from byte 0 near the start), built in ``depth - 1`` steps: a step with offset ``k`` reads byte
        ``i - k`` at every position where it exists; positions where it does not stay at the start row,
        which is where their shorter window begins.  The first two steps are one look-up in :attr:`WalkModel.two`.
        """
        m = self.model
        text = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
        n = len(text)
        last = m.depth - 1  # bytes of the window before the byte whose transition emits the feature
        rows = np.full(n, m.start_row, dtype=np.int64)
        if n > last:
            rows[last:] = m.two[(text[:n - last] << 8) | text[1:n - last + 1]]
        if n >= last:  # the first position with a window of last - 1 bytes: the first step alone
            rows[last - 1] = m.rows_next[(m.start_row << 8) | int(text[0])]
        for step in range(2, last):
            offset = last - step
            if offset < n:
                rows[offset:] = m.rows_next[(rows[offset:] << 8) | text[:n - offset]]
        return m.features_next[(rows << 8) | text]

    def counts(self, data: bytes) -> tuple[np.ndarray, np.ndarray]:
        """The distinct features the walk over ``data`` emits and their counts: the NumPy path of ``_langid``.

        Features in order of first occurrence (as py3langid's ``Counter``), counts as float32.
        """
        found = self.features(data)
        emitted = found[found >= 0]
        k = len(emitted)
        if not k:
            return emitted, np.zeros(0, dtype=np.float32)
        positions = _POSITIONS32[:k] if k <= len(_POSITIONS32) else np.arange(k, dtype=np.int32)
        first = getattr(self._scratch, "first", None)
        if first is None:
            first = self._scratch.first = np.full(len(self.model.table), _NO_POSITION, dtype=np.int32)
        np.minimum.at(first, emitted, positions)
        first_of = first[emitted]  # each emitted feature's first position
        is_first = first_of == positions
        features = emitted[is_first]
        first[features] = _NO_POSITION
        return features, np.bincount(first_of, minlength=k)[is_first].astype(np.float32)

    def scores(self, data: bytes) -> np.ndarray:
        """Class probabilities of the encoded text ``data`` (py3langid's ``_decide`` with ``norm_probs``)."""
        if self._native is not None and self._native.scores_natively:
            return self._native.score(data)[1].copy()
        m = self.model
        features, counts = self._native(data) if self._native is not None else self.counts(data)
        if len(features):
            scores = np.log1p(counts) @ m.table[features] + m.prior
        else:
            scores = np.zeros(len(m.classes), dtype=np.float32)
        scores *= 1.0 / math.sqrt(len(data) or 1)
        np.exp(scores - scores.max(), out=scores)
        scores /= scores.sum()
        if self._folds is not None:
            keeps, folds = self._folds
            scores[keeps] += scores[folds]
            scores[folds] = 0.0
        else:
            for keep, fold in m.aliases:
                scores[keep] += scores[fold]
                scores[fold] = 0.0
        return scores

    def classify(self, text: str) -> tuple[str, float]:
        """The language of ``text`` and its probability."""
        if self._native is not None and self._native.scores_natively:
            best, scores = self._native.score(LanguageIdentifier._encode(text))
            return self.model.classes[best], float(scores[best])
        scores = self.scores(LanguageIdentifier._encode(text))
        best = int(scores.argmax())
        return self.model.classes[best], float(scores[best])


__all__ = ["NumpyIdentifier", "WalkModel", "automaton_depth"]
