"""Page and query embeddings from a static embedding model whose weights ship inside a PyPI package.

A *static* embedding model (Model2Vec style) maps each token of a text to a
stored vector and averages them: no neural network runs at embedding time, so a
page costs about a quarter of a millisecond on one core and a query a tenth of a
millisecond.  The built-in model is ``tokenlearn-static-model`` (PyPI, MIT): a
multilingual Unigram tokenizer (276k pieces) whose vectors are quantized to
10,000 shared 64-dimensional int8 rows, with a per-token weight; 3.9 MB of
weights and a 10 MB tokenizer inside the wheel.  Its vectors are computed by
:mod:`gossamer.index.static_tokens` (the same bits as the package's Rust core,
token ids cached per distinct word), the package's encoder taking the texts that
module leaves to it.  Nothing is downloaded at run time.

Contract of :class:`Embedder`: ``embed(texts)`` returns a ``float32`` array of
shape ``(len(texts), dim)`` whose rows have unit length, or are all zero when a
text has no token the model knows (an empty page, a query of punctuation); the
same text always gives the same vector.  :func:`page_text` is what a page
contributes: its title, then the first ``chars`` characters of its opening (else of its text).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_MODEL = "tokenlearn-static-64"
BATCH = 512
_ENCODE_LOCK = threading.Lock()


class EmbeddingError(RuntimeError):
    """The configured model is unknown or its package is not installed."""


class Embedder:
    """A named embedding model (see the module docstring for the contract)."""

    def __init__(self, name: str, dim: int, encode: Callable[[list[str]], Any]) -> None:
        self.name = name
        self.dim = dim
        self._encode = encode

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length (or zero) ``float32`` rows, one per text."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            chunk = [t if isinstance(t, str) else "" for t in texts[start:start + BATCH]]
            with _ENCODE_LOCK:
                rows = np.asarray(self._encode(chunk), dtype=np.float32).reshape(len(chunk), self.dim)
            out[start:start + len(chunk)] = rows
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


def _tokenlearn() -> Embedder:
    try:
        import static_model
        from static_model import ensure_model_ready, get_embeddings
    except ImportError as exc:
        raise EmbeddingError("search.semantic.model=tokenlearn-static-64 needs the package "
                             "tokenlearn-static-model (pip install 'tokenlearn-static-model>=0.1.1,<0.2')") from exc
    from gossamer.index.static_tokens import encoder

    def package(texts: list[str]) -> Any:
        return get_embeddings(texts) if texts else []

    return Embedder(DEFAULT_MODEL, 64, encoder(ensure_model_ready(Path(static_model.__file__).parent / "model"),
                                               package))


MODELS: dict[str, Callable[[], Embedder]] = {DEFAULT_MODEL: _tokenlearn}
"""Model name -> loader.  A loader raises :class:`EmbeddingError` when its package is missing."""


@cache
def embedder(name: str = DEFAULT_MODEL) -> Embedder:
    """The model called ``name``, loaded once per process; :class:`EmbeddingError` when unknown or missing."""
    loader = MODELS.get(name)
    if loader is None:
        raise EmbeddingError(f"unknown embedding model {name!r} (one of {', '.join(sorted(MODELS))})")
    return loader()


def page_text(doc: Mapping[str, Any], chars: int) -> str:
    """What a page contributes to its embedding: the title, then the first ``chars`` characters of its opening.

    The opening (``index-opening``: the first prose of the page's main content) describes the page;
    a page without one gives the start of its text instead, which on most sites is navigation.
    """
    title = doc.get("title")
    opening = doc.get("opening")
    content = opening if isinstance(opening, str) and opening else doc.get("content")
    title = title if isinstance(title, str) else ""
    content = content[:chars] if isinstance(content, str) else ""
    return f"{title}\n{content}" if title else content


__all__ = ["DEFAULT_MODEL", "MODELS", "Embedder", "EmbeddingError", "embedder", "page_text"]
