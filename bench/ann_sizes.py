"""Exact vs graph nearest-neighbour search over page vectors, by size (issue 20 point 4).

``python -m bench.ann_sizes VECTORS.npy [SIZES…]``: the doc web's real page vectors (a shard's
``vectors.npy`` from an index built with ``search.semantic=true``) grown to each size by adding
mixtures of two of its rows (unit length again), then for 200 queries (rows of the original plus
noise): CPU ms per query of exact search (the matrix product of
:class:`gossamer.search.semantic.SemanticIndex`) and of the usearch graph
(:mod:`gossamer.index.ann`, 30 neighbours), the graph's build CPU seconds and its recall@30
against exact. One thread each; JSON on stdout.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from gossamer.index.ann import ann_rows, open_ann, set_expansion, write_ann

K = 30
QUERIES = 200


def grown(base: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` unit rows: ``base``, then mixtures of two random rows of it (new pages between real ones)."""
    extra = max(0, size - len(base))
    pairs = rng.integers(0, len(base), (extra, 2))
    share = rng.uniform(0.2, 0.8, (extra, 1)).astype(np.float32)
    matrix = np.concatenate([base[:size], share * base[pairs[:, 0]] + (1 - share) * base[pairs[:, 1]]])
    return (matrix / np.linalg.norm(matrix, axis=1, keepdims=True)).astype(np.float32)


def measure(matrix: np.ndarray, queries: np.ndarray) -> dict[str, float]:
    """CPU ms per query, exact and by graph, the build's CPU seconds and recall@K."""
    start = time.process_time()
    exact = []
    for q in queries:
        scores = matrix @ q
        exact.append(set(np.argpartition(-scores, K - 1)[:K].tolist()))
    exact_ms = (time.process_time() - start) * 1000 / len(queries)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        write_ann(Path(tmp), matrix.astype(np.float16), 1)
        build_s = time.process_time() - start
        graph = open_ann(Path(tmp), len(matrix))
        assert graph is not None
        set_expansion(graph, K)
        start = time.process_time()
        found = [set(ann_rows(graph, q, K).tolist()) for q in queries]
        graph_ms = (time.process_time() - start) * 1000 / len(queries)
    recall = float(np.mean([len(f & e) / K for f, e in zip(found, exact, strict=True)]))
    return {"exact_ms": round(exact_ms, 3), "graph_ms": round(graph_ms, 3), "build_cpu_s": round(build_s, 2),
            "recall_at_30": round(recall, 4)}


def main(argv: list[str]) -> None:
    """Print the measurements of every size as JSON."""
    base = np.load(argv[0]).astype(np.float32)
    sizes = [int(s) for s in argv[1:]] or [10_000, 50_000, 100_000, 300_000]
    rng = np.random.default_rng(42)
    out = {}
    for size in sizes:
        matrix = grown(base, size, rng)
        picks = rng.integers(0, len(base), QUERIES)
        queries = base[picks] + 0.1 * rng.standard_normal((QUERIES, base.shape[1])).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        out[size] = measure(matrix, queries)
        print(size, out[size], file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
