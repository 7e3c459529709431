"""``linkrank``: LinkRank scores for every node of the web graph (Nutch 1.x's LinkRank).

Reads the ``nodes`` and ``inlinks`` tables of one graph generation (see
:mod:`gossamer.graph.schema`), runs ``link.analyze.num.iterations`` iterations of
the formula in :mod:`gossamer.graph.linkrank_math` from ``link.analyze.initial.score``
with damping ``link.analyze.damping.factor``, and installs a new ``nodes`` version
with the scores (row for row, so node ids stay valid).

Better than Nutch, and said so in docs/link-analysis.md:

* scores are float64 (Nutch: float32), and the result does not depend on the
  order links arrive in (the per-page / per-domain limits are decided when the
  graph is built);
* ``link.analyze.convergence`` > 0 stops early once no score moved by more than
  that in an iteration (Nutch always runs every iteration: the default 0 does too);
* ``link.analyze.remove.loops`` drops reciprocal links (:mod:`gossamer.graph.loops`)
  within the job, where Nutch needs a separate ``Loops`` run.

On the local engine the links are held in memory (8 bytes each) and summed in this
process; with ``engine=spark`` each iteration is one task per part.  The nodes
table is locked for the whole run; a crash leaves the previous version.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from gossamer.core import Report, Settings
from gossamer.engine import ProgressFn, table_lock
from gossamer.graph.linkrank_math import contributions, next_scores
from gossamer.graph.linkrank_runners import (
    EngineRunner,
    GraphShape,
    InProcessRunner,
    PartLoops,
    Runner,
    loops_by_part,
)
from gossamer.graph.loops import find_loops
from gossamer.graph.node_scores import read_node_shape, write_node_scores
from gossamer.graph.schema import INLINKS, NODES, generation
from gossamer.store import Place, TableError, as_place, open_live, recover


class GraphError(TableError):
    """The web graph is missing or its tables are of different generations."""


@dataclass(frozen=True)
class LinkRankOptions:
    """The ``link.analyze.*`` settings LinkRank reads."""

    iterations: int
    initial_score: float
    damping: float
    convergence: float
    remove_loops: bool

    @classmethod
    def from_settings(cls, settings: Settings) -> LinkRankOptions:
        """Read and check the settings (ValueError for a damping outside [0, 1] or negative iterations)."""
        options = cls(settings.get_int("link.analyze.num.iterations"),
                      settings.get_float("link.analyze.initial.score"),
                      settings.get_float("link.analyze.damping.factor"),
                      settings.get_float("link.analyze.convergence"),
                      settings.get_bool("link.analyze.remove.loops"))
        if not 0.0 <= options.damping <= 1.0:
            raise ValueError(f"link.analyze.damping.factor={options.damping}: must be between 0 and 1")
        if options.iterations < 0:
            raise ValueError(f"link.analyze.num.iterations={options.iterations}: must be 0 or more")
        return options


@dataclass
class LinkRankReport(Report):
    """What a LinkRank run did.

    ``links``: links counted (``counted`` and not loops), of ``stored_links``;
    ``changes``: the largest score change of each iteration; ``done`` false when the
    graph has no nodes (nothing installed).
    """

    nodes: int = 0
    links: int = 0
    stored_links: int = 0
    loop_links: int = 0
    iterations: int = 0
    changes: list[float] = field(default_factory=list)
    top_score: float = 0.0
    seconds: float = 0.0
    engine: str = "local"
    recovered: list[str] = field(default_factory=list)
    done: bool = True


def link_rank(webgraph_dir: Place | str, settings: Settings, progress: ProgressFn | None = None) -> LinkRankReport:
    """Score every node of the graph at ``webgraph_dir`` and install the scores (see the module docstring).

    Raises :class:`GraphError` when the graph is missing or inconsistent,
    :class:`~gossamer.store.LockedError` when another job holds the nodes table,
    :class:`ValueError` for bad settings.
    """
    started = time.monotonic()
    options = LinkRankOptions.from_settings(settings)
    root = as_place(webgraph_dir, settings)
    nodes_dir, inlinks_dir = root / NODES, root / INLINKS
    report = LinkRankReport(engine=settings.get_str("engine"))
    lock = table_lock(nodes_dir, settings)
    lock.acquire()
    try:
        report.recovered = recover(nodes_dir)
        try:
            nodes, inlinks = open_live(nodes_dir), open_live(inlinks_dir)
        except TableError as exc:
            raise GraphError(f"no web graph at {webgraph_dir} ({exc}): run `gossamer webgraph` first") from None
        with nodes, inlinks:
            _check_generations(nodes.description.absorbed, inlinks.description.absorbed, webgraph_dir)
            shape, outlinks = read_node_shape(nodes)
            report.nodes = shape.nodes
            if shape.nodes == 0:
                report.done = False
                return report
            if inlinks.parts != nodes.parts:
                raise GraphError(f"{webgraph_dir}: nodes has {nodes.parts} parts, inlinks {inlinks.parts}")
            loops: list[PartLoops | None] = [None] * nodes.parts
            if options.remove_loops:
                loops = list(loops_by_part(*find_loops(inlinks, root, settings), nodes.parts))
            runner: Runner
            if report.engine == "local":
                runner = InProcessRunner(inlinks.part_paths(), shape, loops)
            else:
                runner = EngineRunner(settings, [p.absolute() for p in inlinks.part_paths()], shape, loops)
            try:
                scores = _iterate(runner, shape, outlinks, options, report, progress)
            finally:
                if isinstance(runner, InProcessRunner):
                    runner.close()
            report.links, report.stored_links, report.loop_links = (runner.links, runner.stored_links,
                                                                     runner.loop_links)
            report.top_score = float(scores.max())
            write_node_scores(nodes_dir, nodes, scores, settings)
    finally:
        lock.release()
    report.seconds = time.monotonic() - started
    return report


def _check_generations(nodes: tuple[str, ...], inlinks: tuple[str, ...], where: Place | str) -> None:
    if generation(nodes) != generation(inlinks):
        raise GraphError(f"{where}: nodes and inlinks are of different webgraph runs (one was cut short): "
                         "run `gossamer webgraph` again")


def _iterate(runner: Runner, shape: GraphShape, outlinks: np.ndarray, options: LinkRankOptions,
             report: LinkRankReport, progress: ProgressFn | None) -> np.ndarray:
    """Run the iterations; returns the final scores (dense id order)."""
    scores = np.full(shape.nodes, options.initial_score, dtype=np.float64)
    for iteration in range(options.iterations):
        new = next_scores(runner.sums(contributions(scores, outlinks)), shape.nodes, options.damping)
        change = float(np.abs(new - scores).max())
        scores = new
        report.iterations = iteration + 1
        report.changes.append(change)
        if progress is not None:
            progress("linkrank", iteration + 1, options.iterations)
        if options.convergence > 0 and change < options.convergence:
            break
    return scores
