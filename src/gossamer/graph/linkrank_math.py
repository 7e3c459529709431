"""LinkRank's arithmetic over one part of the graph at a time (numpy; no I/O).

LinkRank (Nutch 1.x's ``LinkRank``; ``reference/nutch-behaviour.md`` §7.5) gives
every node, at each iteration::

    score'(v) = (1 - d) + d × (1/N + Σ_{u→v counted} score(u) / outlinks(u))

where ``N`` is the number of nodes, ``d`` the damping factor and ``outlinks(u)`` the
node's ``num_outlinks`` (every kept outlink, counted or not, as Nutch divides by
the node's outlink count).  A node without outlinks passes nothing on.

The graph is held as one :class:`PartEdges` per part of the ``inlinks`` table:
the links whose *target* lies in that part, as dense source ids (``0 … N-1``)
and target rows local to the part.  :func:`part_sums` is the whole per-part work
of an iteration, so the same function runs in this process (local engine) or in an
engine task per part (Spark) and gives the same floats either way.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gossamer.graph.schema import NODE_ID_SHIFT

ROW_MASK = (1 << NODE_ID_SHIFT) - 1


@dataclass(frozen=True)
class PartEdges:
    """The counted links into the nodes of one part.

    ``sources``: dense ids of the link sources (int32 when ``N`` < 2³¹);
    ``targets``: the target's row in the part (int32); ``rows``: nodes in the part.
    """

    sources: np.ndarray
    targets: np.ndarray
    rows: int

    @property
    def links(self) -> int:
        """Number of links held."""
        return len(self.sources)


def id_dtype(nodes: int) -> type[np.signedinteger]:
    """The smallest integer type that holds dense ids of ``nodes`` nodes."""
    return np.int32 if nodes < 2**31 else np.int64


def part_edges(part: int, from_ids: np.ndarray, to_ids: np.ndarray, keep: np.ndarray | None,
               part_offsets: np.ndarray, part_rows: int) -> PartEdges:
    """Build one part's :class:`PartEdges` from stored ids (``keep``: a mask of the links to use).

    ``part_offsets[p]``: nodes in the parts before ``p`` (length parts + 1).
    Raises :class:`ValueError` when an id points outside the nodes version (a graph
    of another generation).
    """
    from_ids = np.asarray(from_ids, dtype=np.int64)
    to_ids = np.asarray(to_ids, dtype=np.int64)
    if keep is not None:
        from_ids, to_ids = from_ids[keep], to_ids[keep]
    nodes = int(part_offsets[-1])
    dtype = id_dtype(nodes)
    if len(to_ids) and (np.any(to_ids >> NODE_ID_SHIFT != part) or int((to_ids & ROW_MASK).max()) >= part_rows):
        raise ValueError(f"inlinks part {part} names targets outside nodes part {part}")
    source_parts = from_ids >> NODE_ID_SHIFT
    if len(from_ids) and (source_parts.min() < 0 or source_parts.max() >= len(part_offsets) - 1):
        raise ValueError(f"inlinks part {part} names sources outside the nodes table")
    sources = part_offsets[source_parts] + (from_ids & ROW_MASK)
    if len(sources) and int((sources >= part_offsets[source_parts + 1]).sum()):
        raise ValueError(f"inlinks part {part} names source rows beyond their nodes part")
    return PartEdges(sources.astype(dtype), (to_ids & ROW_MASK).astype(np.int32), part_rows)


def contributions(scores: np.ndarray, outlinks: np.ndarray) -> np.ndarray:
    """What each node passes along each of its outlinks: ``score / num_outlinks`` (0 without outlinks)."""
    out = np.zeros_like(scores)
    np.divide(scores, outlinks, out=out, where=outlinks > 0)
    return out


def part_sums(edges: PartEdges, contribution: np.ndarray) -> np.ndarray:
    """Σ of the contributions over each target's counted inlinks, for the part's rows (float64)."""
    if edges.links == 0:
        return np.zeros(edges.rows, dtype=np.float64)
    return np.bincount(edges.targets, weights=contribution[edges.sources], minlength=edges.rows)


def next_scores(sums: np.ndarray, nodes: int, damping: float) -> np.ndarray:
    """``(1 - d) + d × (1/N + sums)``: the new scores from the inlink sums."""
    return (1.0 - damping) + damping * (1.0 / nodes + sums)
