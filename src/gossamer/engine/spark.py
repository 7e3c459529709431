"""The Spark engine: the same :class:`~gossamer.engine.api.Job` objects on PySpark's RDD API.

How a job maps onto RDD operations::

    sc.parallelize(splits, numSlices=len(splits))          one element (and task) per input split
      .mapPartitions(map task)                             read split, job map, tag _src/_seq, part numbers
          → (part, Arrow IPC bytes of that part's rows)    + one (0, counters) record per split
      .partitionBy(job.parts, lambda p: p)                 THE SHUFFLE: Arrow blobs, never Python rows
      .mapPartitionsWithIndex(reduce task)                 concat blobs + co-partitioned part p (read in
          → (part, map reports, counters, errors, rows)    place), sort (key, _src, _seq), job reduce in
                                                           key-complete batches, write part-NNNNN.parquet
      .collect()                                           small: counters only

The job's map and reduce functions run unchanged; tagging, part numbers and the co-partitioned
reader (:mod:`gossamer.engine.tasks`), the sort (:mod:`gossamer.engine.sort`) and the part writer
are the local engine's, so both engines write the same rows into the same parts.  Map tasks send their counters
and error samples to reduce 0 as a small record; the driver absorbs them in split order,
then the reduce tasks' in part order, as the local engine does.

Limits of this first version: a reduce task holds its whole part in memory (no spill), the
output directory must be a filesystem path every executor can write (no ``s3://``/``hdfs://``),
and fetching does not run on Spark.
"""

from __future__ import annotations

import atexit
import os
import sys
import time
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core.settings import Settings, SettingsError
from gossamer.engine.api import SEQ_SPLIT_SHIFT, Job, JobResult, Split, TaskContext
from gossamer.engine.local import SPILL_OVERHEAD, ProgressFn
from gossamer.engine.sort import sort_table
from gossamer.engine.tasks import Budget, check_copartitioned, copartitioned_run, part_numbers, tag
from gossamer.store.location import local_or_remote
from gossamer.store.table import PartWriter, part_name

_DATA, _REPORT = 0, 1
"""Kinds of shuffled values: ``(_DATA, ipc_bytes)`` or ``(_REPORT, (input, split), counters, errors)``."""
_IPC_OPTIONS = pa.ipc.IpcWriteOptions(compression="lz4")

_LOG_CONFIG = Path(__file__).resolve().parent.parent / "conf" / "spark-log4j2.properties"
_SESSION: list[Any] = []


def spark_session(settings: Settings, app_name: str) -> Any:
    """The process's Spark session (created once, reused, stopped at exit).

    With a ``local[…]`` master the driver binds to 127.0.0.1 and the web UI is
    off (tests and single machines never open a port beyond loopback); with any
    other master (a cluster) Spark's own configuration decides — ``spark-defaults.conf``
    in ``$SPARK_CONF_DIR`` or ``PYSPARK_SUBMIT_ARGS`` — so executors can reach the
    driver.  Raises :class:`SettingsError` when PySpark is not installed.
    """
    if _SESSION:
        return _SESSION[0]
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise SettingsError("engine=spark needs PySpark: install gossamer[spark] (and Java 17+)") from exc
    master = settings.get_str("spark.master")
    local = master.startswith("local")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = (SparkSession.builder.master(master).appName(app_name)
               .config("spark.ui.showConsoleProgress", "false"))
    if local:
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
        builder = (builder.config("spark.ui.enabled", "false")
                   .config("spark.driver.bindAddress", "127.0.0.1")
                   .config("spark.driver.host", "127.0.0.1")
                   .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}"))
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(settings.get_str("spark.log.level"))
    _SESSION.append(session)
    atexit.register(stop_session)
    return session


def stop_session() -> None:
    """Stop the process's Spark session, if one was started (the next job starts a new one)."""
    while _SESSION:
        _SESSION.pop().stop()


class SparkEngine:
    """Runs :class:`~gossamer.engine.api.Job` objects on Spark (``spark.master``)."""

    def __init__(self, settings: Settings, progress: ProgressFn | None = None) -> None:
        self.settings = settings
        self.progress = progress

    def run(self, job: Job, output_dir: Path) -> JobResult:
        """Run ``job`` and write its parts into ``output_dir`` (a staging directory every executor can write)."""
        started = time.monotonic()
        check_copartitioned(job)
        context = spark_session(self.settings, f"gossamer-{job.name}").sparkContext
        budget = Budget.from_settings(self.settings, context.defaultParallelism)
        tasks = [
            (i, s, split)
            for i, item in enumerate(job.inputs) if not item.copartitioned
            for s, split in enumerate(item.source.splits())
        ]
        settings, out = self.settings, str(output_dir)
        mapped = (context.parallelize(tasks, numSlices=len(tasks)) if tasks else context.emptyRDD())
        shuffled = mapped.mapPartitions(
            lambda items: _map_task(job, settings, budget, items)
        ).partitionBy(job.parts, lambda part: part)
        if self.progress:
            self.progress("map", 0, len(tasks))
        outcomes = shuffled.mapPartitionsWithIndex(
            lambda part, items: _reduce_task(job, settings, budget, out, part, items)
        ).collect()
        result = JobResult(rows_per_part=[0] * job.parts)
        for _order, counters, errors in sorted(r for outcome in outcomes for r in outcome[1]):
            result.absorb(counters, errors, budget.error_limit)
        for part, _reports, counters, errors, rows in sorted(outcomes, key=lambda o: o[0]):
            result.absorb(counters, errors, budget.error_limit)
            result.rows_per_part[part] = rows
        if self.progress:
            self.progress("map", len(tasks), len(tasks))
            self.progress("reduce", job.parts, job.parts)
        result.seconds = time.monotonic() - started
        return result


def _to_ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema, options=_IPC_OPTIONS) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def _from_ipc(data: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def _by_part(table: pa.Table, job: Job) -> Iterator[tuple[int, pa.Table]]:
    """Rows of ``table`` grouped by their part number (the job's partitioner on its key)."""
    parts = part_numbers(table, job)
    order = pc.sort_indices(parts)
    table, parts = table.take(order), parts.take(order)
    offset = 0
    for entry in sorted(pc.value_counts(parts).to_pylist(), key=lambda item: item["values"]):
        yield entry["values"], table.slice(offset, entry["counts"])
        offset += entry["counts"]


def _map_task(job: Job, settings: Settings, budget: Budget,
              items: Iterable[tuple[int, int, Split]]) -> Iterator[tuple[int, tuple]]:
    """Map every split of this Spark partition; yield ``(part, (_DATA, ipc))`` and one report per split."""
    for input_index, split_index, split in items:
        ctx = TaskContext(settings, budget.error_limit)
        mapper = job.inputs[input_index].map
        seq = split_index << SEQ_SPLIT_SHIFT
        buffered: list[pa.Table] = []
        buffered_bytes = 0
        for batch in split.read(budget.batch_rows):
            for out in mapper(batch, ctx) if mapper else [batch]:
                if out.num_rows == 0:
                    continue
                tagged = tag(out, job, input_index, seq)
                seq += out.num_rows
                buffered.append(tagged)
                buffered_bytes += tagged.nbytes
                if buffered_bytes * SPILL_OVERHEAD >= budget.bytes_per_task:
                    for part, rows in _by_part(pa.concat_tables(buffered), job):
                        yield part, (_DATA, _to_ipc(rows))
                    buffered, buffered_bytes = [], 0
        if buffered:
            for part, rows in _by_part(pa.concat_tables(buffered), job):
                yield part, (_DATA, _to_ipc(rows))
        yield 0, (_REPORT, (input_index, split_index), ctx.counters, ctx.errors)


def key_complete_slices(table: pa.Table, key: str, batch_rows: int) -> Iterator[pa.Table]:
    """Slices of a table sorted by ``key``, about ``batch_rows`` each, never splitting a key's rows."""
    n = table.num_rows
    if n == 0:
        return
    keys = table.column(key)
    starts = pc.indices_nonzero(pc.not_equal(keys.slice(1), keys.slice(0, n - 1))).to_numpy() + 1
    begin = 0
    while begin < n:
        at = bisect_left(starts, begin + max(batch_rows, 1))
        end = int(starts[at]) if at < len(starts) else n
        yield table.slice(begin, end - begin)
        begin = end


def _reduce_task(job: Job, settings: Settings, budget: Budget, output_dir: str, part: int,
                 items: Iterable[tuple[int, tuple]]) -> Iterator[tuple[int, list, Counter[str], list[str], int]]:
    """Reduce part ``part``: its shuffled rows plus its co-partitioned parts, sorted, into one Parquet part."""
    ctx = TaskContext(settings, budget.error_limit)
    tables: list[pa.Table] = []
    reports: list[tuple[tuple[int, int], Counter[str], list[str]]] = []
    for _part, value in items:
        if value[0] == _DATA:
            tables.append(_from_ipc(value[1]))
        else:
            reports.append((value[1], value[2], value[3]))
    for i, item in enumerate(job.inputs):
        if item.copartitioned:
            batches = list(copartitioned_run(job, i, part, budget.batch_rows, ctx))
            tables.append(pa.Table.from_batches(batches, schema=job.internal_schema))
    table = sort_table(pa.concat_tables(tables) if tables else job.internal_schema.empty_table(), job.key)
    del tables
    writer = PartWriter(local_or_remote(output_dir) / part_name(part), job.output_schema,
                        budget.row_group_rows, budget.compression)
    try:
        for chunk in key_complete_slices(table, job.key, budget.batch_rows):
            for batch in chunk.combine_chunks().to_batches():
                for out in job.reduce(batch, ctx):
                    writer.write(out)
    finally:
        writer.close()
    yield part, reports, ctx.counters, ctx.errors, writer.rows
