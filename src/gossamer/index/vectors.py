"""Page vectors stored with each index shard, in the same atomic index version as tantivy's files.

Each shard directory of an index built with ``search.semantic=true`` holds, beside
tantivy's files::

    shard-00000/vectors.npy     float16, shape (pages, dim): one unit-length row per page
    shard-00000/vectors.json    {"model": name, "dim": d, "ids": [url, …]}: row i is page ids[i]

Both are written by the index writer into the *staging* version (new files under
temporary names, then renamed over the names hard-linked from the live version,
so the live version's files are never changed) and installed with it; tantivy
ignores files it did not create.  A version has vectors for all its shards or
for none, and :func:`read_vectors` refuses a pair that disagrees (clear error).

:class:`ShardVectorWriter` carries one shard's vectors into the next version:
the live rows of pages neither replaced nor deleted, then the rows of the pages
written in this run, embedded in batches as they arrive.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gossamer.core import Settings
from gossamer.index.ann import ANN_FILE, write_ann
from gossamer.index.embeddings import BATCH, Embedder, embedder, page_text
from gossamer.store import TableError, fsync_path

VECTORS_FILE = "vectors.npy"
VECTOR_IDS_FILE = "vectors.json"


@dataclass
class ShardVectors:
    """One shard's page vectors: ``ids[i]`` is the URL of row ``i`` of ``matrix`` (float16)."""

    model: str
    matrix: np.ndarray
    ids: list[str]

    @property
    def dim(self) -> int:
        """Vector dimensions."""
        return int(self.matrix.shape[1])


def has_vectors(shard_dir: Path) -> bool:
    """Whether ``shard_dir`` holds vectors."""
    return (shard_dir / VECTOR_IDS_FILE).is_file()


def read_vectors(shard_dir: Path) -> ShardVectors | None:
    """The vectors of one shard (``None`` when it has none); :class:`TableError` when they are damaged."""
    if not has_vectors(shard_dir):
        return None
    try:
        meta = json.loads((shard_dir / VECTOR_IDS_FILE).read_text(encoding="utf-8"))
        matrix = np.load(shard_dir / VECTORS_FILE, allow_pickle=False)
        ids = [str(i) for i in meta["ids"]]
        model = str(meta["model"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TableError(f"{shard_dir}: unreadable page vectors ({exc})") from exc
    if matrix.ndim != 2 or matrix.shape[0] != len(ids) or matrix.shape[1] != int(meta.get("dim", -1)):
        raise TableError(f"{shard_dir}: page vectors and their ids disagree ({matrix.shape} for {len(ids)} ids)")
    return ShardVectors(model, matrix, ids)


def write_vectors(shard_dir: Path, vectors: ShardVectors) -> None:
    """Write a shard's vectors under new names, then rename them into place (never writing through a link)."""
    matrix_tmp = shard_dir / f".{VECTORS_FILE}.tmp"
    ids_tmp = shard_dir / f".{VECTOR_IDS_FILE}.tmp"
    with open(matrix_tmp, "wb") as out:
        np.save(out, np.ascontiguousarray(vectors.matrix, dtype=np.float16), allow_pickle=False)
    meta = {"model": vectors.model, "dim": vectors.dim, "ids": vectors.ids}
    ids_tmp.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    for tmp, name in ((matrix_tmp, VECTORS_FILE), (ids_tmp, VECTOR_IDS_FILE)):
        fsync_path(tmp)
        os.replace(tmp, shard_dir / name)


class ShardVectorWriter:
    """Builds the vectors of one shard's next version (see the module docstring)."""

    ann_min_vectors: int = 0
    """Rows from which :func:`finish_vectors` also builds the shard's nearest-neighbour graph (0 = never)."""

    def __init__(self, embedder: Embedder, chars: int, live: ShardVectors | None) -> None:
        self.embedder = embedder
        self.chars = chars
        self.live = live if live is not None and live.model == embedder.name else None
        self.rows: dict[str, int] = {url: i for i, url in enumerate(self.live.ids)} if self.live else {}
        self.pending: dict[str, str | np.ndarray] = {}
        self.new_ids: list[str] = []
        self.new_set: set[str] = set()
        """The URLs of :attr:`new_ids`, for membership tests (a list scan per delete was quadratic)."""
        self.new_rows: list[np.ndarray] = []

    def write(self, url: str, doc: Mapping[str, Any]) -> None:
        """Replace ``url``'s vector by the embedding of ``doc`` (embedded with the next batch).

        A document that carries its vector already (``doc.vector``, a ``dim``-long row the
        index job embedded with this writer's model) is not embedded again.
        """
        self.rows.pop(url, None)
        self.pending.pop(url, None)
        vector = getattr(doc, "vector", None)
        if vector is not None and len(vector) != self.embedder.dim:
            raise ValueError(f"{url}: a page vector of {len(vector)} dimensions for a {self.embedder.dim}-"
                             "dimensional model")
        self.pending[url] = page_text(doc, self.chars) if vector is None else vector
        if len(self.pending) >= BATCH:
            self._flush()

    def delete(self, url: str) -> None:
        """Drop ``url``'s vector."""
        self.rows.pop(url, None)
        if self.pending.pop(url, None) is None and url in self.new_set:
            keep = [i for i, u in enumerate(self.new_ids) if u != url]
            self._restack(keep)

    def _restack(self, keep: list[int]) -> None:
        matrix = np.concatenate(self.new_rows) if self.new_rows else np.zeros((0, self.embedder.dim), np.float16)
        self.new_ids = [self.new_ids[i] for i in keep]
        self.new_set = set(self.new_ids)
        self.new_rows = [matrix[keep]]

    def _flush(self) -> None:
        if not self.pending:
            return
        urls = list(self.pending)
        values = list(self.pending.values())
        matrix = np.zeros((len(urls), self.embedder.dim), np.float16)
        texts = [i for i, value in enumerate(values) if isinstance(value, str)]
        if texts:
            matrix[texts] = self.embedder.embed([values[i] for i in texts]).astype(np.float16)
        for i, value in enumerate(values):
            if not isinstance(value, str):
                matrix[i] = value
        self.pending = {}
        replaced = self.new_set.intersection(urls)
        if replaced:
            self._restack([i for i, u in enumerate(self.new_ids) if u not in replaced])
        self.new_ids.extend(urls)
        self.new_set.update(urls)
        self.new_rows.append(matrix)

    def result(self) -> ShardVectors:
        """The shard's vectors: kept live rows, then this run's rows."""
        self._flush()
        parts: list[np.ndarray] = []
        ids: list[str] = []
        if self.live is not None and self.rows:
            keep = sorted(self.rows.values())
            parts.append(np.asarray(self.live.matrix[keep], dtype=np.float16))
            ids.extend(self.live.ids[i] for i in keep)
        parts.extend(self.new_rows)
        ids.extend(self.new_ids)
        matrix = np.concatenate(parts) if parts else np.zeros((0, self.embedder.dim), np.float16)
        return ShardVectors(self.embedder.name, matrix, ids)


def vector_writers(settings: Settings, live: Path | None, staging: Path, shards: int) -> list[ShardVectorWriter]:
    """One writer per shard when ``search.semantic`` is on, else ``[]``.

    Off: vector files hard-linked from the live version are removed from the
    staging version (they would go stale), so the new version has none.
    """
    from gossamer.index.store import shard_name

    if not settings.get_bool("search.semantic"):
        for i in range(shards):
            for name in (VECTORS_FILE, VECTOR_IDS_FILE, ANN_FILE):
                (staging / shard_name(i) / name).unlink(missing_ok=True)
        return []
    model = embedder(settings.get_str("search.semantic.model"))
    chars = settings.get_int("search.semantic.page.chars")
    writers = [ShardVectorWriter(model, chars, read_vectors(live / shard_name(i)) if live is not None else None)
               for i in range(shards)]
    for writer in writers:
        writer.ann_min_vectors = settings.get_int("search.semantic.ann.min.vectors")
    return writers


def finish_vectors(writers: list[ShardVectorWriter], staging: Path) -> None:
    """Write every shard's vectors (and, for a large shard, its graph) into the staging version.

    Called before the version is marked complete.
    """
    from gossamer.index.store import shard_name

    for i, writer in enumerate(writers):
        vectors = writer.result()
        write_vectors(staging / shard_name(i), vectors)
        write_ann(staging / shard_name(i), vectors.matrix, writer.ann_min_vectors)


__all__ = ["VECTORS_FILE", "VECTOR_IDS_FILE", "ShardVectorWriter", "ShardVectors", "finish_vectors", "has_vectors",
           "read_vectors", "vector_writers", "write_vectors"]
