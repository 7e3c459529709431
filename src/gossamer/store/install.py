"""Atomic replacement of a table: ``current`` / ``old`` / staging directories.

Layout of a table directory (``crawl/crawldb`` …)::

    current/   the live version (complete: has _SUCCESS)
    old/       the previous version (kept when db.preserve.backup is true)
    tmp-*/     a version being written by a job (or left by a crashed one)
    .locked    the writer lock

A writer holds the lock, writes a complete version into ``tmp-*`` and calls
:func:`install`, which renames ``current`` to ``old`` and the new version to
``current``.  Every step is a rename, so a crash at any moment leaves either the
previous ``current``, or ``old`` alone (crash between the two renames).  The next
writer (and any reader) recovers: with no ``current``, ``old`` is the live
version; :func:`recover` (run under the lock) renames it back and removes
leftover staging directories.  A job that did not finish therefore has no effect.

Every function also takes a :class:`~gossamer.store.location.Location` or a URI
(``s3://…``, ``hdfs://…``): HDFS installs by rename as above, object stores by
writing a pointer object (:mod:`gossamer.store.install_remote`).  Plain paths and
``file://`` URIs take the local code below, unchanged.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from gossamer.store import install_remote as remote
from gossamer.store.location import Location, as_place
from gossamer.store.place import Place
from gossamer.store.table import TableError, TableVersion, fsync_path

"""A table (or version) directory: a local path, a Location, or either's string."""

CURRENT = "current"
OLD = "old"
STAGING_PREFIX = "tmp-"


def live_version_dir(table_dir: Place) -> Place | None:
    """The directory readers should use: ``current``, else ``old``; ``None`` if neither exists.

    On an object store: the version ``CURRENT`` names (``None`` without a pointer).  A local
    directory is returned as an absolute path (it may travel to a process with another
    working directory: a Spark executor).
    """
    table_dir = as_place(table_dir)
    if isinstance(table_dir, Location):
        return remote.live_version(table_dir)
    table_dir = Path(os.path.abspath(table_dir))
    for name in (CURRENT, OLD):
        candidate = table_dir / name
        if candidate.is_dir():
            return candidate
    return None


def open_live(table_dir: Place) -> TableVersion:
    """Open the live version of a table; :class:`TableError` when there is none."""
    directory = live_version_dir(table_dir)
    if directory is None:
        if isinstance(place := as_place(table_dir), Location) and not place.atomic_rename:
            raise TableError(f"no table at {place.display()} (no {remote.POINTER} pointer)")
        raise TableError(f"no table at {table_dir} (no {CURRENT}/ directory)")
    return TableVersion(directory)


def new_staging_dir(table_dir: Place) -> Place:
    """Create and return a fresh staging directory inside ``table_dir`` (an absolute path when local)."""
    table_dir = as_place(table_dir)
    if isinstance(table_dir, Location):
        return remote.new_staging(table_dir)
    table_dir = Path(os.path.abspath(table_dir))
    table_dir.mkdir(parents=True, exist_ok=True)
    path = table_dir / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
    path.mkdir()
    return path


def recover(table_dir: Place) -> list[str]:
    """Repair what a crashed writer left; call only while holding the table lock.

    Returns a description of each action taken (empty when nothing was wrong).
    """
    table_dir = as_place(table_dir)
    if isinstance(table_dir, Location):
        return remote.recover(table_dir)
    actions: list[str] = []
    if not table_dir.is_dir():
        return actions
    current, old = table_dir / CURRENT, table_dir / OLD
    if not current.exists() and old.is_dir():
        os.rename(old, current)
        actions.append(f"restored {current} from {old} (a writer died while installing)")
    for leftover in sorted(table_dir.glob(STAGING_PREFIX + "*")):
        shutil.rmtree(leftover, ignore_errors=True)
        actions.append(f"removed unfinished version {leftover.name}")
    if actions:
        fsync_path(table_dir)
    return actions


def _verify_table(staging: Place) -> None:
    TableVersion(staging).close()  # raises TableError when incomplete


def install(table_dir: Place, staging: Place, keep_backup: bool = True,
            verify: Callable[[Path], None] | Callable[[Location], None] = _verify_table) -> Place:
    """Make the complete version in ``staging`` the table's ``current``; call under the lock.

    The previous ``current`` becomes ``old`` (removed afterwards unless
    ``keep_backup``).  ``verify`` raises when ``staging`` is incomplete (the
    default checks a Parquet table version and raises :class:`TableError`; the
    full-text index passes its own check).  On an object store the version stays
    where it was written and ``CURRENT`` is pointed at it.
    """
    table_dir, staging = as_place(table_dir), as_place(staging)
    if isinstance(table_dir, Location) or isinstance(staging, Location):
        if not (isinstance(table_dir, Location) and isinstance(staging, Location)):
            raise ValueError(f"{staging} and {table_dir} must be on the same filesystem")
        return remote.install(table_dir, staging, keep_backup, verify)  # type: ignore[arg-type]
    verify(staging)  # type: ignore[arg-type]
    current, old = table_dir / CURRENT, table_dir / OLD
    if old.exists():
        trash = table_dir / f"{STAGING_PREFIX}trash-{uuid.uuid4().hex[:8]}"
        os.rename(old, trash)
        shutil.rmtree(trash)
    if current.exists():
        os.rename(current, old)
    os.rename(staging, current)
    fsync_path(table_dir)
    if not keep_backup and old.exists():
        shutil.rmtree(old)
    return current


def discard(staging: Place) -> None:
    """Remove a staging directory after a failed job."""
    staging = as_place(staging)
    if isinstance(staging, Location):
        remote.discard(staging)
        return
    shutil.rmtree(staging, ignore_errors=True)


__all__ = [
    "CURRENT",
    "OLD",
    "TableError",
    "discard",
    "install",
    "live_version_dir",
    "new_staging_dir",
    "open_live",
    "recover",
]
