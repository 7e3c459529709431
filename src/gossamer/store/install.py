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
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from gossamer.store.table import TableError, TableVersion, fsync_path

CURRENT = "current"
OLD = "old"
STAGING_PREFIX = "tmp-"


def live_version_dir(table_dir: Path) -> Path | None:
    """The directory readers should use: ``current``, else ``old``; ``None`` if neither exists."""
    for name in (CURRENT, OLD):
        candidate = table_dir / name
        if candidate.is_dir():
            return candidate
    return None


def open_live(table_dir: Path) -> TableVersion:
    """Open the live version of a table; :class:`TableError` when there is none."""
    directory = live_version_dir(table_dir)
    if directory is None:
        raise TableError(f"no table at {table_dir} (no {CURRENT}/ directory)")
    return TableVersion(directory)


def new_staging_dir(table_dir: Path) -> Path:
    """Create and return a fresh staging directory inside ``table_dir``."""
    table_dir.mkdir(parents=True, exist_ok=True)
    path = table_dir / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
    path.mkdir()
    return path


def recover(table_dir: Path) -> list[str]:
    """Repair what a crashed writer left; call only while holding the table lock.

    Returns a description of each action taken (empty when nothing was wrong).
    """
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


def _verify_table(staging: Path) -> None:
    TableVersion(staging).close()  # raises TableError when incomplete


def install(table_dir: Path, staging: Path, keep_backup: bool = True,
            verify: Callable[[Path], None] = _verify_table) -> Path:
    """Make the complete version in ``staging`` the table's ``current``; call under the lock.

    The previous ``current`` becomes ``old`` (removed afterwards unless
    ``keep_backup``).  ``verify`` raises when ``staging`` is incomplete (the
    default checks a Parquet table version and raises :class:`TableError`; the
    full-text index passes its own check).
    """
    verify(staging)
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


def discard(staging: Path) -> None:
    """Remove a staging directory after a failed job."""
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
