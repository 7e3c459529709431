"""LinkRank on a synthetic web-like graph (10M nodes, 100M links) against a bare scipy.sparse power iteration.

Steps (each a measured subprocess):

1. ``write_graph`` — a worker of this module draws the graph and installs it as a web graph
   (``nodes`` and ``inlinks`` tables, as ``gossamer webgraph`` writes them; the ``outlinks``
   table, which LinkRank does not read, is left out): hosts of 100 pages, a heavy-tailed
   out-degree, 70 % of links inside the host and 30 % to pages drawn with a power-law
   preference, no self links, no repeated links.
2. ``peer_scipy`` — the peer: reads the link ids and the out-degrees from the same Parquet
   files, builds a ``scipy.sparse`` CSR matrix, runs the same number of iterations of the same
   formula and writes the scores as a Parquet file.
3. ``linkrank`` — ``gossamer linkrank -webgraphdb …`` (reads the tables, iterates, installs a
   new ``nodes`` version).
4. ``compare`` — the scores of 2 and 3 must agree (largest difference < 1e-9).
5. ``write_small_graph`` (and a copy), ``linkrank_small_local``, ``linkrank_small_spark`` — a graph
   1/10 the size scored by the local engine and by ``--engine spark -D spark.master=local[2]``; then
   ``compare_small``: the same scores.

Goals: LinkRank's wall time ≤ 2 × the peer's (both including reading and writing tables), and
its peak memory (process tree) < 4 GB.

Worker: ``python -m bench.linkrank_bench write|scipy|compare …`` (JSON on stdout).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from bench import MB, REPO_ROOT, BenchOptions
from bench.inject_bench import gossamer_executable
from bench.steps import StepRunner, work_dir

NAME = "linkrank"
DESCRIPTION = "LinkRank of a 10M-node / 100M-link graph vs a bare scipy.sparse power iteration; Spark = local"
DEFAULT_NODES, QUICK_NODES, LINKS_PER_NODE, PAGES_PER_HOST = 10_000_000, 200_000, 10, 100
ITERATIONS, DAMPING = 10, 0.85
TIME_GOAL, MEMORY_GOAL_MB = 2.0, 4096


def log(message: str) -> None:
    print(f"[linkrank] {message}", file=sys.stderr, flush=True)


def draw_graph(nodes: int, links: int, seed: int) -> tuple[Any, Any, Any]:
    """URLs and distinct links (``from``, ``to`` positions) of a web-like graph."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(seed)
    weights = rng.pareto(1.5, nodes) + 1.0
    out_degree = np.floor(weights / weights.sum() * links * 1.3).astype(np.int64)
    src = np.repeat(np.arange(nodes, dtype=np.int64), out_degree)
    local = rng.random(len(src)) < 0.7
    host_start = src // PAGES_PER_HOST * PAGES_PER_HOST
    dst = np.where(local, host_start + rng.integers(0, PAGES_PER_HOST, len(src)),
                   rng.permutation(nodes)[np.minimum((nodes * rng.random(len(src)) ** 2.5).astype(np.int64),
                                                     nodes - 1)])
    dst = np.minimum(dst, nodes - 1)
    keys = np.unique(src[src != dst] * nodes + dst[src != dst])
    if len(keys) > links:
        keys = np.sort(rng.choice(keys, links, replace=False))
    index = pa.array(np.arange(nodes))
    urls = pc.binary_join_element_wise(
        "http://host", pc.divide(index, PAGES_PER_HOST).cast(pa.string()), ".example.com/page/",
        index.cast(pa.string()), "")
    return urls, keys // nodes, keys % nodes


def write(directory: Path, nodes: int, seed: int) -> dict[str, Any]:
    """Draw the graph and install it as a web graph in ``directory``."""
    from gossamer.core import load_settings
    from gossamer.graph import write_graph

    started = time.perf_counter()
    urls, src, dst = draw_graph(nodes, nodes * LINKS_PER_NODE, seed)
    drawn = time.perf_counter() - started
    write_graph(directory, urls, src, dst, load_settings(), with_outlinks=False)
    return {"nodes": nodes, "links": int(len(src)), "draw_s": round(drawn, 1),
            "seconds": round(time.perf_counter() - started, 1)}


def _live(table: Path) -> list[Path]:
    version = table / "current"
    return sorted(version.glob("part-*.parquet"))


def scipy_rank(directory: Path, out: Path) -> dict[str, Any]:
    """The peer: CSR power iteration over the stored ids; scores written to ``out`` (Parquet)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    import scipy.sparse as sp

    started = time.perf_counter()
    degree_parts = [pq.read_table(p, columns=["num_outlinks"]).column("num_outlinks").to_numpy()
                    for p in _live(directory / "nodes")]
    offsets = np.concatenate([[0], np.cumsum([len(part) for part in degree_parts])])
    outdeg = np.concatenate(degree_parts).astype(np.float64)
    n = int(offsets[-1])
    rows, cols = [], []
    for path in _live(directory / "inlinks"):
        table = pq.read_table(path, columns=["from_id", "to_id"])
        for column, into in (("from_id", cols), ("to_id", rows)):
            ids = table.column(column).to_numpy()
            into.append((offsets[ids >> 40] + (ids & ((1 << 40) - 1))).astype(np.int32))
    src, dst = np.concatenate(cols), np.concatenate(rows)
    del rows, cols
    read = time.perf_counter() - started
    matrix = sp.csr_matrix((1.0 / outdeg[src], (dst, src)), shape=(n, n))
    del src, dst
    built = time.perf_counter() - started
    rank = np.ones(n)
    for _ in range(ITERATIONS):
        rank = (1 - DAMPING) + DAMPING * (1.0 / n + matrix @ rank)
    iterated = time.perf_counter() - started
    pq.write_table(pa.table({"score": rank}), out)
    return {"nodes": n, "links": int(matrix.nnz), "read_s": round(read, 2), "build_s": round(built - read, 2),
            "iterate_s": round(iterated - built, 2), "seconds": round(time.perf_counter() - started, 2)}


def compare(directory: Path, peer_scores: Path | None, other: Path | None) -> dict[str, Any]:
    """Largest score difference between the installed nodes and the peer's scores (or another graph's)."""
    import numpy as np
    import pyarrow.parquet as pq

    def scores(root: Path) -> Any:
        return np.concatenate([pq.read_table(p, columns=["score"]).column("score").to_numpy()
                               for p in _live(root / "nodes")])

    ours = scores(directory)
    theirs = pq.read_table(peer_scores).column("score").to_numpy() if peer_scores else scores(other)  # type: ignore[arg-type]
    return {"nodes": len(ours), "max_abs_diff": float(np.abs(ours - theirs).max()) if len(ours) else 0.0,
            "top_score": float(ours.max()) if len(ours) else 0.0}


def _run_in(work: Path, nodes: int, opts: BenchOptions) -> dict[str, Any]:
    gossamer = gossamer_executable()
    runner = StepRunner(work / "logs", nodes, log)
    me = [sys.executable, "-m", "bench.linkrank_bench"]
    graph, small = work / "webgraph", work / "small" / "webgraph"
    written = runner.step("write_graph", [*me, "write", str(graph), str(nodes), str(opts.seed)])
    if written is None:
        return {"nodes": nodes, "steps": runner.steps, "checks": runner.checks, "goals": []}
    peer = runner.step("peer_scipy", [*me, "scipy", str(graph), str(work / "scipy-scores.parquet")])
    ours = runner.step("linkrank", [gossamer, "linkrank", "-webgraphdb", str(graph)])
    same = runner.step("compare", [*me, "compare", str(graph), str(work / "scipy-scores.parquet")])
    detail = json.loads(same.stdout) if same is not None else {}
    runner.check("same_scores_as_scipy", detail.get("max_abs_diff", 1.0) < 1e-9, json.dumps(detail))
    small_nodes = max(nodes // 10, 1000)
    runner.step("write_small_graph", [*me, "write", str(small), str(small_nodes), str(opts.seed)])
    spark_copy = work / "small-spark" / "webgraph"
    spark_copy.parent.mkdir(parents=True)
    runner.step("copy_small_graph", ["cp", "-a", str(small), str(spark_copy)])
    runner.step("linkrank_small_local", [gossamer, "linkrank", "-webgraphdb", str(small)])
    runner.step("linkrank_small_spark", [gossamer, "linkrank", "-webgraphdb", str(spark_copy), "--engine", "spark",
                                         "-D", "spark.master=local[2]"])
    same_small = runner.step("compare_small", [*me, "compare", str(small), "-", str(spark_copy)])
    detail_small = json.loads(same_small.stdout) if same_small is not None else {}
    runner.check("spark_equals_local", detail_small.get("max_abs_diff", 1.0) < 1e-12, json.dumps(detail_small))
    ratio = ours.wall_s / peer.wall_s if ours is not None and peer is not None else None
    peak = ours.peak_tree_rss_bytes / MB if ours is not None else None
    goals = [{"goal": f"linkrank wall time <= {TIME_GOAL} x the scipy.sparse peer (both reading and writing tables)",
              "met": ratio is not None and ratio <= TIME_GOAL, "value": ratio},
             {"goal": f"linkrank peak memory (process tree) < {MEMORY_GOAL_MB} MB", "met": peak is not None
              and peak < MEMORY_GOAL_MB, "value_mb": peak}]
    return {"nodes": nodes, "graph": json.loads(written.stdout), "peer": json.loads(peer.stdout) if peer else None,
            "ratios": {"linkrank_over_scipy_wall": ratio}, "steps": runner.steps, "checks": runner.checks,
            "goals": goals}


def run(opts: BenchOptions) -> dict[str, Any]:
    """Write the graph, run the peer and LinkRank, compare; the same on Spark for a graph a tenth the size."""
    nodes = opts.urls if opts.urls is not None else (QUICK_NODES if opts.quick else DEFAULT_NODES)
    with work_dir(opts, NAME, log) as work:
        return _run_in(work, nodes, opts)


def main(argv: list[str]) -> int:
    """Worker entry: ``write DIR NODES SEED`` | ``scipy DIR OUT`` | ``compare DIR PEER|- [OTHER]``."""
    sys.path.insert(0, str(REPO_ROOT / "src"))
    if len(argv) == 4 and argv[0] == "write":
        result = write(Path(argv[1]), int(argv[2]), int(argv[3]))
    elif len(argv) == 3 and argv[0] == "scipy":
        result = scipy_rank(Path(argv[1]), Path(argv[2]))
    elif len(argv) in (3, 4) and argv[0] == "compare":
        result = compare(Path(argv[1]), None if argv[2] == "-" else Path(argv[2]),
                         Path(argv[3]) if len(argv) == 4 else None)
    else:
        print("usage: python -m bench.linkrank_bench write DIR NODES SEED | scipy DIR OUT | compare DIR PEER|- [OTHER]",
              file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
