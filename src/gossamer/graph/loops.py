"""Link loops: links that are half of a reciprocal pair (A → B and B → A), found by an engine job.

Nutch's ``Loops`` tool follows routes through the graph and LinkRank then ignores
every link from a page to a URL that leads back to it.  Gossamer finds the
loops of two pages — the link exchanges that inflate both ends — with one
map/reduce job that runs on either engine: each link of the ``inlinks`` table is
keyed by its unordered pair of node ids, and a pair seen in both directions is a
loop.  Longer cycles are kept (see docs/link-analysis.md).

:func:`find_loops` returns the loop links as a pair of int64 arrays ``(from_ids, to_ids)``,
sorted by ``to_id`` then ``from_id``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import Settings
from gossamer.engine import Input, Job, TableSource, TaskContext, run_job
from gossamer.store import (
    KEY_PARTITIONER_NAME,
    Place,
    TableVersion,
    discard,
    new_staging_dir,
    part_name,
    read_parquet_file,
)

PAIR_SCHEMA = pa.schema([
    pa.field("pair", pa.string(), nullable=False),
    pa.field("from_id", pa.int64(), nullable=False),
    pa.field("to_id", pa.int64(), nullable=False),
])


@dataclass(frozen=True)
class PairKeys:
    """Map: every inlinks row → (``"low:high"`` of its two node ids, from_id, to_id)."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield one pair row per link."""
        from_ids, to_ids = batch.column("from_id"), batch.column("to_id")
        low, high = pc.min_element_wise(from_ids, to_ids), pc.max_element_wise(from_ids, to_ids)
        pair = pc.binary_join_element_wise(low.cast(pa.string()), high.cast(pa.string()), ":")
        yield pa.RecordBatch.from_arrays([pair, from_ids, to_ids], schema=PAIR_SCHEMA)


@dataclass(frozen=True)
class ReciprocalPairs:
    """Reduce: keep the links of every pair seen in both directions (self links are not loops here)."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield both links of each reciprocal pair."""
        n = batch.num_rows
        if n < 2:
            return
        pairs = batch.column("pair")
        same_next = pc.equal(pairs.slice(1), pairs.slice(0, n - 1))
        other_way = pc.not_equal(batch.column("from_id").slice(1), batch.column("from_id").slice(0, n - 1))
        starts = pc.and_(same_next, other_way)
        first = np.flatnonzero(starts.to_numpy(zero_copy_only=False))
        if not len(first):
            return
        rows = np.sort(np.concatenate([first, first + 1]))
        ctx.count("loop_links", len(rows))
        yield batch.select(["pair", "from_id", "to_id"]).take(pa.array(rows))


def find_loops(inlinks: TableVersion, work_dir: Place, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """The reciprocal links of ``inlinks`` as ``(from_ids, to_ids)``, sorted by ``(to_id, from_id)``.

    The job's output is written under a staging folder of ``work_dir`` and removed afterwards.
    """
    job = Job("linkrank-loops", [Input(TableSource(str(inlinks.directory)), PairKeys())], PAIR_SCHEMA,
              ReciprocalPairs(), PAIR_SCHEMA, max(inlinks.parts, 1), key="pair",
              partitioner=KEY_PARTITIONER_NAME)
    staging = new_staging_dir(work_dir)
    try:
        run_job(job, staging, settings)
        table = pa.concat_tables([read_parquet_file(staging / part_name(part), ["from_id", "to_id"])
                                  for part in range(job.parts)])
    finally:
        discard(staging)
    from_ids = table.column("from_id").to_numpy()
    to_ids = table.column("to_id").to_numpy()
    order = np.lexsort((from_ids, to_ids))
    return from_ids[order], to_ids[order]
