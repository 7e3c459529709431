"""Reading the nodes table's shape and out-degrees, and installing a version with new scores.

:func:`write_node_scores` rewrites every part of the live ``nodes`` version with its
``score`` column replaced, row for row (node ids stay valid), into a staging
version, and installs it by rename like every table: a crash leaves the previous
version.  Call it holding the nodes table's lock.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyarrow as pa

from gossamer.core import Settings
from gossamer.graph.linkrank_runners import GraphShape
from gossamer.graph.schema import NODES_SCHEMA
from gossamer.store import (
    PartWriter,
    Place,
    TableVersion,
    discard,
    finish_version,
    install,
    new_staging_dir,
    part_name,
)

SCORE_INDEX = NODES_SCHEMA.get_field_index("score")


def read_node_shape(nodes: TableVersion) -> tuple[GraphShape, np.ndarray]:
    """The nodes per part (as offsets) and every node's ``num_outlinks`` (float64, dense id order)."""
    counts, outlinks = [0], []
    for part in range(nodes.parts):
        with nodes.open_part(part) as parquet:
            column = parquet.read(columns=["num_outlinks"]).column("num_outlinks")
        counts.append(len(column))
        outlinks.append(column.to_numpy().astype(np.float64))
    offsets = np.cumsum(np.array(counts, dtype=np.int64))
    return GraphShape(offsets), np.concatenate(outlinks) if outlinks else np.zeros(0)


def write_node_scores(nodes_dir: Place, nodes: TableVersion, scores: np.ndarray, settings: Settings,
                      job: str = "linkrank") -> None:
    """Install a copy of ``nodes`` whose ``score`` column is ``scores`` (dense id order)."""
    staging = new_staging_dir(nodes_dir)
    try:
        offset = 0
        for part in range(nodes.parts):
            writer = PartWriter(staging / part_name(part), NODES_SCHEMA, settings.get_int("store.row.group.rows"),
                                settings.get_str("store.compression"))
            try:
                with nodes.open_part(part) as parquet:
                    for batch in parquet.iter_batches(batch_size=65536):
                        count = batch.num_rows
                        new = pa.array(scores[offset:offset + count], pa.float64())
                        writer.write(batch.set_column(SCORE_INDEX, NODES_SCHEMA.field("score"), new))
                        offset += count
            finally:
                writer.close()
        if offset != len(scores):
            raise ValueError(f"{len(scores)} scores for {offset} nodes")
        description = dataclasses.replace(nodes.description, job=job, created=int(time.time() * 1000))
        finish_version(staging, description)
        install(nodes_dir, staging, keep_backup=settings.get_bool("db.preserve.backup"))
    except BaseException:
        discard(staging)
        raise
