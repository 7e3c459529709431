"""Pieces of a map or reduce task that every engine shares, so all engines write the same parts.

* :class:`Budget` — the task-side settings (memory share, batch size, Parquet writer settings).
* :func:`check_copartitioned` — refuse a co-partitioned input that does not match the job.
* :func:`tag` — cast a map output to the shuffle schema and add ``_src``/``_seq``.
* :func:`part_numbers` — the part of every row, by the job's partitioner on its key.
* :func:`copartitioned_run` — part *p* of a co-partitioned input, mapped and tagged, in key order.
* :func:`parts_in_order` / :func:`sorted_by_part` — a map task's buffered rows cut into one sorted run per part.
* :func:`reduce_part` — a reduce task: merge its sorted runs and co-partitioned parts (or sort the runs
  in memory when they fit: :func:`fits_in_memory`, :func:`sorted_batches`, :func:`key_batches`),
  reduce, and write the part (under a temporary name, renamed when complete) as Parquet or, for a staging
  output, an Arrow file (:attr:`~gossamer.engine.api.Job.output_format`, :func:`output_part_name`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import Settings
from gossamer.engine.api import SEQ_SPLIT_SHIFT, Job, TaskContext, arange
from gossamer.engine.gather import gather_slices, repeated_gather
from gossamer.engine.sort import merge_sorted, read_run, reduce_fan_in, sort_order
from gossamer.store import (
    ARROW_SUFFIX,
    KEY_PARTITIONER_NAME,
    PARTITIONER_NAME,
    ArrowPartWriter,
    PartWriter,
    Place,
    as_place,
    part_name,
    parts_of_hosts,
    parts_of_keys,
    parts_of_urls,
)

RUN_BATCH_ROWS = 8192
"""Rows per batch in spill runs: what the merge holds per run at a time."""
ATTEMPT_PREFIX = ".attempt-"
"""A part being written is ``.attempt-<id>-part-NNNNN.parquet`` until it is complete."""


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
    if job.host_column is not None:
        return parts_of_hosts(table.column(job.host_column), job.parts)
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


def parts_in_order(table: pa.Table, job: Job, slice_rows: int) -> Iterator[tuple[int, Iterator[pa.Table]]]:
    """The rows of a tagged table by output part (parts ascending), each sorted by ``(key, _src, _seq)``.

    A part's rows come as slices of at most ``slice_rows`` rows, gathered from ``table`` as they
    are read (:func:`~gossamer.engine.gather.gather_slices`): no sorted copy of the table is held.
    """
    if table.num_rows == 0:
        return
    parts = part_numbers(table, job).to_numpy()
    by_key = sort_order(table, job.key).to_numpy()
    order = by_key[np.argsort(parts[by_key], kind="stable")]  # parts in order, keys sorted within
    ordered_parts = parts[order]
    edges = np.flatnonzero(ordered_parts[1:] != ordered_parts[:-1]) + 1
    for rows in np.split(order, edges):
        yield int(parts[rows[0]]), gather_slices(table, rows, slice_rows)


def sorted_by_part(table: pa.Table, job: Job) -> Iterator[tuple[int, pa.Table]]:
    """The rows of a tagged table by output part, each part's rows sorted by ``(key, _src, _seq)``, whole."""
    for part, slices in parts_in_order(table, job, RUN_BATCH_ROWS):
        yield part, pa.concat_tables(list(slices), promote_options="none")


def reduce_part(job: Job, ctx: TaskContext, budget: Budget, runs: list[Path], part: int,
                output: Place) -> int:
    """Reduce part ``part``: merge ``runs`` (sorted run files) with the part of every co-partitioned input.

    ``output`` is the part's file (:func:`output_part_name` in the output directory), written in the job's
    :attr:`~gossamer.engine.api.Job.output_format`.

    When the job allows it and the runs fit the task's memory budget (:func:`fits_in_memory`; no
    co-partitioned input) they are memory-mapped and sorted once (:func:`sorted_batches`),
    which costs far less than a k-way merge of dozens of small runs.  Otherwise memory stays
    at about one batch per merged run: beyond a fan-in that fits the task's budget, runs are
    first merged into fewer runs on disk.  Either way the reduce sees the same rows in the
    same order, every key's rows in one batch.  The part is
    written as ``output`` under a temporary name in the same directory and renamed
    when complete, so a task attempt that dies (or a second, speculative one) never
    leaves a half-written part under the final name.  On an object store (a
    :class:`~gossamer.store.location.Location`) the part is written under its own
    name: an object appears only when its upload completes.  Returns the rows written.
    """
    output = as_place(output)
    local = output.is_local
    attempt: Place = output.parent / f"{ATTEMPT_PREFIX}{uuid.uuid4().hex[:12]}-{output.name}" if local else output
    writer: PartWriter | ArrowPartWriter = (
        ArrowPartWriter(attempt, job.output_schema) if job.output_format == "arrow"
        else PartWriter(attempt, job.output_schema, budget.row_group_rows, budget.compression))
    try:
        try:
            for batch in _merged_batches(job, ctx, budget, runs, part):
                for out in job.reduce(batch, ctx):
                    writer.write(out)
        finally:
            writer.close()
        if local:
            os.replace(attempt.local_path(), output.local_path())
    except BaseException:
        if local:
            attempt.delete_file()
        raise
    return writer.rows


def output_part_name(job: Job, part: int) -> str:
    """The file name of part ``part`` of ``job``'s output: ``part-NNNNN.parquet``, or ``.arrow`` (Job.output_format)."""
    return part_name(part, ARROW_SUFFIX) if job.output_format == "arrow" else part_name(part)


def _merged_batches(job: Job, ctx: TaskContext, budget: Budget, runs: list[Path],
                    part: int) -> Iterator[pa.RecordBatch]:
    """Part ``part``'s rows in ``(key, _src, _seq)`` order, in batches that each hold whole keys.

    Batches of about ``engine.batch.rows`` rows (the merge's may run over); with ``Job.reduce_batch_rows``
    at most that many, unless one key's rows run on.
    """
    batch_rows = min(budget.batch_rows, job.reduce_batch_rows or budget.batch_rows)
    if fits_in_memory(job, runs, budget):
        yield from sorted_batches(runs, job.internal_schema, job.key, batch_rows)
        return
    sources = len(runs) + sum(1 for item in job.inputs if item.copartitioned)
    read_rows = max(1024, min(budget.batch_rows, budget.bytes_per_task // (3 * 200 * max(sources, 1))))
    fan_in = max(8, min(64, budget.bytes_per_task // (8 * 1024 * 1024)))
    run_paths = reduce_fan_in(runs, job.internal_schema, job.key, fan_in, RUN_BATCH_ROWS)
    inputs: list[Iterator[pa.RecordBatch]] = [
        copartitioned_run(job, i, part, read_rows, ctx) for i, item in enumerate(job.inputs) if item.copartitioned]
    inputs.extend(read_run(path) for path in run_paths)
    for chunk in merge_sorted(inputs, job.internal_schema, job.key, batch_rows):
        if job.reduce_batch_rows:  # the merge's chunks run over its size: cut them at key boundaries
            yield from key_batches(chunk, job.key, batch_rows)
        else:
            yield from chunk.combine_chunks().to_batches()


IN_MEMORY_OVERHEAD = 4
"""Runs of B bytes need about 4 B while they are read, sorted and handed on in batches."""


def fits_in_memory(job: Job, runs: list[Path], budget: Budget) -> bool:
    """Whether a reduce sorts its runs in memory: ``Job.reduce_in_memory``, no co-partitioned input, they fit."""
    if not job.reduce_in_memory or any(item.copartitioned for item in job.inputs):
        return False
    return sum(path.stat().st_size for path in runs) * IN_MEMORY_OVERHEAD <= budget.bytes_per_task


def sorted_batches(runs: list[Path], schema: pa.Schema, key: str, rows: int) -> Iterator[pa.RecordBatch]:
    """All rows of ``runs`` sorted by ``(key, _src, _seq)``, in :func:`key_ranges` batches of about ``rows`` rows.

    The runs are memory-mapped, sorted once by their keys, and each batch's rows are gathered from the
    mapped runs when it is asked for (:func:`~gossamer.engine.gather.repeated_gather`): the page texts are
    never copied whole (reading the runs into memory, then Arrow's ``take`` concatenating every string column
    and copying the rows out, made three copies), only the small columns are combined once, so a task's fresh
    memory is those and about two batches, reused batch after batch.  The batches are those of
    :func:`key_batches` over the sorted rows.
    """
    tables = [table for table in (pa.Table.from_batches(list(read_run(path, mapped=True)), schema=schema)
                                  for path in runs) if table.num_rows]
    if not tables:
        return
    table = pa.concat_tables(tables)
    order = sort_order(table, key).to_numpy() if table.num_rows > 1 else np.zeros(1, np.int64)
    gather = repeated_gather(table)
    for start, end in key_ranges(pc.take(table.column(key), pa.array(order)), rows):
        yield from gather(order[start:end]).to_batches()


def key_ranges(keys: pa.Array | pa.ChunkedArray, rows: int) -> Iterator[tuple[int, int]]:
    """``(start, end)`` row ranges of sorted ``keys``: every row in order, never splitting a key.

    About ``rows`` rows each, more when a key's rows run on.
    """
    n = len(keys)
    if n == 0:
        return
    starts = np.flatnonzero(pc.not_equal(keys.slice(1), keys.slice(0, n - 1)).to_numpy(zero_copy_only=False)) + 1
    start = 0
    while start < n:
        cut = np.searchsorted(starts, start + rows)
        end = int(starts[cut]) if cut < len(starts) else n
        yield start, end
        start = end


def key_batches(table: pa.Table, key: str, rows: int) -> Iterator[pa.RecordBatch]:
    """A sorted table in batches of about ``rows`` rows (more when a key's rows run on), never splitting a key."""
    for start, end in key_ranges(table.column(key), rows):
        yield from table.slice(start, end - start).combine_chunks().to_batches()


def remove_attempts(output_dir: Place) -> None:
    """Delete parts of task attempts that did not finish (left in a local ``output_dir`` by killed tasks)."""
    output_dir = as_place(output_dir)
    if not output_dir.is_local:
        return
    for leftover in output_dir.local_path().glob(ATTEMPT_PREFIX + "*"):
        leftover.unlink(missing_ok=True)
