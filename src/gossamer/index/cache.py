"""Local copies of index versions that live on another filesystem (``s3://``, ``hdfs://`` …).

tantivy reads and writes local directories only, so an index on another
filesystem is searched, and extended, through a local copy of one of its
versions.  The cache directory (setting ``index.cache.dir``; by default
``<system temp dir>/gossamer-index-cache-<uid>``) holds, per index URI::

    <cache>/<index id>/                       readable name of the URI + hash of it (endpoint included)
    <cache>/<index id>/<version>-<created>/   a complete, verified copy of one version; never changed
    <cache>/<index id>/tmp-<pid>-<id>/        a download, or a writer's next version, in progress

A version is named by its directory name and the creation time in its
``_index.json`` (``v-<millis>-<id>`` names are unique on object stores; on HDFS the
name is ``current`` and the creation time tells versions apart).  A copy appears
under its name only by renaming a finished, verified download into place, so a
copy that exists is complete; two processes sharing the cache may download the
same version at once — the second rename fails and that process uses the first
copy.  :meth:`IndexCache.prune` deletes the copies a process no longer needs and
the ``tmp-*`` directories of processes that died; a process still searching a
deleted copy keeps reading it (POSIX keeps an open file until it is closed).
The cache must be on a local disk of the machine (the pid check is per host).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
import uuid
from pathlib import Path

from gossamer.core import Settings, pid_alive
from gossamer.index.store import IndexDescription, verify_index
from gossamer.store import Copied, Location, Place, TableError, as_place, copy_tree, live_version_dir

TMP_PREFIX = "tmp-"
LOCK_SUFFIX = ".lock"
FETCH_ATTEMPTS = 3


def is_lock_file(name: str) -> bool:
    """Tantivy's lock files (``.tantivy-writer.lock`` …): never copied between filesystems."""
    return name.endswith(LOCK_SUFFIX)


def cache_root(settings: Settings) -> Path:
    """The cache directory: ``index.cache.dir``, else ``<temp dir>/gossamer-index-cache-<uid>``."""
    configured = settings.get_str("index.cache.dir")
    if configured:
        return Path(configured).expanduser()
    return Path(tempfile.gettempdir()) / f"gossamer-index-cache-{os.getuid()}"


def index_id(index: Location) -> str:
    """The cache folder name of an index URI: a readable tail of it and a hash of the whole URI."""
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", index.display()).strip("_")[-60:]
    return f"{readable}-{hashlib.sha256(str(index).encode()).hexdigest()[:12]}"


def version_key(name: str, created: int) -> str:
    """The cache name of a version: its directory name and creation time."""
    return f"{name}-{created}"


class IndexCache:
    """The local cache of one index on another filesystem (see the module docstring)."""

    def __init__(self, index: Location, settings: Settings) -> None:
        self.index = index
        self.root = cache_root(settings) / index_id(index)

    def live(self) -> tuple[Location, str] | None:
        """The index's live version and its cache key (``None`` when it has none); reads ``_index.json``."""
        found = live_version_dir(self.index)
        if found is None:
            return None
        version = as_place(found)
        return version, version_key(version.name, IndexDescription.read(version).created)

    def scratch(self) -> Path:
        """A fresh, empty ``tmp-<pid>-<id>`` directory in the cache."""
        path = self.root / f"{TMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex[:12]}"
        path.mkdir(parents=True)
        return path

    def local_copy(self, version: Location, key: str) -> tuple[Path, Copied | None]:
        """A verified local copy of ``version``: the cached one, else downloaded now (with what was copied).

        :class:`TableError` (or ``OSError``) when the version is incomplete or
        changed while it was read (a writer replaced it: ask :meth:`live` again).
        """
        target = self.root / key
        if target.is_dir():
            try:
                verify_index(target)
                return target, None
            except TableError:
                self._remove(target)  # damaged by hand: fetch it again
        tmp = self.scratch()
        try:
            copied = copy_tree(version, tmp, skip=is_lock_file)
            verify_index(tmp)
            got = version_key(version.name, IndexDescription.read(tmp).created)
            if got != key:
                raise TableError(f"{version.display()} changed while it was downloaded ({got}, expected {key})")
            try:
                os.rename(tmp, target)
            except OSError:
                if not target.is_dir():
                    raise
            return target, copied
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)

    def fetch_live(self) -> tuple[Path, str, Copied | None] | None:
        """A local copy of the live version, its key and what was downloaded (``None``: the index has none).

        Retries when a writer replaced the version while it was being downloaded.
        """
        failure: Exception | None = None
        for _ in range(FETCH_ATTEMPTS):
            live = self.live()
            if live is None:
                return None
            try:
                path, copied = self.local_copy(*live)
                return path, live[1], copied
            except (TableError, OSError) as exc:
                failure = exc
        raise TableError(f"{self.index.display()}: could not copy the live index version ({failure})")

    def adopt(self, scratch: Path, key: str) -> Path:
        """Move a complete version built in ``scratch`` into the cache as ``key`` (a writer's new version)."""
        target = self.root / key
        try:
            os.rename(scratch, target)
        except OSError:
            shutil.rmtree(scratch, ignore_errors=True)
        return target

    def prune(self, keep: set[str]) -> list[str]:
        """Delete cached versions not in ``keep`` and the ``tmp-*`` of dead processes; the names deleted."""
        removed: list[str] = []
        if not self.root.is_dir():
            return removed
        for entry in sorted(self.root.iterdir()):
            if entry.name in keep:
                continue
            if entry.name.startswith(TMP_PREFIX):
                pid = entry.name[len(TMP_PREFIX):].split("-", 1)[0]
                if not pid.isdigit() or (int(pid) > 0 and pid_alive(int(pid))):
                    continue  # pid 0: the trash of a removal
            self._remove(entry)
            removed.append(entry.name)
        return removed

    def _remove(self, entry: Path) -> None:
        """Delete a cache entry: renamed aside first, so nobody finds it half deleted under its name."""
        trash = self.root / f"{TMP_PREFIX}0-{uuid.uuid4().hex[:12]}"
        try:
            os.rename(entry, trash)
        except OSError:
            return
        shutil.rmtree(trash, ignore_errors=True)


def local_live_version(place: Place, cache: IndexCache | None) -> tuple[Path, str, Copied | None] | None:
    """The live version of an index as a local directory, its key and what was downloaded.

    A local index's own version (key ``""``), else ``cache``'s copy of the remote one
    (:meth:`IndexCache.fetch_live`); ``None`` when there is none.
    """
    if cache is None:
        live = live_version_dir(place)
        return (as_place(live).local_path(), "", None) if live is not None else None
    return cache.fetch_live()


__all__ = ["IndexCache", "cache_root", "index_id", "is_lock_file", "local_live_version", "version_key"]
