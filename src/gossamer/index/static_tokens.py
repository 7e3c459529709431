"""The built-in static embedding model computed in Python, with token ids cached per distinct word.

``tokenlearn-static-model``'s Rust encoder (``encode_batch``) normalizes a text (a
SentencePiece precompiled character map), splits it on whitespace, cuts each word into
Unigram pieces, keeps the first :data:`MAX_TOKENS` tokens and averages their weighted
int8 rows.  It spends ~1.4 µs per word, for every word of every page, although pages
repeat their words (the doc web: 1.56M words, 75k distinct).  :class:`StaticTokens`
computes the same vectors from the model files inside that package:

* a word is cut into pieces once (the Unigram best path, :mod:`gossamer.index.unigram`) and its
  token ids are kept; with a :class:`~gossamer.index.word_store.WordStore` (as :func:`encoder`
  gives it) they are also kept on disk for the next process, and the model's pieces load only
  when a word is not known yet;
* the pooling does the same float32 operations in the same order: the products
  ``row * weight`` summed token by token, times ``1 / n``, divided by the square root of the
  squares summed dimension by dimension.

Contract: :meth:`StaticTokens.encode` returns, for each text, the very float32 vector
``encode_batch`` gives (bit for bit, tested on the doc web's 41k page texts), or ``None`` for a
text it does not handle; :func:`encoder` encodes those with the package itself.  The character
map is applied per character, which is what the Rust side does when every grapheme of the text
is one character: a text with a character that can join its neighbour into one grapheme (marks,
zero-width joiners, jamo, regional indicators, emoji modifiers), a character Python's Unicode
tables do not know, the Metaspace ``▁`` or one of the tokenizer's added tokens (``<pad>``,
``<unk>``) is left to the package.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from collections.abc import Callable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from gossamer.index.static_chars import ADDED, CONTROL, CharMap, CharRules, charmap_text
from gossamer.index.unigram import Unigram
from gossamer.index.word_store import WordStore

MAX_TOKENS = 512
"""Tokens of a text that count (the package's ``max_length``)."""
WORD_CACHE = 300_000
"""Distinct words whose token ids are kept; the cache starts again beyond that (memory stays bounded)."""
WIDE_SPACE_BEFORE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x7f]")
"""A white space beyond ASCII followed by a character beyond ASCII.  Normalized whole, such a text may lose a
combining mark there (no-break space + U+0301 becomes one space, as in the package), while the mark looked up as a
word of its own (after ``str.split``) keeps its token: such texts take the whole-text path."""
class StaticTokens:
    """The model of one package directory (``config.json``, ``tokenizer.json``, ``model.safetensors``)."""

    def __init__(self, model_dir: Path, store: WordStore | None = None) -> None:
        self.tokenizer = model_dir / "tokenizer.json"
        self.rules = CharRules(CharMap(base64.b64decode(charmap_text(self.tokenizer.read_bytes()))))
        self._unigram: Unigram | None = None
        self.store = store
        tensors = _safetensors(model_dir / "model.safetensors")
        self.mapping = tensors["mapping"].astype(np.int64)
        self.weights = tensors["weights"].astype(np.float32)
        self.rows = tensors["embeddings"]
        self.dim = int(self.rows.shape[1])
        self.words: dict[str, tuple[int, ...]] = store.load() if store is not None else {}
        """Word (normalized) -> its token ids."""
        self.fresh: dict[str, tuple[int, ...]] = {}
        """Words cut since the store was last written."""
        self.raw: dict[str, tuple[int, ...]] = {}
        """Word as written (not ASCII) -> its token ids, where :meth:`CharRules.word` normalizes it."""

    @property
    def unigram(self) -> Unigram:
        """The pieces of the model, loaded on the first word that is not known yet (~0.3 s)."""
        if self._unigram is None:
            self._unigram = Unigram(orjson.loads(self.tokenizer.read_bytes())["model"])
        return self._unigram

    def encode(self, texts: Sequence[str]) -> list[np.ndarray | None]:
        """The package's vector of each text (float32), or ``None`` where the text is not handled.

        Words cut for these texts are then added to the store (when there is one).
        """
        ids = [self.token_ids(text) for text in texts]
        if self.fresh and self.store is not None:
            self.store.save(self.fresh)
        self.fresh = {}
        done = [i for i, row in enumerate(ids) if row]
        out: list[np.ndarray | None] = [None if row is None else np.zeros(self.dim, np.float32) for row in ids]
        if done:
            for i, row in zip(done, self._pool([ids[i] for i in done]), strict=True):  # type: ignore[misc]
                out[i] = row
        return out

    def _pool(self, ids: list[list[int]]) -> np.ndarray:
        """The unit vectors of texts given by their token ids (none empty), as the package computes them.

        A text's products ``row * weight`` are summed token after token, the Rust loop's order (a
        NumPy reduce may sum pairwise): the texts, longest first, start from their first product and
        add their j-th at step j, one vectorized add over the texts still that long.  Products are
        computed once per distinct token of the batch.
        """
        lengths = np.array([len(row) for row in ids], np.int64)
        flat = np.fromiter(chain.from_iterable(ids), np.int64, int(lengths.sum()))
        tokens, which = np.unique(flat, return_inverse=True)
        products = self.rows[self.mapping[tokens]].astype(np.float32) * self.weights[tokens][:, None]
        order = np.argsort(-lengths, kind="stable")
        starts = (np.cumsum(lengths) - lengths)[order]
        longest = lengths[order].tolist()
        sums = products[which[starts]]
        active = len(longest)
        for step in range(1, longest[0]):
            while longest[active - 1] <= step:
                active -= 1
            sums[:active] += products[which[starts[:active] + step]]
        sums *= (np.float32(1) / lengths[order].astype(np.float32))[:, None]
        squares = sums * sums
        norms = np.zeros(len(ids), np.float32)
        for dim in range(self.dim):  # dimension after dimension (a reduce may sum pairwise)
            norms += squares[:, dim]
        np.sqrt(norms, out=norms)
        np.divide(sums, norms[:, None], out=sums, where=norms[:, None] > 0)
        pooled = np.empty_like(sums)
        pooled[order] = sums
        return pooled

    def token_ids(self, text: str) -> list[int] | None:
        """The token ids the package would use for ``text`` (at most :data:`MAX_TOKENS`), or ``None``.

        Each word as written is looked up first (normalized on its own, see
        :meth:`~gossamer.index.static_chars.CharRules.word`); a text where that is not exact is
        normalized whole (:meth:`_whole`).
        """
        if "<" in text and any(token in text for token in ADDED):
            return None
        if not self.rules.by_word or CONTROL.search(text) or (not text.isascii() and WIDE_SPACE_BEFORE.search(text)):
            return self._whole(text)
        words = self.words
        if len(words) > WORD_CACHE:
            words.clear()
            self.raw.clear()
        split = text.split()
        found = list(map(words.get, split))
        if None in found:
            count = 0
            for k, ids in enumerate(found):
                if ids is None:
                    word = split[k]  # cut by now if it came earlier in the text
                    ids = words.get(word) or self.raw.get(word) or self._word(word)
                    if ids is None:
                        return self._whole(text)
                    found[k] = ids
                count += len(ids)
                if count >= MAX_TOKENS:  # the words after these are not cut
                    del found[k + 1:]
                    break
        out = list(chain.from_iterable(found))  # type: ignore[arg-type]
        return out[:MAX_TOKENS] if len(out) > MAX_TOKENS else out

    def _word(self, word: str) -> tuple[int, ...] | None:
        """The token ids of a word as written (None: the text must be normalized whole)."""
        if word.isascii():  # printable ASCII is kept as it is (CharRules.by_word)
            return self._cut(word)
        normalized = self.rules.word(word)
        if normalized is None or any(token in normalized for token in ADDED):
            return None
        ids = self.raw[word] = tuple(chain.from_iterable(self.words.get(part) or self._cut(part)
                                                         for part in normalized.split()))
        return ids

    def _cut(self, word: str) -> tuple[int, ...]:
        """A normalized word's token ids, cut now and kept (in :attr:`words`, and :attr:`fresh` for the store)."""
        ids = self.words[word] = self.fresh[word] = self.unigram.cut(word)
        return ids

    def _whole(self, text: str) -> list[int] | None:
        """:meth:`token_ids` with the text normalized whole, then split into words."""
        if not text.isascii() or CONTROL.search(text):
            normalized = self.rules.normalize(text)
            if normalized is None or any(token in normalized for token in ADDED):
                return None
            text = normalized
        words = self.words
        out: list[int] = []
        for word in text.split():
            out.extend(words.get(word) or self._cut(word))
            if len(out) >= MAX_TOKENS:
                return out[:MAX_TOKENS]
        return out


def _safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file (little-endian), read with NumPy."""
    types = {"I64": "<i8", "I32": "<i4", "F32": "<f4", "I8": "i1"}
    raw = path.read_bytes()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    out: dict[str, np.ndarray] = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        first, last = spec["data_offsets"]
        out[name] = np.frombuffer(raw, types[spec["dtype"]], (last - first) // np.dtype(types[spec["dtype"]]).itemsize,
                                  8 + size + first).reshape(spec["shape"])
    return out


def encoder(model_dir: Path, package: Callable[[list[str]], Any]) -> Callable[[list[str]], np.ndarray]:
    """``encode(texts)``: the package's float32 vectors, one row per text.

    :class:`StaticTokens` (built on first use, with the model's :class:`~gossamer.index.word_store.WordStore`)
    computes those it handles, ``package`` (the package's own encoder, whose model loads only then) the others.
    """
    model: list[StaticTokens] = []

    def encode(texts: list[str]) -> np.ndarray:
        if not model:
            store = WordStore.for_tokenizer(model_dir / "tokenizer.json", WORD_CACHE)
            model.append(StaticTokens(model_dir, store))
        rows = model[0].encode(texts)
        rest = [i for i, row in enumerate(rows) if row is None]
        if rest:
            vectors = np.asarray(package([texts[i] for i in rest]), np.float32).reshape(len(rest), model[0].dim)
            for i, row in zip(rest, vectors, strict=True):
                rows[i] = row
        return np.stack(rows) if rows else np.zeros((0, model[0].dim), np.float32)  # type: ignore[arg-type]

    return encode


__all__ = ["MAX_TOKENS", "StaticTokens", "encoder"]
