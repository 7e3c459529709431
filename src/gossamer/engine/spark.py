"""The Spark engine: the same :class:`~gossamer.engine.api.Job` objects on PySpark's RDD API.

How a job maps onto RDD operations::

    sc.parallelize(splits, numSlices=len(splits))          one element (and task) per input split
      .mapPartitions(map task)                             read split, job map, tag _src/_seq, part numbers
          → (part, Arrow IPC bytes of that part's rows)    + one (0, counters) record per split
      .partitionBy(job.parts, lambda p: p)                 THE SHUFFLE: Arrow blobs, never Python rows
      .mapPartitionsWithIndex(reduce task)                 store each blob (a sorted run) on local disk, merge
          → (part, map reports, counters, errors, rows)    them with co-partitioned part p (read in place) by
                                                           (key, _src, _seq), job reduce, write part-NNNNN.parquet
                                                           (or .arrow: Job.output_format)
      .collect()                                           small: counters only

The job's map and reduce functions run unchanged; tagging, sorting runs by part, the
co-partitioned reader and the whole reduce (merge, reduce, write under a temporary name, rename:
:mod:`gossamer.engine.tasks`) are the local engine's, so both engines write the same rows into
the same parts, and a reduce holds about one batch per run whatever the size of its part.  Map
tasks send their counters and error samples to reduce 0 as a small record; the driver absorbs
them in split order, then the reduce tasks' in part order, as the local engine does.

Jobs that are not map/reduce — fetch and parse, whose tasks each own whole hosts or WARC
files and write their own part — run through :func:`run_tasks`: one Spark task per part.

Limit of this version: the output directory must be a filesystem path every executor can write.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from gossamer.core import Settings, SettingsError, format_value
from gossamer.engine.api import SEQ_SPLIT_SHIFT, Job, JobResult, Split, TaskContext
from gossamer.engine.local import SPILL_OVERHEAD, ProgressFn
from gossamer.engine.sort import STREAM_RUN_SUFFIX
from gossamer.engine.spark_progress import StageProgress
from gossamer.engine.tasks import (
    Budget,
    check_copartitioned,
    output_part_name,
    reduce_part,
    remove_attempts,
    sorted_by_part,
    tag,
)
from gossamer.store import Place, as_place

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
    driver.  Every other ``spark.*`` setting (``-D spark.executor.memory=4g``) is passed on
    (:func:`spark_properties`), after the loopback defaults, so it can override them.
    Raises :class:`SettingsError` when PySpark is not installed.
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
    for name, value in spark_properties(settings).items():
        builder = builder.config(name, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel(settings.get_str("spark.log.level"))
    _SESSION.append(session)
    atexit.register(stop_session)
    return session


def spark_properties(settings: Settings) -> dict[str, str]:
    """The ``spark.*`` settings meant for Spark itself (all but Gossamer's ``spark.master``/``spark.log.level``)."""
    own = {"spark.master", "spark.log.level"}
    return {name: format_value(settings.get(name)) for name in sorted(settings.values)
            if name.startswith("spark.") and name not in own}


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
        place = as_place(output_dir)
        # absolute: executors run in their own working directories
        settings, out = self.settings, str(place.absolute())
        mapped = (context.parallelize(tasks, numSlices=len(tasks)) if tasks else context.emptyRDD())
        shuffled = mapped.mapPartitions(
            lambda items: _map_task(job, settings, budget, items)
        ).partitionBy(job.parts, lambda part: part)
        if self.progress:
            self.progress("map", 0, len(tasks))
        with StageProgress(context, f"gossamer {job.name}: {len(tasks)} map tasks, {job.parts} parts",
                           self.progress):
            outcomes = shuffled.mapPartitionsWithIndex(
                lambda part, items: _reduce_task(job, settings, budget, out, part, items)
            ).collect()
        remove_attempts(output_dir)
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


def task_slots(settings: Settings) -> int:
    """How many tasks the Spark session runs at once (``defaultParallelism``)."""
    return int(spark_session(settings, "gossamer").sparkContext.defaultParallelism)


def run_tasks(settings: Settings, name: str, function: Callable[..., Any], calls: Sequence[tuple]) -> list[Any]:
    """Run ``function(*call)`` for every call as one Spark task each; results in the order of ``calls``.

    For jobs whose tasks are independent and own their output part (fetch: whole hosts
    per task, so politeness holds across executors; parse: whole WARC files per task).
    ``function`` and the arguments must pickle; a task that fails fails the job (Spark
    retries it up to ``spark.task.maxFailures`` times; the task rewrites its part from
    scratch).  Speculative execution would run a fetch task twice at once, so it is
    refused here.  Relative :class:`~pathlib.Path` arguments (also inside lists, tuples and
    dicts) are made absolute first: executors run in their own working directories; places inside other
    objects (a job's dataclass of task arguments) must be absolute already (``Place.absolute()``).
    """
    context = spark_session(settings, f"gossamer-{name}").sparkContext
    if context.getConf().get("spark.speculation", "false").lower() == "true":
        raise SettingsError(f"{name} on Spark: spark.speculation must be false (a task would run twice at once)")
    if not calls:
        return []
    indexed = [(i, _absolute(call)) for i, call in enumerate(calls)]
    with StageProgress(context, f"gossamer {name}: {len(calls)} tasks", None):
        results = context.parallelize(indexed, numSlices=len(indexed)).map(
            lambda item: (item[0], function(*item[1]))).collect()
    return [result for _, result in sorted(results, key=lambda pair: pair[0])]


def _absolute(value: Any) -> Any:
    """``value`` with every place or local path in it (also in lists, tuples, dicts) made absolute."""
    if isinstance(value, Place | os.PathLike):
        return as_place(value).absolute()
    if isinstance(value, (list, tuple)):
        return type(value)(_absolute(item) for item in value)
    if isinstance(value, dict):
        return {key: _absolute(item) for key, item in value.items()}
    return value


def _to_ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema, options=_IPC_OPTIONS) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


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
                    for part, rows in sorted_by_part(pa.concat_tables(buffered), job):
                        yield part, (_DATA, _to_ipc(rows))
                    buffered, buffered_bytes = [], 0
        if buffered:
            for part, rows in sorted_by_part(pa.concat_tables(buffered), job):
                yield part, (_DATA, _to_ipc(rows))
        yield 0, (_REPORT, (input_index, split_index), ctx.counters, ctx.errors)


def _reduce_task(job: Job, settings: Settings, budget: Budget, output_dir: str, part: int,
                 items: Iterable[tuple[int, tuple]]) -> Iterator[tuple[int, list, Counter[str], list[str], int]]:
    """Reduce part ``part``: store each shuffled block (a sorted run) on local disk, then merge and reduce.

    The blocks go to a directory under ``engine.spill.dir``, else the first of Spark's
    ``SPARK_LOCAL_DIRS``, else the system's temporary directory, removed at the end; the
    merge (:func:`~gossamer.engine.tasks.reduce_part`, the local engine's) holds about one
    batch per run, so a part may be far larger than the task's memory.
    """
    ctx = TaskContext(settings, budget.error_limit)
    reports: list[tuple[tuple[int, int], Counter[str], list[str]]] = []
    spill_root = settings.get_str("engine.spill.dir") or os.environ.get("SPARK_LOCAL_DIRS", "").split(",")[0] or None
    if spill_root:
        Path(spill_root).mkdir(parents=True, exist_ok=True)
    spill = Path(tempfile.mkdtemp(prefix=f"gossamer-reduce-{part:05d}-", dir=spill_root))
    try:
        runs: list[Path] = []
        for _part, value in items:
            if value[0] == _DATA:
                runs.append(spill / f"run-{len(runs):06d}{STREAM_RUN_SUFFIX}")
                runs[-1].write_bytes(value[1])
            else:
                reports.append((value[1], value[2], value[3]))
        rows = reduce_part(job, ctx, budget, runs, part, as_place(output_dir) / output_part_name(job, part))
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    yield part, reports, ctx.counters, ctx.errors, rows
