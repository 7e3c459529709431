"""language-identifier's automaton walk in C (``_langid``): loading, the fallback, the per-thread buffers.

:class:`~gossamer.plugins.builtin.langid_numpy.NumpyIdentifier` scores a text from its
distinct n-gram features in order of first occurrence and their counts.  The C
extension finds them with one byte-by-byte walk through the model's transition rows
(py3langid's own walk, without its Python loop) instead of the NumPy walk over
every window: the same features and counts, bit for bit.  It also scores them
(``score_features``: one pass over the model's rows, in double precision, with
AVX2 where the CPU has it), where the NumPy path takes a gather, a BLAS product
and ten small array steps — 33 → 16 µs a page of 1,024 characters (bench/README.md,
session 40).  Its probabilities are py3langid's within float32 rounding (py3langid
sums in float32 in another order: 4.1e-6 at most over the 41,132 samples of the doc
web, and the same language on every one); ``tests/test_langid_native.py`` bounds both.  An
extension built before ``score_features`` existed still counts, and NumPy scores.

The NumPy path is used instead when the extension was not built (no compiler at
install time: it is an optional extension) or when the environment variable
``GOSSAMER_LANGID`` is ``numpy`` (read when an identifier is made); :func:`status`
says which path runs and why.
"""

from __future__ import annotations

import importlib
import os
import threading
from functools import cache
from typing import Any

import numpy as np

ENV_VAR = "GOSSAMER_LANGID"
"""``numpy`` selects the NumPy walk for every identifier made afterwards in the process."""
_MIN_CAPACITY = 4096
"""Bytes of text the per-thread output buffers hold at first (they grow to the longest text seen)."""


@cache
def _loaded() -> Any | str:
    """The extension module, or the reason it cannot be used."""
    try:
        return importlib.import_module("gossamer.plugins.builtin._langid")
    except ImportError as error:
        return f"the C extension is not built ({error})"


def status() -> str | None:
    """``None`` when identifiers made now walk in C, else why they use the NumPy walk."""
    if os.environ.get(ENV_VAR, "").strip().lower() == "numpy":
        return f"{ENV_VAR}=numpy"
    loaded = _loaded()
    return loaded if isinstance(loaded, str) else None


class NativeCounter:
    """``counter(data) -> (features, counts)``: the features py3langid's walk emits over the bytes ``data``.

    The distinct features in order of first occurrence (int64), and how often each is emitted (float32). The
    arrays returned are views of the calling thread's buffers, valid until its next call. ValueError when the
    model's arrays are damaged (a transition or feature out of range).  :meth:`score` classifies in C as well,
    when :attr:`scores_natively`.
    """

    def __init__(self, model: Any, module: Any) -> None:
        """``model``: a :class:`~gossamer.plugins.builtin.langid_numpy.WalkModel`; ``module``: ``_langid``."""
        self._count = module.count_features
        self._score = getattr(module, "score_features", None)
        self._rows, self._features = model.rows_next, model.features_next
        self._start = model.start_row
        self._slots = len(model.table)
        self._table = np.ascontiguousarray(model.table, dtype=np.float32)
        self._prior = np.ascontiguousarray(model.prior, dtype=np.float32)
        pairs = np.array(model.aliases, dtype=np.int64).reshape(-1, 2)
        self._keeps, self._folds = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
        self._classes = len(model.classes)
        self._local = threading.local()

    @property
    def scores_natively(self) -> bool:
        """Whether the extension has ``score_features`` (one built from an older source has not)."""
        return self._score is not None

    def _buffers(self, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The calling thread's slots (one per feature, -1 between calls) and output buffers of at least ``size``."""
        local = self._local
        slots = getattr(local, "slots", None)
        if slots is None:
            slots = local.slots = np.full(self._slots, -1, dtype=np.int32)
            local.features = np.empty(0, dtype=np.int64)
            local.counts = np.empty(0, dtype=np.float32)
        if len(local.features) < size:
            capacity = max(size, _MIN_CAPACITY, 2 * len(local.features))
            local.features = np.empty(capacity, dtype=np.int64)
            local.counts = np.empty(capacity, dtype=np.float32)
        return slots, local.features, local.counts

    def __call__(self, data: bytes) -> tuple[np.ndarray, np.ndarray]:
        slots, features, counts = self._buffers(len(data))
        found = self._count(data, self._rows, self._features, self._start, slots, features, counts)
        return features[:found], counts[:found]

    def score(self, data: bytes) -> tuple[int, np.ndarray]:
        """The most probable class of ``data`` and every class's probability.

        The probabilities are float32, a view of the calling thread's buffer, valid until its next call.  Only
        when :attr:`scores_natively`.
        """
        assert self._score is not None
        slots, features, counts = self._buffers(len(data))
        found = self._count(data, self._rows, self._features, self._start, slots, features, counts)
        out = getattr(self._local, "scores", None)
        if out is None:
            out = self._local.scores = np.empty(self._classes, dtype=np.float32)
        best = self._score(features, counts, found, self._table, self._prior, len(data), self._keeps, self._folds,
                           out)
        return best, out


def native_counter(model: Any, *, required: bool = False) -> NativeCounter | None:
    """A :class:`NativeCounter` over ``model``, or ``None`` when the NumPy walk is to be used (see :func:`status`).

    ``required``: regardless of ``GOSSAMER_LANGID``, and ValueError when the extension is not built.
    """
    loaded = _loaded()
    if isinstance(loaded, str):
        if required:
            raise ValueError(f"the C language walk cannot run: {loaded}")
        return None
    if not required and status() is not None:
        return None
    return NativeCounter(model, loaded)


__all__ = ["ENV_VAR", "NativeCounter", "native_counter", "status"]
