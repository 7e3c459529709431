"""Where an index writer builds the next index version, and how it installs it, on any filesystem.

tantivy writes local directories only.  An :class:`IndexTarget` gives the writer
a local directory holding the live version, a local scratch directory for the
next one, and installs that scratch directory atomically, all under the index's
writer lock:

* **local index** (a path, ``file://``): as ever — the scratch directory is a
  ``tmp-*`` inside the index directory (so the shards' files can be hard-linked
  from ``current``), installed by rename (:func:`gossamer.store.install.install`).
* **index on another filesystem** (``s3://``, ``hdfs://`` …): the lock is the
  table lock object (:mod:`gossamer.store.lock_remote`) and recovery deletes what a
  crashed writer left (an orphaned ``v-*`` or ``tmp-*``).  The live version is
  copied into the local cache (:mod:`gossamer.index.cache`; a verified cached copy
  of exactly that version is reused), the next version is built in a scratch
  directory beside it (hard links again), then uploaded under a fresh version
  prefix (``v-<millis>-<id>/`` on object stores, ``tmp-*/`` where rename is atomic),
  shard files first, ``_index.json`` and ``_SUCCESS`` last, and installed by the
  table protocol: one PUT of ``CURRENT`` on object stores, the renames on HDFS.
  Every version is uploaded whole (tantivy's files are immutable, but a version
  that referenced another version's files could not be deleted with it).  The
  scratch directory then becomes the cache's copy of the new version, so the
  next run on this machine downloads nothing.

A failure before the install leaves the live version as it was; the uploaded
prefix is deleted at once, or by the next writer's recovery after a crash.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gossamer.core import Settings
from gossamer.index.cache import IndexCache, is_lock_file, local_live_version, version_key
from gossamer.index.store import INDEX_FILE, IndexDescription, verify_index
from gossamer.store import (
    SUCCESS_MARKER,
    Copied,
    Place,
    TableLock,
    as_place,
    copy_tree,
    discard,
    install,
    new_staging_dir,
    recover,
)


class IndexTarget:
    """One index directory (local path or URI) as a writer sees it; see the module docstring.

    Call :meth:`acquire` first and :meth:`release` last; notes about recovery,
    downloads and uploads are appended to ``notes``.
    """

    def __init__(self, location: str | Place, settings: Settings, notes: list[str] | None = None) -> None:
        self.place = as_place(location, settings)
        self.settings = settings
        self.notes: list[str] = notes if notes is not None else []
        self.cache = None if self.place.is_local else IndexCache(self.place, settings)
        self.uploaded: Copied | None = None
        """What the last :meth:`install` uploaded (``None`` for a local index)."""
        self._lock = TableLock(self.place, settings.get_float("store.lock.wait.seconds"),
                               conditional=settings.get_bool("fs.s3.lock.conditional"))

    def display(self) -> str:
        """The index for messages (a path, or the URI without options)."""
        return self.place.display()

    def acquire(self) -> None:
        """Take the writer lock and repair what a crashed writer left."""
        if not self.place.is_local:
            self.place.make_dirs()  # HDFS: the lock object's directory (a no-op on object stores)
        self._lock.acquire()
        if self._lock.stale is not None:
            self.notes.append(f"took over the lock of a writer that died ({self._lock.stale.describe()})")
        self.notes.extend(recover(self.place))

    def release(self) -> None:
        """Release the writer lock (idempotent)."""
        self._lock.release()

    def live(self) -> Path | None:
        """A local directory holding the live version (copied into the cache if remote), or ``None``."""
        found = local_live_version(self.place, self.cache)
        if found is None:
            return None
        path, key, copied = found
        if copied is not None:
            self.notes.append(f"downloaded index version {key} ({copied.files} files, {copied.bytes} bytes) "
                              f"into {path}")
        return path

    def new_scratch(self) -> Path:
        """A fresh local directory to build the next version in (same filesystem as :meth:`live`)."""
        if self.cache is not None:
            return self.cache.scratch()
        return as_place(new_staging_dir(self.place)).local_path()

    def install(self, scratch: Path) -> None:
        """Make the complete version in ``scratch`` the live one (see the module docstring)."""
        keep = self.settings.get_bool("db.preserve.backup")
        if self.cache is None:
            install(self.place, scratch, keep_backup=keep, verify=verify_index)
            return
        verify_index(scratch)
        remote = new_staging_dir(self.place)
        try:
            self.uploaded = copy_tree(scratch, remote, skip=is_lock_file, last=(INDEX_FILE, SUCCESS_MARKER))
            installed = install(self.place, remote, keep_backup=keep, verify=verify_index)
        except BaseException:
            try:
                discard(remote)
            except OSError:
                pass  # unreachable store: the next writer's recovery deletes the orphan
            raise
        key = version_key(installed.name, IndexDescription.read(scratch).created)
        self.cache.adopt(scratch, key)
        self.cache.prune({key})
        self.notes.append(f"uploaded index version {installed.name} to {self.display()} "
                          f"({self.uploaded.files} files, {self.uploaded.bytes} bytes)")

    @staticmethod
    def discard(scratch: Path) -> None:
        """Drop an unfinished local version."""
        shutil.rmtree(scratch, ignore_errors=True)


__all__ = ["IndexTarget"]
