"""Where LinkRank's per-part work runs: in this process (local engine) or as engine tasks (Spark).

Both runners load each part of the ``inlinks`` table the same way
(:func:`load_part`) and call the same :func:`~gossamer.graph.linkrank_math.part_sums`,
so they return the same floats.  Contract of a runner: ``sums(contribution)``
returns, for every node in dense id order, the sum of the contributions of its
counted, non-loop inlinks.

* :class:`InProcessRunner` keeps every part's links in memory as int32 arrays
  (8 bytes a link) and sums the parts on a few threads (numpy releases the GIL), each
  gathering into its own scratch array;
  the embedded engine's choice.
* :class:`EngineRunner` runs one engine task per part and iteration; a task reads its
  part once per worker process and keeps it (Spark reuses its Python workers), and
  receives the contribution vector with the call (8 bytes a node per task).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import pyarrow.compute as pc

from gossamer.core import Settings
from gossamer.engine import run_tasks
from gossamer.graph.linkrank_math import PartEdges, part_edges, part_sums
from gossamer.graph.schema import NODE_ID_SHIFT, ROW_MASK, dense_ids
from gossamer.store import Place, read_parquet_file

EDGE_COLUMNS = ["from_id", "to_id", "counted"]


@dataclass(frozen=True)
class GraphShape:
    """What every part's loader needs: node counts per part (``offsets``: length parts + 1)."""

    offsets: np.ndarray

    @property
    def nodes(self) -> int:
        """Total nodes."""
        return int(self.offsets[-1])

    def rows(self, part: int) -> int:
        """Nodes in ``part``."""
        return int(self.offsets[part + 1] - self.offsets[part])


@dataclass(frozen=True)
class PartLoops:
    """The loop links into one part (``from_ids``, ``to_ids``: stored node ids)."""

    from_ids: np.ndarray
    to_ids: np.ndarray


def loops_by_part(from_ids: np.ndarray, to_ids: np.ndarray, parts: int) -> list[PartLoops]:
    """Split loop links (sorted by ``to_id``) by the part of their target."""
    target_parts = to_ids >> NODE_ID_SHIFT
    bounds = np.searchsorted(target_parts, np.arange(parts + 1))
    return [PartLoops(from_ids[lo:hi], to_ids[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def load_part(place: Place, part: int, shape: GraphShape, loops: PartLoops | None) -> tuple[PartEdges, int, int]:
    """Part ``part`` of the inlinks table as :class:`PartEdges`; also its stored and its loop link counts.

    Kept: links marked ``counted`` that are not loop links.
    """
    table = read_parquet_file(place, EDGE_COLUMNS)
    from_ids = table.column("from_id").to_numpy()
    to_ids = table.column("to_id").to_numpy()
    counted = table.column("counted")
    keep = None if pc.all(counted).as_py() is not False else counted.to_numpy()
    looped = 0
    if loops is not None and len(loops.to_ids):
        marked = _pair_keys(loops.from_ids, loops.to_ids, shape, part)
        is_loop = np.isin(_pair_keys(from_ids, to_ids, shape, part), marked)
        looped = int(is_loop.sum())
        keep = ~is_loop if keep is None else keep & ~is_loop
    return part_edges(part, from_ids, to_ids, keep, shape.offsets, shape.rows(part)), len(from_ids), looped


def _pair_keys(from_ids: np.ndarray, to_ids: np.ndarray, shape: GraphShape, part: int) -> np.ndarray:
    """One exact int64 per link into ``part``: dense source id × rows of the part + target row."""
    dense_from = dense_ids(from_ids, shape.offsets)
    return dense_from * np.int64(max(shape.rows(part), 1)) + (to_ids & ROW_MASK)


class Runner(Protocol):
    """Computes the inlink sums of every node (see the module docstring)."""

    links: int
    stored_links: int
    loop_links: int

    def sums(self, contribution: np.ndarray) -> np.ndarray:
        """Σ contributions over each node's kept inlinks, in dense id order."""
        ...


class InProcessRunner:
    """Every part's links in this process's memory; parts summed on up to ``threads`` threads."""

    def __init__(self, part_places: Sequence[Place], shape: GraphShape, loops: Sequence[PartLoops | None],
                 threads: int = 0) -> None:
        self.shape = shape
        self._pool: ThreadPoolExecutor | None = None
        self.edges: list[PartEdges] = []
        self.stored_links = self.loop_links = 0
        for part, place in enumerate(part_places):
            edges, stored, looped = load_part(place, part, shape, loops[part])
            self.edges.append(edges)
            self.stored_links += stored
            self.loop_links += looped
        self.links = sum(edges.links for edges in self.edges)
        self.threads = threads or min(4, os.cpu_count() or 1)
        self._largest = max((edges.links for edges in self.edges), default=0)
        self._scratch = threading.local()

    def _part_sums(self, edges: PartEdges, contribution: np.ndarray) -> np.ndarray:
        """One part's sums, gathering into this thread's scratch array (one per thread, the largest part's size)."""
        scratch = getattr(self._scratch, "array", None)
        if scratch is None:
            scratch = self._scratch.array = np.empty(self._largest, dtype=np.float64)
        return part_sums(edges, contribution, scratch)

    def sums(self, contribution: np.ndarray) -> np.ndarray:
        """Sum every part (threads when there are several parts and cores)."""
        if self.threads > 1 and len(self.edges) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.threads)
            pieces = list(self._pool.map(lambda edges: self._part_sums(edges, contribution), self.edges))
        else:
            pieces = [self._part_sums(edges, contribution) for edges in self.edges]
        return np.concatenate(pieces) if pieces else np.zeros(0)

    def close(self) -> None:
        """Stop the threads (idempotent)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


_CACHE: dict[tuple[str, int, bytes], tuple[PartEdges, int, int]] = {}


def _part_sums_task(place: Place, part: int, shape: GraphShape, loops: PartLoops | None,
                    contribution: np.ndarray, reporter: Any) -> tuple[np.ndarray, int, int, int]:
    """Engine task: part ``part``'s sums (its links loaded once per worker process)."""
    key = (str(place), part, shape.offsets.tobytes())
    if key not in _CACHE:
        while len(_CACHE) >= 64:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = load_part(place, part, shape, loops)
    edges, stored, looped = _CACHE[key]
    return part_sums(edges, contribution), edges.links, stored, looped


class EngineRunner:
    """One engine task per part and iteration (:func:`~gossamer.engine.run_tasks`)."""

    def __init__(self, settings: Settings, part_places: Sequence[Place], shape: GraphShape,
                 loops: Sequence[PartLoops | None]) -> None:
        self.settings, self.part_places, self.shape, self.loops = settings, list(part_places), shape, loops
        self.links = self.stored_links = self.loop_links = 0

    def sums(self, contribution: np.ndarray) -> np.ndarray:
        """Run the part tasks and join their sums."""
        calls = [(place, part, self.shape, self.loops[part], contribution)
                 for part, place in enumerate(self.part_places)]
        results = run_tasks(self.settings, "linkrank", _part_sums_task, calls)
        self.links = sum(result[1] for result in results)
        self.stored_links = sum(result[2] for result in results)
        self.loop_links = sum(result[3] for result in results)
        pieces = [result[0] for result in results]
        return np.concatenate(pieces) if pieces else np.zeros(0)
