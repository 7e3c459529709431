"""WebGraph step 2: the ``nodes`` table from the new ``outlinks`` version (Nutch's ``WebGraph.NodeDb``).

:func:`count_links` maps each outlinks row to two counts — one outlink of its source,
one inlink of its target — summed per URL within the batch; :class:`NodeReducer` sums
them per URL and gives every node the score ``link.analyze.initial.score``.  A URL is
a node exactly when it is the source or the target of a kept link.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.engine import TaskContext
from gossamer.graph.rules import GraphSettings
from gossamer.graph.schema import NODES_SCHEMA

COUNT_SCHEMA = pa.schema([
    pa.field("url", pa.string()),
    pa.field("num_inlinks", pa.int64()),
    pa.field("num_outlinks", pa.int64()),
])


def _summed(table: pa.Table) -> pa.Table:
    """Rows of ``table`` summed per URL, in the order each URL first appears."""
    grouped = table.group_by("url", use_threads=False).aggregate(
        [("num_inlinks", "sum"), ("num_outlinks", "sum")])
    return grouped.select(["url", "num_inlinks_sum", "num_outlinks_sum"]).rename_columns(COUNT_SCHEMA.names)


def count_links(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Map for the outlinks table: per URL of this batch, the links it sends and receives."""
    n = batch.num_rows
    if n == 0:
        return
    ones, zeros = pa.repeat(pa.scalar(1, pa.int64()), n), pa.repeat(pa.scalar(0, pa.int64()), n)
    sources = pa.table([batch.column("url"), zeros, ones], schema=COUNT_SCHEMA)
    targets = pa.table([batch.column("to_url"), ones, zeros], schema=COUNT_SCHEMA)
    yield from _summed(pa.concat_tables([sources, targets])).to_batches()


def node_reducer(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Reduce: one nodes row per URL, in URL order."""
    if batch.num_rows == 0:
        return
    summed = _summed(pa.Table.from_batches([batch]).select(COUNT_SCHEMA.names)).sort_by("url")  # already sorted
    score = GraphSettings.from_settings(ctx.settings).initial_score
    ctx.count("nodes", summed.num_rows)
    yield pa.RecordBatch.from_arrays(
        [summed.column("url").combine_chunks(), pc.cast(summed.column("num_inlinks"), pa.int32()).combine_chunks(),
         pc.cast(summed.column("num_outlinks"), pa.int32()).combine_chunks(),
         pa.repeat(pa.scalar(score, pa.float64()), summed.num_rows)],
        schema=NODES_SCHEMA)
