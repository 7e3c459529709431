"""Job engines: the embedded local engine (default) and the Spark engine (``engine=spark``).

Public API: the job model (:class:`Job`, :class:`Input`, :class:`TaskContext`,
:class:`JobResult`), input sources, and :func:`run_job`, which runs a job on the
engine the ``engine`` setting names; sets of independent tasks (fetch shares, parse
groups) with :func:`run_tasks` and :func:`default_task_count` (contract in
:mod:`.task_runner`); jobs that replace a stored table with :func:`run_table_job`
(:mod:`.table_job`); :func:`keep_main_script_out_of_children` for console scripts
(:mod:`.spawn_main`).  Only this package knows Spark.
"""

from __future__ import annotations

from gossamer.engine.api import (
    SEQ_COLUMN,
    SRC_COLUMN,
    Input,
    Job,
    JobResult,
    MapFn,
    ReduceFn,
    Split,
    TaskContext,
    arange,
)
from gossamer.engine.background_job import BackgroundJob
from gossamer.engine.gather import large_binary_array
from gossamer.engine.local import LocalEngine, ProgressFn
from gossamer.engine.memory import crawl_allocators, return_free_memory
from gossamer.engine.runner import run_job
from gossamer.engine.sorted_part import SortedPartWriter
from gossamer.engine.sources import TableSource, TextSource
from gossamer.engine.spawn_main import keep_main_script_out_of_children
from gossamer.engine.spill_budget import SpillBudget
from gossamer.engine.table_job import TableJobReport, TableJobRun, run_table_job, table_lock
from gossamer.engine.task_api import NullReporter, TaskFailed, TaskProgressFn, TaskReporter
from gossamer.engine.task_runner import default_task_count, run_tasks
from gossamer.engine.task_workers import die_with_parent, reuse_task_processes

__all__ = [
    "crawl_allocators",
    "return_free_memory",
    "SEQ_COLUMN",
    "SRC_COLUMN",
    "Input",
    "Job",
    "JobResult",
    "LocalEngine",
    "MapFn",
    "NullReporter",
    "ProgressFn",
    "ReduceFn",
    "SortedPartWriter",
    "SpillBudget",
    "BackgroundJob",
    "Split",
    "TableJobReport",
    "TableJobRun",
    "TableSource",
    "TaskContext",
    "TaskFailed",
    "TaskProgressFn",
    "TaskReporter",
    "TextSource",
    "arange",
    "default_task_count",
    "die_with_parent",
    "keep_main_script_out_of_children",
    "large_binary_array",
    "reuse_task_processes",
    "run_job",
    "run_table_job",
    "run_tasks",
    "table_lock",
]
