"""Atomic replacement of a table on a non-local filesystem, by the protocol that filesystem allows.

**Rename** (HDFS, and any filesystem whose directory rename is atomic): the local
layout and steps, through pyarrow — ``current/``, ``old/``, ``tmp-*/``; install
renames ``current`` to ``old`` and the staging directory to ``current``; a crash
between the two renames leaves ``old`` alone, which readers use and
:func:`recover` renames back.

**Pointer** (object stores — S3, GCS …, where a "directory rename" copies object by
object and a crash leaves half of it)::

    <table>/v-<millis>-<id>/part-*.parquet, _table.json, _SUCCESS   one prefix per version
    <table>/CURRENT      {"current": "v-…", "previous": "v-…" | null}
    <table>/.locked      the writer lock (gossamer.store.lock_remote)

A job writes its version under a fresh ``v-…/`` prefix, ``_SUCCESS`` last.
:func:`install` then writes ``CURRENT`` in one PUT: object stores replace an
object atomically (a reader gets the whole old or the whole new object; S3 has
been strongly read-after-write consistent since 2020), so that PUT is the
commit.  Readers resolve ``CURRENT`` and never list-and-guess.  A crash before
the PUT leaves the old pointer, hence the old version, live; the new prefix is
an orphan that :func:`recover` deletes (it deletes every ``v-*``/``tmp-*`` prefix
the pointer does not name).  ``previous`` is the backup (``db.preserve.backup``);
a version is deleted only once it is neither current nor previous, so a reader
that resolved the pointer keeps a readable version through the next install.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable

from gossamer.store.location import Location
from gossamer.store.table import TableError

POINTER = "CURRENT"
VERSION_PREFIX = "v-"
CURRENT, OLD, STAGING_PREFIX = "current", "old", "tmp-"


# -- the pointer protocol (object stores) -----------------------------------------------------
def read_pointer(table: Location) -> dict[str, str | None] | None:
    """The table's ``CURRENT`` record, or ``None`` when the table has none (no table yet)."""
    try:
        raw = (table / POINTER).read_bytes()
    except FileNotFoundError:
        return None
    try:
        data = json.loads(raw)
        current = data["current"]
        if not isinstance(current, str) or not current.startswith(VERSION_PREFIX):
            raise ValueError(current)
    except (ValueError, KeyError, TypeError):
        raise TableError(f"{(table / POINTER).display()} is not a table pointer: {raw[:200]!r}") from None
    previous = data.get("previous")
    return {"current": current, "previous": previous if isinstance(previous, str) else None}


def _named(pointer: dict[str, str | None] | None) -> set[str]:
    return {name for name in (pointer or {}).values() if name}


# -- both protocols -------------------------------------------------------------------------
def live_version(table: Location) -> Location | None:
    """The version readers use: the pointer's ``current`` (object stores) or ``current``/``old`` (rename)."""
    if table.atomic_rename:
        for name in (CURRENT, OLD):
            if (table / name).is_dir():
                return table / name
        return None
    pointer = read_pointer(table)
    return table / str(pointer["current"]) if pointer else None


def new_staging(table: Location) -> Location:
    """A fresh, empty place for a new version (``tmp-*`` with rename, ``v-<millis>-<id>`` with the pointer)."""
    if table.atomic_rename:
        staging = table / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
        staging.mkdir()
        return staging
    return table / f"{VERSION_PREFIX}{int(time.time() * 1000):013d}-{uuid.uuid4().hex[:12]}"


def recover(table: Location) -> list[str]:
    """Repair what a crashed writer left (call under the lock); one description per action."""
    actions: list[str] = []
    if table.atomic_rename:
        if not table.is_dir():
            return actions
        if not (table / CURRENT).exists() and (table / OLD).is_dir():
            (table / OLD).rename(table / CURRENT)
            actions.append(f"restored {(table / CURRENT).display()} from {OLD} (a writer died while installing)")
        prefixes: tuple[str, ...] = (STAGING_PREFIX,)
        keep: set[str] = set()
    else:
        prefixes, keep = (VERSION_PREFIX, STAGING_PREFIX), _named(read_pointer(table))
    for info in table.list():
        if info.base_name.startswith(prefixes) and info.base_name not in keep:
            (table / info.base_name).delete_dir()
            actions.append(f"removed unfinished version {info.base_name}")
    return actions


def install(table: Location, staging: Location, keep_backup: bool, verify: Callable[[Location], None]) -> Location:
    """Make ``staging`` the live version (call under the lock); returns where it now lives."""
    verify(staging)
    if table.atomic_rename:
        current, old = table / CURRENT, table / OLD
        if old.exists():
            trash = table / f"{STAGING_PREFIX}trash-{uuid.uuid4().hex[:8]}"
            old.rename(trash)
            trash.delete_dir()
        if current.exists():
            current.rename(old)
        staging.rename(current)
        if not keep_backup:
            old.delete_dir()
        return current
    before = read_pointer(table)
    previous = before["current"] if before and keep_backup else None
    record = {"current": staging.name, "previous": previous, "installed": int(time.time() * 1000)}
    (table / POINTER).write_bytes(json.dumps(record).encode() + b"\n")  # the commit: one atomic PUT
    for name in sorted(_named(before) - {staging.name, previous}):
        (table / name).delete_dir()
    return staging


def discard(staging: Location) -> None:
    """Remove a staging version after a failed job."""
    staging.delete_dir()
