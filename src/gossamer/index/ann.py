"""An approximate nearest-neighbour index over a shard's page vectors, for large shards.

Exact search multiplies the query vector with every page vector: 0.75 ms of one core for 41k
pages, 2.1 ms for 100k (``python -m bench.ann_sizes``), about 4 ms for 200k.  A shard with at
least ``search.semantic.ann.min.vectors`` (200,000) vectors therefore also gets an HNSW graph
built with `usearch <https://github.com/unum-cloud/usearch>`_ (cosine, float16, 16 links per
node), in the same atomic index version as its vectors::

    shard-00000/vectors.usearch     row numbers of vectors.npy as keys

Search asks the graph for candidates and re-scores them exactly from the shard's matrix
(:func:`ann_rows`), so the cosines are the exact ones and only *which* pages are found is
approximate (recall@30 0.91 on the doc web's 41k vectors, 0.85 on 100k at 0.35 ms).  A graph
that cannot be read is ignored with a warning (exact search instead); a shard below the threshold has none.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import numpy as np

from gossamer.store import fsync_path

LOG = logging.getLogger(__name__)
ANN_FILE = "vectors.usearch"
CONNECTIVITY = 16
EXPANSION_ADD = 128
MIN_EXPANSION_SEARCH = 128


def _usearch() -> Any:
    from usearch.index import Index

    return Index


def write_ann(shard_dir: Path, matrix: np.ndarray, min_vectors: int) -> bool:
    """Build the shard's graph when it has ≥ ``min_vectors`` rows (≤ 0: never), else remove any; True if built.

    Written under a temporary name and renamed into place; a file hard-linked from the live
    version is replaced, never written through.
    """
    target = shard_dir / ANN_FILE
    if min_vectors <= 0 or len(matrix) < min_vectors:
        target.unlink(missing_ok=True)
        return False
    index = _usearch()(ndim=int(matrix.shape[1]), metric="cos", dtype="f16", connectivity=CONNECTIVITY,
                       expansion_add=EXPANSION_ADD)
    index.add(np.arange(len(matrix), dtype=np.uint64), np.asarray(matrix, dtype=np.float32),
              threads=os.cpu_count() or 1)
    tmp = shard_dir / f".{ANN_FILE}.tmp"
    index.save(str(tmp))
    fsync_path(tmp)
    os.replace(tmp, target)
    return True


def open_ann(shard_dir: Path, rows: int) -> Any | None:
    """The shard's graph, memory-mapped, or ``None`` (none, unreadable, or not for ``rows`` vectors)."""
    path = shard_dir / ANN_FILE
    if not path.is_file():
        return None
    try:
        index = _usearch().restore(str(path), view=True)
    except Exception as exc:  # noqa: BLE001 - any failure of a damaged file: exact search instead
        LOG.warning("%s: ignoring the nearest-neighbour graph (%s); searching exactly", path, exc)
        return None
    if index is None or len(index) != rows:
        LOG.warning("%s: the nearest-neighbour graph does not match the shard's %d vectors; searching exactly",
                    path, rows)
        return None
    return index


def ann_rows(index: Any, vector: np.ndarray, k: int) -> np.ndarray:
    """Row numbers of (about) the ``k`` rows nearest to ``vector`` in a graph from :func:`open_ann`."""
    found = index.search(np.asarray(vector, dtype=np.float32), k, exact=False)
    return np.asarray(found.keys, dtype=np.int64)


def set_expansion(index: Any, k: int) -> None:
    """Search with a candidate list of at least ``4 k`` (and :data:`MIN_EXPANSION_SEARCH`)."""
    index.expansion_search = max(MIN_EXPANSION_SEARCH, 4 * k)


__all__ = ["ANN_FILE", "ann_rows", "open_ann", "set_expansion", "write_ann"]
