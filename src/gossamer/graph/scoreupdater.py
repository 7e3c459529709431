"""``scoreupdater``: the web graph's node scores into the crawldb (Nutch 1.x's ScoreUpdater).

One engine job over the crawldb (co-partitioned) and the ``nodes`` table
(co-partitioned too when it has the crawldb's part count, else shuffled): every
crawldb URL that is a node takes the node's score (as float32, the crawldb's
type); every other crawldb URL gets ``link.score.updater.clear.score`` (0.0), as
Nutch does.  Nodes that are not in the crawldb are ignored.  Every other field
is kept.  The new crawldb version is installed atomically under the crawldb's
lock, so a crash leaves the previous one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import Report, Settings
from gossamer.engine import Input, Job, ProgressFn, TableJobRun, TableSource, TaskContext, run_table_job
from gossamer.graph.schema import NODES
from gossamer.store import CRAWLDB_SCHEMA, Place, TableError, as_place, open_live

SCORE = "node_score"
SHUFFLE_SCHEMA = pa.schema([f.with_nullable(True) for f in CRAWLDB_SCHEMA]).append(
    pa.field(SCORE, pa.float64()))
SCORE_INDEX = CRAWLDB_SCHEMA.get_field_index("score")
_TRUE = pa.array([True])


@dataclass(frozen=True)
class CrawlDbRows:
    """Map for the crawldb: its rows, with an empty node score."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the batch with a null ``node_score`` column."""
        yield pa.RecordBatch.from_arrays([*batch.columns, pa.nulls(batch.num_rows, pa.float64())],
                                         schema=SHUFFLE_SCHEMA)


@dataclass(frozen=True)
class NodeRows:
    """Map for the nodes table: one row per node with only ``url`` and ``node_score``."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the nodes as shuffle rows."""
        n = batch.num_rows
        columns = [batch.column("url") if f.name == "url" else
                   batch.column("score") if f.name == SCORE else pa.nulls(n, f.type) for f in SHUFFLE_SCHEMA]
        yield pa.RecordBatch.from_arrays(columns, schema=SHUFFLE_SCHEMA)


@dataclass(frozen=True)
class UpdateScores:
    """Reduce: each crawldb row (``_src`` 0) takes the score of the node row that follows it, if any."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the crawldb rows of the batch with their new scores."""
        n = batch.num_rows
        if n == 0:
            return
        clear = ctx.settings.get_float("link.score.updater.clear.score")
        urls, src = batch.column("url"), batch.column("_src")
        is_db = pc.equal(src, 0)
        if n > 1:
            followed = pc.and_(pc.equal(urls.slice(0, n - 1), urls.slice(1)), pc.equal(src.slice(1), 1))
            followed = pa.concat_arrays([followed, pa.array([False])])
            next_score = pa.concat_arrays([batch.column(SCORE).slice(1), pa.nulls(1, pa.float64())])
        else:
            followed, next_score = pa.array([False]), pa.nulls(1, pa.float64())
        scored = pc.and_(is_db, followed)
        db_rows = pc.sum(is_db).as_py() or 0
        matched = pc.sum(scored).as_py() or 0
        ctx.count("urls_scored", matched)
        ctx.count("urls_cleared", db_rows - matched)
        ctx.count("nodes_not_in_crawldb", n - db_rows - matched)
        score = pc.if_else(scored, next_score, pa.scalar(clear, pa.float64())).cast(pa.float32())
        columns = [score if i == SCORE_INDEX else batch.column(f.name) for i, f in enumerate(CRAWLDB_SCHEMA)]
        out = pa.RecordBatch.from_arrays(columns, names=CRAWLDB_SCHEMA.names).filter(is_db)
        yield pa.RecordBatch.from_arrays([out.column(i).cast(f.type) for i, f in enumerate(CRAWLDB_SCHEMA)],
                                         schema=CRAWLDB_SCHEMA)


@dataclass
class ScoreUpdateReport(Report):
    """Counters of a scoreupdater run: ``urls_scored``, ``urls_cleared``, ``nodes_not_in_crawldb``."""

    counters: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    total_urls: int = 0
    seconds: float = 0.0
    recovered: list[str] = field(default_factory=list)


def update_scores(crawldb_dir: Place | str, webgraph_dir: Place | str, settings: Settings,
                  progress: ProgressFn | None = None) -> ScoreUpdateReport:
    """Copy the node scores of ``webgraph_dir`` into the crawldb at ``crawldb_dir`` (see the module docstring).

    Raises :class:`~gossamer.store.TableError` when either table is missing and
    :class:`~gossamer.store.LockedError` when another writer holds the crawldb.
    """
    started = time.monotonic()
    nodes_dir = as_place(webgraph_dir, settings) / NODES
    with open_live(nodes_dir) as nodes:
        nodes_source = TableSource(str(nodes.directory))
        nodes_parts = (nodes.description.partitioner, nodes.parts, nodes.description.key)

    def build(run: TableJobRun) -> Job:
        if run.existing is None:
            raise TableError(f"no crawldb at {crawldb_dir}")
        if run.existing.description.kind != "crawldb":
            raise TableError(f"{crawldb_dir} holds a {run.existing.description.kind!r} table, not a crawldb")
        db = run.existing.description
        same = nodes_parts == (db.partitioner, run.parts, db.key)
        inputs = [Input(TableSource(str(run.existing.directory)), CrawlDbRows(), copartitioned=True),
                  Input(nodes_source, NodeRows(), copartitioned=same)]
        return Job("scoreupdater", inputs, SHUFFLE_SCHEMA, UpdateScores(), CRAWLDB_SCHEMA, run.parts)

    result, recovered = run_table_job(crawldb_dir, "crawldb", settings, build, progress)
    return ScoreUpdateReport(counters=dict(result.counters), errors=result.errors, total_urls=result.rows,
                             seconds=time.monotonic() - started, recovered=recovered)
