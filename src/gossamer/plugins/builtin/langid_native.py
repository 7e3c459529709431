"""language-identifier's automaton walk in C (``_langid``): loading, the fallback, the per-thread buffers.

:class:`~gossamer.plugins.builtin.langid_numpy.NumpyIdentifier` scores a text from its
distinct n-gram features in order of first occurrence and their counts.  The C
extension finds them with one byte-by-byte walk through the model's transition rows
(py3langid's own walk, without its Python loop) instead of the NumPy walk over
every window; the scoring stays in NumPy, on the same arrays, so the results are
the same bit for bit (``tests/test_langid_native.py`` compares both paths with
py3langid).

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
    model's arrays are damaged (a transition or feature out of range).
    """

    def __init__(self, model: Any, module: Any) -> None:
        """``model``: a :class:`~gossamer.plugins.builtin.langid_numpy.WalkModel`; ``module``: ``_langid``."""
        self._count = module.count_features
        self._rows, self._features = model.rows_next, model.features_next
        self._start = model.start_row
        self._slots = len(model.table)
        self._local = threading.local()

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
