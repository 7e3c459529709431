"""Running a job that replaces a stored table: lock, recover, run, install.

Every job that rewrites a table (inject, updatedb, mergedb …) goes through
:func:`run_table_job`, so each of them gets the same guarantees: one writer at
a time, a crashed writer's leftovers repaired first, the new version written
beside the old one and installed by rename only once it is complete.

The table may live on any filesystem :class:`~gossamer.store.location.Location`
supports (a path, ``file://``, ``s3://``, ``hdfs://`` …): the store picks the
install protocol (rename, or a pointer object on object stores) and the lock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gossamer.core import Report, Settings
from gossamer.engine.api import Job, JobResult
from gossamer.engine.local import ProgressFn
from gossamer.engine.runner import run_job
from gossamer.store import (
    Place,
    TableDescription,
    TableLock,
    TableVersion,
    as_place,
    discard,
    finish_version,
    install,
    live_version_dir,
    new_staging_dir,
    recover,
)


@dataclass
class TableJobReport(Report):
    """What a job that replaced a table did: counters, sample error messages, rows in the new version."""

    counters: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    total_urls: int = 0
    seconds: float = 0.0
    recovered: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TableJobRun:
    """What a job builder needs to know: the live version (if any) and the part count to write."""

    table_dir: Place
    existing: TableVersion | None
    parts: int


def table_lock(table_dir: Place, settings: Settings) -> TableLock:
    """The writer lock of ``table_dir`` as the settings configure it (not yet acquired).

    ``store.lock.wait.seconds`` is how long to wait for another writer;
    ``fs.s3.lock.conditional`` whether an S3 lock is taken by a conditional PUT.
    """
    return TableLock(table_dir, settings.get_float("store.lock.wait.seconds"),
                     conditional=settings.get_bool("fs.s3.lock.conditional"))


def run_table_job(
    table_dir: Place | str, kind: str, settings: Settings, build: Callable[[TableJobRun], Job],
    progress: ProgressFn | None = None, held_lock: TableLock | None = None, absorbs: Sequence[str] = (),
    carry: Callable[[str], bool] | None = None,
) -> tuple[JobResult, list[str]]:
    """Build the job with ``build``, run it, and install its output as the table's new version.

    The new version's description carries the live version's ``absorbed`` segment names
    forward (those ``carry`` accepts, when given), with ``absorbs`` added (updatedb's segments,
    mergedb's inputs' names).  The description records the job's part count.

    Returns the job result and the recovery actions taken before it ran.  Pass
    ``held_lock`` when the caller already holds the table's lock (e.g. generate,
    which locks the crawldb for its whole run).  Raises
    :class:`~gossamer.store.LockedError` when another writer holds the table.
    """
    table_dir = as_place(table_dir, settings)
    lock = held_lock or table_lock(table_dir, settings)
    if held_lock is None:
        lock.acquire()
    try:
        recovered = recover(table_dir)
        if lock.stale is not None and held_lock is None:
            recovered.insert(0, f"took over the stale lock of {lock.stale.describe()}, which is gone")
        live = live_version_dir(table_dir)
        existing = TableVersion(live) if live is not None else None
        parts = existing.parts if existing is not None else settings.get_int("store.parts")
        job = build(TableJobRun(table_dir, existing, parts))
        staging = new_staging_dir(table_dir)
        try:
            try:
                result = run_job(job, staging, settings, progress)
            finally:
                if existing is not None:
                    existing.close()
            carried = existing.description.absorbed if existing is not None else ()
            if carry is not None:
                carried = tuple(name for name in carried if carry(name))
            finish_version(staging, TableDescription(
                kind=kind, parts=job.parts, key=job.key, rows=result.rows, job=job.name,
                created=int(time.time() * 1000), absorbed=tuple(dict.fromkeys([*carried, *absorbs])),
            ))
            install(table_dir, staging, keep_backup=settings.get_bool("db.preserve.backup"))
        except BaseException:
            discard(staging)
            raise
    finally:
        if held_lock is None:
            lock.release()
    return result, recovered
