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
import unicodedata
from collections.abc import Callable, Sequence
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from gossamer.index.unigram import Unigram
from gossamer.index.word_store import WordStore

MAX_TOKENS = 512
"""Tokens of a text that count (the package's ``max_length``)."""
WORD_CACHE = 300_000
"""Distinct words whose token ids are kept; the cache starts again beyond that (memory stays bounded)."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ADDED = ("<pad>", "<unk>")
_JOINING_CATEGORIES = frozenset({"Cs", "Cn"})
_MARK_CATEGORIES = frozenset({"Mn", "Mc", "Me"})
_CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
_JOINING_RANGES = ((0x1100, 0x11FF), (0xA960, 0xA97F), (0xD7B0, 0xD7FF),  # Hangul jamo (L, V, T)
                   (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF), (0xFF9E, 0xFF9F),  # regional indicators, modifiers
                   (0xE0000, 0xE0FFF))  # tags
_JOINING = frozenset({0x0E33, 0x0EB3, 0x0D4E, 0x111C2, 0x111C3, 0x1193F, 0x11941, 0x11A3A, 0x11D46, 0x11F02,
                      *range(0x11A84, 0x11A8A), 0x094D, 0x09CD, 0x0ACD, 0x0B4D, 0x0C4D, 0x0D4D, 0x2581})
"""Letters that are grapheme ``SpacingMark`` or ``Prepend``, viramas that join two consonants (``InCB=Linker``),
and Metaspace's ``▁``: a text holding one is left to the package."""
_ALONE_FORMAT = frozenset({0x00AD, 0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF})
"""Format characters that are graphemes of their own (``Control``); every other one is left to the package."""


class _CharMap:
    """SentencePiece's precompiled character map: a double-array trie of the strings it rewrites."""

    def __init__(self, blob: bytes) -> None:
        size = struct.unpack("<I", blob[:4])[0]
        self.units: list[int] = np.frombuffer(blob[4:4 + size], "<u4").tolist()
        self.normalized = blob[4 + size:]

    def rewrite(self, key: bytes) -> str | None:
        """What the map makes of ``key``: the text of its shortest entry that is a prefix of ``key``, else None."""
        units = self.units
        unit = units[0]
        pos = (unit >> 10) << ((unit & 512) >> 6)
        for byte in key:
            pos ^= byte
            unit = units[pos]
            if unit & 0x800000FF != byte:
                return None
            pos ^= (unit >> 10) << ((unit & 512) >> 6)
            if (unit >> 8) & 1:
                start = units[pos] & 0x7FFFFFFF
                return self.normalized[start:self.normalized.index(b"\0", start)].decode("utf-8")
        return None


class StaticTokens:
    """The model of one package directory (``config.json``, ``tokenizer.json``, ``model.safetensors``)."""

    def __init__(self, model_dir: Path, store: WordStore | None = None) -> None:
        self.tokenizer = model_dir / "tokenizer.json"
        self.charmap = _CharMap(base64.b64decode(_charmap_text(self.tokenizer.read_bytes())))
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
        self.chars: dict[str, str | bool | None] = {}
        """Character -> its rewrite (None: kept; False: a text holding it is left to the package)."""
        self.marks: set[str] = set()
        """Combining marks seen: they join the character before them into one grapheme."""

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
            lengths = np.array([len(ids[i]) for i in done], np.int64)  # type: ignore[arg-type]
            flat = np.fromiter(chain.from_iterable(ids[i] for i in done), np.int64, int(lengths.sum()))  # type: ignore[arg-type]
            products = self.rows[self.mapping[flat]].astype(np.float32) * self.weights[flat][:, None]
            ends = np.cumsum(lengths).tolist()
            # reduce along axis 0 adds row after row, the Rust loop's order (reduceat does not)
            sums = np.stack([np.add.reduce(products[end - length:end], axis=0)
                             for end, length in zip(ends, lengths.tolist(), strict=True)])
            sums *= (np.float32(1) / lengths.astype(np.float32))[:, None]
            squares = sums * sums
            norms = np.zeros(len(done), np.float32)
            for dim in range(self.dim):  # dimension after dimension (a reduce may sum pairwise)
                norms += squares[:, dim]
            np.sqrt(norms, out=norms)
            np.divide(sums, norms[:, None], out=sums, where=norms[:, None] > 0)
            for i, row in zip(done, sums, strict=True):
                out[i] = row
        return out

    def token_ids(self, text: str) -> list[int] | None:
        """The token ids the package would use for ``text`` (at most :data:`MAX_TOKENS`), or ``None``."""
        if any(token in text for token in _ADDED):
            return None
        if not text.isascii() or _CONTROL.search(text):
            normalized = self.normalize(text)
            if normalized is None or any(token in normalized for token in _ADDED):
                return None
            text = normalized
        words = self.words
        if len(words) > WORD_CACHE:
            words.clear()
        out: list[int] = []
        for word in text.split():
            ids = words.get(word)
            if ids is None:
                ids = words[word] = self.fresh[word] = self.unigram.cut(word)
            out.extend(ids)
            if len(out) >= MAX_TOKENS:
                return out[:MAX_TOKENS]
        return out

    def normalize(self, text: str) -> str | None:
        """``text`` through the character map, grapheme by grapheme (None: not possible, see the contract).

        Spaces, tabs, newlines and carriage returns may become other whitespace: the split is the same.
        """
        table: dict[int, str] = {}
        marks: list[str] = []
        for char in set(text):
            rule = self.chars.get(char, True)
            if rule is True:
                rule = self.chars[char] = self._rule(char)
            if rule is False:
                return None
            if char in self.marks:
                marks.append(char)
            if rule is not None:
                table[ord(char)] = rule  # type: ignore[assignment]
        if marks:
            return self._with_marks(text, marks, table)
        return text.translate(table) if table else text

    def _with_marks(self, text: str, marks: list[str], table: dict[int, str]) -> str:
        """``text`` normalized where combining marks join the character before them into one grapheme.

        A grapheme (a character and the marks after it, or marks alone after a control character) of
        fewer than 6 bytes is rewritten whole when the map has an entry for its start, else character
        by character, as the Rust normalizer does.
        """
        out: list[str] = []
        done = 0
        for match in re.finditer(f"(.?)([{''.join(map(re.escape, marks))}]+)", text, re.DOTALL):
            base, run = match.group(1), match.group(2)
            if base and unicodedata.category(base) in _CONTROL_CATEGORIES or ord(base or " ") in _ALONE_FORMAT:
                out.append(text[done:match.start(2)].translate(table))
                cluster = run
            else:
                out.append(text[done:match.start(1)].translate(table))
                cluster = base + run
            whole = self.charmap.rewrite(cluster.encode("utf-8")) if len(cluster.encode("utf-8")) < 6 else None
            out.append(cluster.translate(table) if whole is None else whole)
            done = match.end()
        out.append(text[done:].translate(table))
        return "".join(out)

    def _rule(self, char: str) -> str | bool | None:
        code = ord(char)
        category = unicodedata.category(char)
        if (category in _JOINING_CATEGORIES or code in _JOINING or (category == "Cf" and code not in _ALONE_FORMAT)
                or any(low <= code <= high for low, high in _JOINING_RANGES)):
            return False
        if category in _MARK_CATEGORIES:
            self.marks.add(char)
        return self.charmap.rewrite(char.encode("utf-8"))


def _charmap_text(tokenizer: bytes) -> str:
    """The base64 text of the normalizer's ``precompiled_charsmap`` in ``tokenizer.json``'s bytes.

    Read by locating the one key rather than decoding the whole 10 MB file (the pieces are loaded
    only when a word must be cut); the whole file is decoded when the key is not found that way.
    """
    key = b'"precompiled_charsmap"'
    at = tokenizer.find(key)
    if at >= 0 and tokenizer.count(key) == 1:
        begin = tokenizer.find(b'"', at + len(key))
        end = tokenizer.find(b'"', begin + 1)
        if begin > 0 and end > begin and tokenizer[at + len(key):begin].strip() == b":":
            value = orjson.loads(tokenizer[begin:end + 1])
            if isinstance(value, str):
                return value
    return str(orjson.loads(tokenizer)["normalizer"]["precompiled_charsmap"])


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
