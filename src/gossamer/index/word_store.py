"""Token ids of words already cut into Unigram pieces, kept on disk from one run to the next.

Cutting a word the static model has not seen costs ~35-40 µs of Python (:mod:`gossamer.index.unigram`);
a crawl re-indexes mostly the same pages, so mostly the same words, every round.  A
:class:`WordStore` is a directory of part files, each holding words (normalized, no whitespace)
and their token ids; a process loads them all when its model starts and writes the words it had
to cut as a new part (written under a temporary name and renamed, so a reader never sees half a
part).  Parts accumulate; a process that finds more than :data:`MAX_PARTS` merges them into one.

The directory is named after the tokenizer file (path, size, modification time) and
:data:`~gossamer.index.unigram.CUT_VERSION`: another model or other cutting rules use another
store.  Contract: :meth:`WordStore.load` returns only what some process saved for this very
model (a damaged part is deleted and skipped); more than ``limit`` words start the store again;
a store that cannot be written is ignored (the words are then cut again next time).
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import time
from collections.abc import Mapping, Sequence
from itertools import chain
from pathlib import Path

import numpy as np

from gossamer.core import cache_root
from gossamer.index.unigram import CUT_VERSION

LOG = logging.getLogger(__name__)
FORMAT = 1
"""Version of the part layout; part of the directory name."""
MAX_PARTS = 32
"""Parts a loading process tolerates before merging them into one."""
SUFFIX = ".words"
STALE_SCRATCH_SECONDS = 600.0
"""A part's scratch file older than this was left by a process that died writing it (a write takes
milliseconds): :meth:`WordStore.load` deletes it."""
_HEADER = struct.Struct("<8sIII")
_MAGIC = b"GSWORDS1"


def encode_words(words: Mapping[str, Sequence[int]]) -> bytes:
    """One part's bytes: header, the words joined by newlines (UTF-8), ids per word (u32), the ids (i32)."""
    keys = [word for word in words if word and "\n" not in word]
    blob = "\n".join(keys).encode("utf-8")
    counts = np.fromiter((len(words[word]) for word in keys), np.uint32, len(keys))
    total = int(counts.sum())
    ids = np.fromiter(chain.from_iterable(words[word] for word in keys), np.int32, total)
    return _HEADER.pack(_MAGIC, len(keys), len(blob), total) + blob + counts.astype("<u4").tobytes() \
        + ids.astype("<i4").tobytes()


def decode_words(raw: bytes) -> dict[str, tuple[int, ...]]:
    """The words of a part written by :func:`encode_words` (ValueError when it is not one, or damaged)."""
    if len(raw) < _HEADER.size:
        raise ValueError("part too short")
    magic, n, size, total = _HEADER.unpack_from(raw)
    if magic != _MAGIC or len(raw) != _HEADER.size + size + 4 * n + 4 * total:
        raise ValueError("not a word part, or truncated")
    keys = raw[_HEADER.size:_HEADER.size + size].decode("utf-8").split("\n") if n else []
    counts = np.frombuffer(raw, "<u4", n, _HEADER.size + size)
    if len(keys) != n or int(counts.sum()) != total:
        raise ValueError("word part inconsistent")
    ids = np.frombuffer(raw, "<i4", total, _HEADER.size + size + 4 * n).tolist()
    out: dict[str, tuple[int, ...]] = {}
    begin = 0
    for key, end in zip(keys, np.cumsum(counts).tolist(), strict=True):
        out[key] = tuple(ids[begin:end])
        begin = end
    return out


class WordStore:
    """A directory of word parts (see the module docstring)."""

    def __init__(self, directory: Path, limit: int) -> None:
        self.directory = directory
        self.limit = limit
        self.stored = 0
        """Words loaded or saved by this process (saving stops at ``limit``)."""
        self.writable = True

    @classmethod
    def for_tokenizer(cls, tokenizer: Path, limit: int) -> WordStore:
        """The store of the model whose tokenizer file is ``tokenizer``, under :func:`~gossamer.core.cache_root`."""
        stat = tokenizer.stat()
        key = hashlib.sha256(f"{FORMAT}|{CUT_VERSION}|{tokenizer.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
                             .encode()).hexdigest()[:16]
        return cls(cache_root() / f"static-words-{key}", limit)

    def _parts(self) -> list[Path]:
        try:
            return sorted(path for path in self.directory.iterdir() if path.name.endswith(SUFFIX))
        except OSError:
            return []

    def _stale_scratch(self) -> list[Path]:
        """Scratch files of writers that died before renaming them (see :data:`STALE_SCRATCH_SECONDS`)."""
        limit = time.time() - STALE_SCRATCH_SECONDS
        stale = []
        try:
            for path in self.directory.iterdir():
                if path.name.startswith(".") and path.name.endswith(".tmp"):
                    try:
                        if path.stat().st_mtime < limit:
                            stale.append(path)
                    except FileNotFoundError:  # renamed meanwhile
                        continue
        except OSError:
            return []
        return stale

    def load(self) -> dict[str, tuple[int, ...]]:
        """Every word saved so far, with its token ids (empty when there is no store yet).

        Also deletes the scratch files of writers that died (older than :data:`STALE_SCRATCH_SECONDS`).
        """
        self._remove(self._stale_scratch())
        parts = self._parts()
        words: dict[str, tuple[int, ...]] = {}
        read: list[Path] = []
        for path in parts:
            try:
                words.update(decode_words(path.read_bytes()))
                read.append(path)
            except FileNotFoundError:  # merged away by another process meanwhile
                continue
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                LOG.info("word store part %s unreadable, deleted: %s", path, exc)
                self._remove([path])
        if len(words) > self.limit:
            self._remove(read)
            words = {}
        elif len(read) > MAX_PARTS and self.save(words):
            self._remove(read)
        self.stored = len(words)
        return words

    def save(self, words: Mapping[str, Sequence[int]]) -> bool:
        """Add ``words`` as a new part; False when not written (``limit`` words stored, or not writable)."""
        if not words or not self.writable or self.stored >= self.limit:
            return False
        name = f"{time.time_ns():020d}-{os.getpid()}{SUFFIX}"
        scratch = self.directory / f".{name}.tmp"
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            scratch.write_bytes(encode_words(words))
            os.replace(scratch, self.directory / name)
        except OSError as exc:
            LOG.info("word store %s not writable, words not kept: %s", self.directory, exc)
            self.writable = False
            self._remove([scratch])
            return False
        self.stored += len(words)
        return True

    def _remove(self, parts: list[Path]) -> None:
        for path in parts:
            try:
                path.unlink(missing_ok=True)
            except OSError:  # a store that cannot be cleaned is not written either
                self.writable = False


__all__ = ["FORMAT", "MAX_PARTS", "STALE_SCRATCH_SECONDS", "WordStore", "decode_words", "encode_words"]
