"""A web graph's tables written straight from arrays (imports of other link graphs, tests, benchmarks).

:func:`write_graph` takes node URLs and links as index arrays and installs a
complete graph generation under ``<webgraph_dir>/{outlinks,nodes,inlinks}`` —
the same tables, partitioning, order and ids ``gossamer webgraph`` produces
(:mod:`gossamer.graph.schema`) — with vectorised Arrow and numpy work, so a graph
of 10⁸ links is written in minutes.  Links are taken as given: no host or
domain rules are applied; ``counted`` marks which ones LinkRank counts (all by
default).  Each table is installed under its lock.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import Settings
from gossamer.engine import table_lock
from gossamer.graph.schema import (
    GENERATION_PREFIX,
    INLINKS,
    INLINKS_SCHEMA,
    NODE_ID_SHIFT,
    NODES,
    NODES_SCHEMA,
    OUTLINKS,
    OUTLINKS_SCHEMA,
    dense_ids,
)
from gossamer.store import (
    PartWriter,
    Place,
    TableDescription,
    as_place,
    discard,
    finish_version,
    install,
    new_staging_dir,
    part_name,
    parts_of_urls,
)

PartRows = Callable[[int], pa.Table]


def write_graph(webgraph_dir: Place | str, urls: pa.Array, from_index: np.ndarray, to_index: np.ndarray,
                settings: Settings, *, counted: np.ndarray | None = None, with_outlinks: bool = True,
                timestamp: int = 0) -> str:
    """Install a graph of ``urls`` (distinct) and links ``from_index[i] → to_index[i]`` (positions in ``urls``).

    Only URLs that are the source or target of a link become nodes, as in a graph
    built from segments.  ``with_outlinks=False`` leaves the ``outlinks`` table out
    (LinkRank does not read it).  Returns the generation name (``graph:<token>``).
    """
    parts = settings.get_int("store.parts")
    from_index, to_index = np.asarray(from_index, np.int64), np.asarray(to_index, np.int64)
    used = np.zeros(len(urls), dtype=bool)
    used[from_index] = used[to_index] = True
    node_index = np.flatnonzero(used)
    node_urls = urls.take(pa.array(node_index))
    node_parts = parts_of_urls(node_urls, parts).to_numpy().astype(np.int64)
    order = pc.sort_indices(pa.table({"p": node_parts, "u": node_urls}),
                            sort_keys=[("p", "ascending"), ("u", "ascending")]).to_numpy()
    sorted_parts = node_parts[order]
    counts = np.bincount(sorted_parts, minlength=parts)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    ids_sorted = (sorted_parts << NODE_ID_SHIFT) | (np.arange(len(order)) - offsets[sorted_parts])
    id_of = np.full(len(urls), -1, dtype=np.int64)
    id_of[node_index[order]] = ids_sorted
    sorted_urls = node_urls.take(pa.array(order))
    from_ids, to_ids = id_of[from_index], id_of[to_index]
    dense_from, dense_to = dense_ids(from_ids, offsets), dense_ids(to_ids, offsets)
    inlinks_n = np.bincount(dense_to, minlength=len(order)).astype(np.int32)
    outlinks_n = np.bincount(dense_from, minlength=len(order)).astype(np.int32)
    kept = np.ones(len(from_ids), dtype=bool) if counted is None else np.asarray(counted, dtype=bool)
    generation = f"{GENERATION_PREFIX}{uuid.uuid4().hex}"
    root = as_place(webgraph_dir, settings)

    def node_part(p: int) -> pa.Table:
        lo, hi = offsets[p], offsets[p + 1]
        return pa.table([sorted_urls.slice(lo, hi - lo), pa.array(inlinks_n[lo:hi]), pa.array(outlinks_n[lo:hi]),
                         pa.array(np.full(hi - lo, settings.get_float("link.analyze.initial.score")))],
                        schema=NODES_SCHEMA)

    by_target = np.lexsort((from_ids, to_ids))
    target_bounds = np.searchsorted(to_ids[by_target] >> NODE_ID_SHIFT, np.arange(parts + 1))

    def inlink_part(p: int) -> pa.Table:
        rows = by_target[target_bounds[p]:target_bounds[p + 1]]
        return pa.table([sorted_urls.take(pa.array(dense_to[rows])), sorted_urls.take(pa.array(dense_from[rows])),
                         pa.array(np.full(len(rows), "", dtype=object), pa.string()),
                         pa.array(np.full(len(rows), timestamp, dtype=np.int64)),
                         pa.array(from_ids[rows]), pa.array(to_ids[rows]), pa.array(kept[rows])],
                        schema=INLINKS_SCHEMA)

    if with_outlinks:
        by_source = np.lexsort((dense_to, from_ids))
        source_bounds = np.searchsorted(from_ids[by_source] >> NODE_ID_SHIFT, np.arange(parts + 1))

        def outlink_part(p: int) -> pa.Table:
            rows = by_source[source_bounds[p]:source_bounds[p + 1]]
            return pa.table([sorted_urls.take(pa.array(dense_from[rows])),
                             sorted_urls.take(pa.array(dense_to[rows])),
                             pa.array(np.full(len(rows), "", dtype=object), pa.string()),
                             pa.array(np.full(len(rows), timestamp, dtype=np.int64))], schema=OUTLINKS_SCHEMA)

        _install(root / OUTLINKS, OUTLINKS, parts, OUTLINKS_SCHEMA, outlink_part, generation, settings)
    _install(root / NODES, NODES, parts, NODES_SCHEMA, node_part, generation, settings)
    _install(root / INLINKS, INLINKS, parts, INLINKS_SCHEMA, inlink_part, generation, settings)
    return generation


def _install(table_dir: Place, kind: str, parts: int, schema: pa.Schema, part_rows: PartRows, generation: str,
             settings: Settings) -> None:
    """Write every part of one table into a staging version and install it under the table's lock."""
    lock = table_lock(table_dir, settings)
    lock.acquire()
    try:
        staging = new_staging_dir(table_dir)
        try:
            rows = 0
            for part in range(parts):
                writer = PartWriter(staging / part_name(part), schema, settings.get_int("store.row.group.rows"),
                                    settings.get_str("store.compression"))
                try:
                    table = part_rows(part)
                    rows += table.num_rows
                    for batch in table.to_batches(max_chunksize=65536):
                        writer.write(batch)
                finally:
                    writer.close()
            finish_version(staging, TableDescription(kind=kind, parts=parts, rows=rows, job="write-graph",
                                                     created=int(time.time() * 1000), absorbed=(generation,)))
            install(table_dir, staging, keep_backup=settings.get_bool("db.preserve.backup"))
        except BaseException:
            discard(staging)
            raise
    finally:
        lock.release()
