"""The language identifier of ``language-identifier``, its model kept on disk ready to map into memory.

py3langid ships its model LZMA-compressed: every process that identifies a
language would spend ~0.6 s of CPU decompressing it, and ~0.3 s more deriving
the arrays of :class:`~gossamer.plugins.builtin.langid_numpy.WalkModel`.  The
first process to need them writes those arrays as ``.npy`` files into
:func:`cache_root` (``$XDG_CACHE_HOME/gossamer``, else ``~/.cache/gossamer``),
in a directory named after py3langid's version and its model file's size and
modification time, installed by an atomic rename; later processes map the files
read-only (a few milliseconds, and the pages are shared between processes).

Contract of :func:`language_classifier`: a function ``text -> (language, probability)``
as py3langid's ``LanguageIdentifier.classify`` with ``norm_probs=True`` gives it (the NumPy path
exactly; the C scoring's probabilities within float32 rounding, see
:mod:`~gossamer.plugins.builtin.langid_native`).  A
cache that cannot be written or read back is ignored (the model is then loaded
and derived in memory); a model whose layout the NumPy walk does not know is
classified by py3langid itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
from collections.abc import Callable
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

from gossamer.core import cache_root
from gossamer.plugins.builtin.langid_numpy import NumpyIdentifier, WalkModel

LOG = logging.getLogger(__name__)
FORMAT = 1
"""Version of the cache layout; part of the directory name."""
_ARRAYS = ("rows_next", "features_next", "two", "table", "prior")


def model_path() -> Path:
    """py3langid's shipped model file."""
    return MODEL_DIR / MODEL_FILE


def cache_dir(model: Path) -> Path:
    """The cache directory of ``model``: named after py3langid's version and the file's size and mtime."""
    try:
        package = version("py3langid")
    except PackageNotFoundError:
        package = "unknown"
    stat = model.stat()
    key = hashlib.sha256(f"{FORMAT}|{package}|{model.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode())
    return cache_root() / f"langid-{package}-{key.hexdigest()[:16]}"


def write_model(model: WalkModel, target: Path) -> None:
    """Write ``model`` into the directory ``target`` atomically (nothing when it appeared meanwhile)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for name in _ARRAYS:
            np.save(scratch / f"{name}.npy", getattr(model, name), allow_pickle=False)
        meta = {"start_row": model.start_row, "depth": model.depth, "classes": list(model.classes),
                "aliases": [list(pair) for pair in model.aliases]}
        (scratch / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        try:
            scratch.rename(target)
        except OSError:  # another process installed it first
            pass
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def read_model(directory: Path) -> WalkModel:
    """The model written by :func:`write_model`, its arrays mapped read-only (OSError/ValueError when damaged)."""
    meta = json.loads((directory / "meta.json").read_text(encoding="utf-8"))
    # plain ndarray views of the maps: indexing an np.memmap goes through Python code on every call
    arrays = {name: np.load(directory / f"{name}.npy", mmap_mode="r", allow_pickle=False).view(np.ndarray)
              for name in _ARRAYS}
    model = WalkModel(start_row=int(meta["start_row"]), depth=int(meta["depth"]),
                      classes=tuple(str(c) for c in meta["classes"]),
                      aliases=tuple((int(a), int(b)) for a, b in meta["aliases"]), **arrays)
    model.check()
    return model


def cached_model(model: Path) -> WalkModel | None:
    """The derived model of the py3langid model file ``model``: from the cache, else derived (and cached).

    ``None`` when the model's layout is not one the NumPy walk knows.
    """
    directory = cache_dir(model)
    try:
        if directory.is_dir():
            return read_model(directory)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        LOG.info("language model cache unreadable, deriving the model again: %s", exc)
        shutil.rmtree(directory, ignore_errors=True)
    try:
        derived = WalkModel.from_py3langid(LanguageIdentifier.from_model_file(model, norm_probs=True))
        derived.check()
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        return None
    try:
        write_model(derived, directory)
    except OSError as exc:
        LOG.info("language model cache not written: %s", exc)
    return derived


@cache
def language_classifier() -> Callable[[str], tuple[str, float]]:
    """py3langid's ``classify`` for the shipped model (see the module docstring); built once per process."""
    derived = cached_model(model_path())
    if derived is not None:
        return NumpyIdentifier(derived).classify
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return identifier.classify  # type: ignore[no-any-return]


__all__ = ["FORMAT", "cache_dir", "cache_root", "cached_model", "language_classifier", "model_path", "read_model",
           "write_model"]
