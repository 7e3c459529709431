"""The embedded local engine: a job over all cores of this machine, streaming.

Map phase: the splits of every shuffled input run in a process pool; each task
maps its batches, tags rows with ``_src``/``_seq`` and their part number, and
buffers them until its share of ``engine.memory.budget.mb`` is used, then sorts
the buffer and spills one run file per part.  Reduce phase: one task per part
merges that part's runs with the part of every co-partitioned input (already
sorted, streamed in place) and writes the reduce output as a sorted Parquet part.

Workers are spawned processes (``engine.local.workers``, 0 = one per core) — inside a crawl's
:func:`~gossamer.engine.task_workers.reuse_task_processes` its kept processes, when free; a job
with less input than ``engine.local.inline.mb`` runs in-process, where starting workers would cost
more than the work.  Spill files live in a temporary directory
removed when the job ends, whatever the outcome.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from gossamer.core import Settings, driver_state, enter_worker, pid_alive, short_lived_gc, worker_context
from gossamer.engine.api import (
    SEQ_SPLIT_SHIFT,
    Job,
    JobResult,
    Split,
    TaskContext,
)
from gossamer.engine.kept_executor import kept_executor
from gossamer.engine.memory import job_memory_pool
from gossamer.engine.sort import write_run_stream
from gossamer.engine.tasks import (
    RUN_BATCH_ROWS,
    Budget,
    check_copartitioned,
    output_part_name,
    parts_in_order,
    reduce_part,
    tag,
)
from gossamer.store import Place, as_place, part_name

SPILL_OVERHEAD = 4
"""A map buffer of B bytes needs about 4 B while it is partitioned, sorted and written."""

ProgressFn = Callable[[str, int, int], None]
"""``progress(phase, done, total)`` — called in the driver as tasks finish."""


@dataclass(frozen=True)
class _MapTask:
    job: Job
    input_index: int
    split_index: int
    split: Split
    spill_dir: str


@dataclass(frozen=True)
class _ReduceTask:
    job: Job
    part: int
    runs: tuple[str, ...]
    output_dir: str


class LocalEngine:
    """Runs :class:`~gossamer.engine.api.Job` objects on this machine."""

    def __init__(self, settings: Settings, progress: ProgressFn | None = None) -> None:
        self.settings = settings
        self.progress = progress
        configured = settings.get_int("engine.local.workers")
        self.workers = configured if configured > 0 else (os.cpu_count() or 1)

    def run(self, job: Job, output_dir: Place) -> JobResult:
        """Run ``job`` and write its parts into ``output_dir`` (an existing staging directory, or a Location).

        The driver, like the tasks, runs it on the Arrow pool ``engine.memory.pool`` names (a caller reading the
        parts from a progress callback, as ``index`` does, included).
        """
        with job_memory_pool(self.settings.get_str("engine.memory.pool")):
            return self._run(job, output_dir)

    def _run(self, job: Job, output_dir: Place) -> JobResult:
        started = time.monotonic()
        result = JobResult(rows_per_part=[0] * job.parts)
        spill_root = Path(self.settings.get_str("engine.spill.dir") or _local_parent(output_dir))
        spill_root.mkdir(parents=True, exist_ok=True)
        remove_stale_spill_dirs(spill_root)
        spill_dir = Path(tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-{job.name}-", dir=spill_root))
        check_copartitioned(job)
        try:
            map_tasks = [
                _MapTask(job, i, s, split, str(spill_dir))
                for i, item in enumerate(job.inputs) if not item.copartitioned
                for s, split in enumerate(item.source.splits())
            ]
            workers = max(1, min(self.workers, max(len(map_tasks), job.parts)))
            map_sizes = [task.split.size_bytes() for task in map_tasks]
            if _input_bytes(job, map_sizes) < self.settings.get_int("engine.local.inline.mb") * 1024 * 1024:
                workers = 1  # starting processes would cost more than the work
            budget = Budget.from_settings(self.settings, workers)
            runs: dict[int, list[str]] = {p: [] for p in range(job.parts)}
            with _executor(workers) as pool:
                for task_result in self._gather(pool, _run_map, map_tasks, budget, "map", map_sizes):
                    counters, errors, part_runs = task_result
                    result.absorb(counters, errors, budget.error_limit)
                    for part, paths in part_runs.items():
                        runs[part].extend(paths)
                reduce_tasks = [
                    _ReduceTask(job, p, tuple(sorted(runs[p])), str(output_dir)) for p in range(job.parts)
                ]
                for counters, errors, part, rows in self._gather(
                    pool, _run_reduce, reduce_tasks, budget, "reduce",
                    None if job.reduce_in_part_order else [_reduce_size(t) for t in reduce_tasks]
                ):
                    result.absorb(counters, errors, budget.error_limit)
                    result.rows_per_part[part] = rows
        finally:
            shutil.rmtree(spill_dir, ignore_errors=True)
        result.seconds = time.monotonic() - started
        return result

    def _gather(
        self, pool: Executor, fn: Callable[..., Any], tasks: list[Any], budget: Budget, phase: str,
        sizes: list[int] | None = None,
    ) -> Iterator[Any]:
        """Run ``tasks``, largest ``sizes`` first (less idle time at the end); yield results in task order."""
        order = sorted(range(len(tasks)), key=lambda i: -sizes[i]) if sizes else range(len(tasks))
        submitted = {i: pool.submit(fn, tasks[i], self.settings, budget) for i in order}
        futures: list[Future[Any]] = [submitted[i] for i in range(len(tasks))]
        try:
            for done, future in enumerate(futures, start=1):
                yield future.result()
                if self.progress:
                    self.progress(phase, done, len(futures))
        except BaseException:
            for future in futures:
                future.cancel()  # a failed job stops at once instead of finishing every other task
            raise


SPILL_PREFIX = "tmp-spill-"


def _local_parent(output_dir: Place) -> Path:
    """Where spill files go by default: beside a local output, else the system's temporary directory."""
    output_dir = as_place(output_dir)
    return output_dir.parent.local_path() if output_dir.is_local else Path(tempfile.gettempdir())


def remove_stale_spill_dirs(root: Path) -> None:
    """Delete spill directories left in ``root`` by engine processes that no longer run."""
    for candidate in root.glob(SPILL_PREFIX + "*"):
        pid_text = candidate.name[len(SPILL_PREFIX):].split("-", 1)[0]
        if pid_text.isdigit() and not pid_alive(int(pid_text)):
            shutil.rmtree(candidate, ignore_errors=True)


def _reduce_size(task: _ReduceTask) -> int:
    """Approximate input bytes of a reduce task: its spill runs and its parts of co-partitioned inputs."""
    size = sum(os.path.getsize(path) for path in task.runs)
    for item in task.job.inputs:
        if item.copartitioned:
            size += item.source.splits()[task.part].size_bytes()
    return size


def _input_bytes(job: Job, map_sizes: list[int]) -> int:
    """The map tasks' sizes plus the co-partitioned inputs' (a text source is not split again: that reads it)."""
    return sum(map_sizes) + sum(split.size_bytes() for item in job.inputs if item.copartitioned
                                for split in item.source.splits())


class _InlineExecutor(Executor):
    """Runs tasks in the calling process (one worker: no process start-up cost)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller through the future
            future.set_exception(exc)
        return future


def _executor(workers: int) -> Executor:
    """In-process for one worker; else a crawl's kept processes when free (:mod:`.kept_executor`), else new ones."""
    if workers <= 1:
        return _InlineExecutor()
    kept = kept_executor(workers)
    if kept is not None:
        return kept
    context = worker_context()
    return ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=enter_worker,
                               initargs=(driver_state(context),))


def _run_map(task: _MapTask, settings: Settings, budget: Budget) -> tuple[Counter[str], list[str], dict]:
    """One map task in a worker, under :func:`~gossamer.core.short_lived_gc` like the reduce (:func:`_run_reduce`).

    Both run on the Arrow pool ``engine.memory.pool`` names (:func:`~gossamer.engine.memory.job_memory_pool`).
    """
    with short_lived_gc(), job_memory_pool(settings.get_str("engine.memory.pool")):
        return _map_task(task, settings, budget)


def _map_task(task: _MapTask, settings: Settings, budget: Budget) -> tuple[Counter[str], list[str], dict]:
    job = task.job
    ctx = TaskContext(settings, budget.error_limit)
    mapper = job.inputs[task.input_index].map
    buffered: list[pa.Table] = []
    buffered_bytes = 0
    part_runs: dict[int, list[str]] = {}
    seq = task.split_index << SEQ_SPLIT_SHIFT
    run_number = 0

    def spill() -> None:
        nonlocal buffered, buffered_bytes, run_number
        if not buffered:
            return
        table = pa.concat_tables(buffered)
        buffered, buffered_bytes = [], 0
        for part, slices in parts_in_order(table, job, RUN_BATCH_ROWS):
            path = Path(task.spill_dir) / (
                f"run-{task.input_index}-{task.split_index}-{run_number}-{part_name(part)}.arrow"
            )
            write_run_stream(path, slices, table.schema, RUN_BATCH_ROWS)
            part_runs.setdefault(part, []).append(str(path))
        del table
        pa.default_memory_pool().release_unused()
        run_number += 1

    for batch in task.split.read(budget.batch_rows):
        outputs = mapper(batch, ctx) if mapper else [batch]
        for out in outputs:
            if out.num_rows == 0:
                continue
            tagged = tag(out, job, task.input_index, seq)
            seq += out.num_rows
            buffered.append(tagged)
            buffered_bytes += tagged.nbytes
            if buffered_bytes * SPILL_OVERHEAD >= budget.bytes_per_task:
                spill()
    spill()
    return ctx.counters, ctx.errors, part_runs


def _run_reduce(task: _ReduceTask, settings: Settings, budget: Budget) -> tuple[Counter[str], list[str],
                                                                               int, int]:
    """One reduce task in a worker, under :func:`~gossamer.core.short_lived_gc`.

    A reduce builds a few containers per row (documents, datums) that die young, and at Python's
    default thresholds the collector ran every 700 of them (the index job: ~2–3 % of its CPU).
    """
    with short_lived_gc(), job_memory_pool(settings.get_str("engine.memory.pool")):
        ctx = TaskContext(settings, budget.error_limit)
        rows = reduce_part(task.job, ctx, budget, [Path(p) for p in task.runs], task.part,
                           as_place(task.output_dir) / output_part_name(task.job, task.part))
    return ctx.counters, ctx.errors, task.part, rows
