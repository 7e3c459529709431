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


@dataclass(frozen=True)
class PartEdges:
    """The counted links into the nodes of one part, grouped by target.

    ``sources``: dense ids of the link sources (int32 when ``N`` < 2³¹), the links of
    one target side by side, targets in row order; ``starts``: where each target's
    links begin in ``sources``; ``targets``: those targets' rows in the part (int32);
    ``rows``: nodes in the part.
    """

    sources: np.ndarray
    starts: np.ndarray
    targets: np.ndarray
    rows: int

    @property
    def links(self) -> int:
        """Number of links held."""
        return len(self.sources)


def group_by_target(sources: np.ndarray, targets: np.ndarray, rows: int) -> PartEdges:
    """:class:`PartEdges` from links in any order (already sorted by target, as stored, costs one pass)."""
    if len(targets) > 1 and not bool(np.all(targets[1:] >= targets[:-1])):
        order = np.argsort(targets, kind="stable")
        sources, targets = sources[order], targets[order]
    if len(targets) == 0:
        return PartEdges(sources, np.zeros(0, np.int64), np.zeros(0, np.int32), rows)
    first = np.empty(len(targets), dtype=bool)
    first[0] = True
    np.not_equal(targets[1:], targets[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return PartEdges(sources, starts, targets[starts], rows)


def id_dtype(nodes: int) -> type[np.signedinteger]:
    """The smallest integer type that holds dense ids of ``nodes`` nodes."""
    return np.int32 if nodes < 2**31 else np.int64


def part_edges(part: int, from_ids: np.ndarray, to_ids: np.ndarray, keep: np.ndarray | None,
               part_offsets: np.ndarray, part_rows: int) -> PartEdges:
    """Build one part's :class:`PartEdges` from stored ids (``keep``: a mask of the links to use, or ``None``).

    ``part_offsets[p]``: nodes in the parts before ``p`` (length parts + 1).
    Raises :class:`ValueError` when an id points outside the nodes version (a graph
    of another generation, a damaged file).
    """
    if keep is not None:
        from_ids, to_ids = from_ids[keep], to_ids[keep]
    nodes = int(part_offsets[-1])
    dtype = id_dtype(nodes)
    targets = np.subtract(to_ids, np.int64(part) << NODE_ID_SHIFT, dtype=np.int64)
    if len(targets) and (int(targets.min()) < 0 or int(targets.max()) >= part_rows):
        raise ValueError(f"inlinks part {part} names targets outside nodes part {part}")
    source_parts = from_ids >> NODE_ID_SHIFT
    if len(source_parts) and (int(source_parts.min()) < 0 or int(source_parts.max()) >= len(part_offsets) - 1):
        raise ValueError(f"inlinks part {part} names sources outside the nodes table")
    # dense = offsets[part] + row = id - (part << SHIFT) + offsets[part]: one small table lookup
    shift = part_offsets[:-1] - (np.arange(len(part_offsets) - 1, dtype=np.int64) << NODE_ID_SHIFT)
    sources = from_ids + shift[source_parts]
    if len(sources) and (int(sources.min()) < 0 or int(sources.max()) >= nodes):
        raise ValueError(f"inlinks part {part} names source rows beyond the nodes table")
    return group_by_target(sources.astype(dtype), targets.astype(np.int32), part_rows)


def contributions(scores: np.ndarray, outlinks: np.ndarray) -> np.ndarray:
    """What each node passes along each of its outlinks: ``score / num_outlinks`` (0 without outlinks)."""
    out = np.zeros_like(scores)
    np.divide(scores, outlinks, out=out, where=outlinks > 0)
    return out


def part_sums(edges: PartEdges, contribution: np.ndarray, scratch: np.ndarray | None = None) -> np.ndarray:
    """Σ of the contributions over each target's counted inlinks, for the part's rows (float64).

    Each target's links are summed in stored order (``np.add.reduceat`` over its
    contiguous run), so every engine gets the same floats.  ``scratch``, a float64
    array of at least ``edges.links`` values, is reused for the gathered
    contributions (no fresh pages to fault in at every iteration).
    """
    sums = np.zeros(edges.rows, dtype=np.float64)
    if edges.links:
        if scratch is not None and len(scratch) >= edges.links:
            gathered = np.take(contribution, edges.sources, out=scratch[:edges.links], mode="clip")
        else:
            gathered = contribution[edges.sources]
        sums[edges.targets] = np.add.reduceat(gathered, edges.starts)
    return sums


def next_scores(sums: np.ndarray, nodes: int, damping: float) -> np.ndarray:
    """``(1 - d) + d × (1/N + sums)``: the new scores from the inlink sums."""
    return (1.0 - damping) + damping * (1.0 / nodes + sums)
