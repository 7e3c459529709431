"""The writer lock of a table directory (``<table>/.locked``, Nutch's name).

The lock is an exclusive ``flock`` on the file, so the kernel releases it when the
holding process dies, however it dies.  The file also records who holds it
(pid, host, command, start time): a second writer either waits up to
``store.lock.wait.seconds`` or refuses at once with a message naming the holder,
and a writer that finds the record of a dead holder reports the stale lock it
took over.  ``flock`` is reliable on local filesystems; on a shared filesystem
use the cluster engine's commit protocol instead.

On a non-local filesystem (``s3://``, ``hdfs://`` …) the lock is a lock object
instead: :mod:`gossamer.store.lock_remote` says what it guarantees there.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path

from gossamer.store.location import Location, as_place
from gossamer.store.lock_holder import LockedError, LockHolder
from gossamer.store.place import Place

LOCK_FILE = ".locked"


def _read_holder(fd: int) -> LockHolder | None:
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 65536)
    if not raw.strip():
        return None
    try:
        data = json.loads(raw)
        return LockHolder(int(data["pid"]), str(data["host"]), str(data["command"]), float(data["since"]))
    except (ValueError, KeyError, TypeError):
        return LockHolder(-1, "?", "unreadable lock record", 0.0)


class TableLock:
    """Exclusive writer lock on a table directory; use as a context manager.

    ``stale`` is set after acquiring when the file recorded a holder that is
    gone (a crashed writer): callers report it and clean up after it.
    """

    def __init__(self, table_dir: Place | str, wait_seconds: float = 0.0, command: str | None = None,
                 conditional: bool = True) -> None:
        place = as_place(table_dir)
        self.path: Place = place / LOCK_FILE
        self.wait_seconds = wait_seconds
        self.command = command or " ".join(os.path.basename(a) if i == 0 else a
                                           for i, a in enumerate(sys.argv[:3]))
        self.stale: LockHolder | None = None
        self._fd: int | None = None
        self._object = None
        if isinstance(self.path, Location):
            from gossamer.store.lock_remote import ObjectLock

            self._object = ObjectLock(self.path, wait_seconds, self.command, conditional)

    def acquire(self) -> None:
        """Take the lock, waiting up to ``wait_seconds``; raises :class:`LockedError` otherwise."""
        if self._object is not None:
            self._object.acquire()
            self.stale = self._object.stale  # type: ignore[assignment]
            return
        assert isinstance(self.path, Path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.wait_seconds
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_holder(fd)
                    os.close(fd)
                    who = holder.describe() if holder else "another process"
                    raise LockedError(
                        f"{self.path.parent} is locked by {who}: another job is writing it. "
                        "Wait for it to finish, or set store.lock.wait.seconds to wait."
                    ) from None
                time.sleep(0.05)
        self.stale = _read_holder(fd)
        record = {"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                  "since": time.time()}
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, json.dumps(record).encode())
        os.fsync(fd)
        self._fd = fd

    def release(self) -> None:
        """Clear the holder record and release the lock (the file stays, empty; a lock object is deleted)."""
        if self._object is not None:
            self._object.release()
            return
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None

    def __enter__(self) -> TableLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
