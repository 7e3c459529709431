"""Pieces of a map or reduce task that every engine shares, so all engines write the same parts.

* :class:`Budget` — the task-side settings (memory share, batch size, Parquet writer settings).
* :func:`check_copartitioned` — refuse a co-partitioned input that does not match the job.
* :func:`tag` — cast a map output to the shuffle schema and add ``_src``/``_seq``.
* :func:`part_numbers` — the part of every row, by the job's partitioner on its key.
* :func:`copartitioned_run` — part *p* of a co-partitioned input, mapped and tagged, in key order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

from gossamer.core.settings import Settings
from gossamer.engine.api import SEQ_SPLIT_SHIFT, Job, TaskContext, arange
from gossamer.store.partitioning import KEY_PARTITIONER_NAME, PARTITIONER_NAME, parts_of_keys, parts_of_urls


@dataclass(frozen=True)
class Budget:
    """What a task needs from the settings; ``bytes_per_task`` is its share of the memory budget."""

    bytes_per_task: int
    batch_rows: int
    row_group_rows: int
    compression: str
    error_limit: int

    @classmethod
    def from_settings(cls, settings: Settings, tasks_at_once: int) -> Budget:
        """``engine.memory.budget.mb`` shared by ``tasks_at_once`` tasks (at least 8 MB each)."""
        total = settings.get_int("engine.memory.budget.mb") * 1024 * 1024
        return cls(
            bytes_per_task=max(total // max(tasks_at_once, 1), 8 * 1024 * 1024),
            batch_rows=settings.get_int("engine.batch.rows"),
            row_group_rows=settings.get_int("store.row.group.rows"),
            compression=settings.get_str("store.compression"),
            error_limit=settings.get_int("cli.max.reported.errors"),
        )


def check_copartitioned(job: Job) -> None:
    """A co-partitioned input must really share the job's partitioner, part count and key (else ValueError)."""
    for item in job.inputs:
        if not item.copartitioned:
            continue
        description = getattr(item.source, "description", None)
        if description is None:
            raise ValueError(f"job {job.name}: a co-partitioned input must be a stored table")
        if (description.partitioner, description.parts, description.key) != (
                job.partitioner, job.parts, job.key) or job.partitioner != PARTITIONER_NAME \
                or job.partition_by is not None:
            raise ValueError(
                f"job {job.name}: input {item.source} is partitioned as {description.partitioner}/"
                f"{description.parts} parts/key {description.key}, the job as {job.partitioner}/"
                f"{job.parts} parts/key {job.key}")


def tag(batch: pa.RecordBatch, job: Job, src: int, first_seq: int) -> pa.Table:
    """Cast to the shuffle schema and add ``_src`` = ``src`` and ``_seq`` = ``first_seq, first_seq + 1, …``."""
    n = batch.num_rows
    columns = [batch.column(f.name).cast(f.type) for f in job.shuffle_schema]
    columns.append(pa.repeat(pa.scalar(src, pa.int16()), n))
    columns.append(arange(first_seq, n))
    return pa.Table.from_arrays(columns, schema=job.internal_schema)


def part_numbers(table: pa.Table, job: Job) -> pa.Array:
    """The output part of every row of ``table``: the job's partitioner on its partition column."""
    column = table.column(job.partition_column)
    if job.partitioner == KEY_PARTITIONER_NAME:
        return parts_of_keys(column, job.parts)
    return parts_of_urls(column, job.parts)


def copartitioned_run(job: Job, input_index: int, part: int, batch_rows: int,
                      ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Part ``part`` of co-partitioned input ``input_index``, mapped and tagged (``_seq`` from the part number)."""
    item = job.inputs[input_index]
    split = item.source.splits()[part]
    seq = part << SEQ_SPLIT_SHIFT
    for batch in split.read(batch_rows):
        for out in item.map(batch, ctx) if item.map else [batch]:
            if out.num_rows:
                yield from tag(out, job, input_index, seq).to_batches()
                seq += out.num_rows
