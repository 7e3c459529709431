"""The writer lock of a table on a non-local filesystem: a lock object holding the holder record.

There is no ``flock`` on S3 or HDFS, so the lock is an object, ``<table>/.locked``,
whose content is the holder record (pid, host, command, start time and a random
token).  What it guarantees depends on the store:

* **S3 with conditional writes** (AWS S3 since 2024, MinIO, Ceph RGW …; setting
  ``fs.s3.lock.conditional``, on by default; boto3 installed — the ``s3`` extra — with
  any credential source it supports): the object is created with ``PUT`` and
  ``If-None-Match: *`` (:mod:`.s3_conditional`), which the store performs atomically —
  of two writers exactly one creates it, the other gets ``412`` and refuses (or waits).
  This is mutual exclusion.
* **Everything else** (HDFS, GCS, an S3 store without conditional writes, or no
  boto3): a warning says so once, then: check that no lock object exists, write it,
  read it back and compare the token.  That catches a writer that came clearly
  earlier, but two writers starting within the same moment can both succeed:
  running one writer per crawl is then the user's responsibility — which the
  crawl loop already does, as it runs every step from one driver.

Unlike ``flock``, nothing releases the lock when its holder dies: a holder on
this host whose process is gone is taken over (and reported as stale); one on
another host is not, and the error says which object to delete.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import uuid

from gossamer.core import pid_alive
from gossamer.store.location import Location
from gossamer.store.lock_holder import LockedError, LockHolder
from gossamer.store.s3_conditional import ConditionalPutUnavailable, put_if_absent

LOG = logging.getLogger(__name__)


class ObjectLock:
    """Exclusive writer lock object at ``path``; see the module docstring for what it guarantees."""

    def __init__(self, path: Location, wait_seconds: float, command: str, conditional: bool = True) -> None:
        self.path = path
        self.wait_seconds = wait_seconds
        self.command = command
        self.conditional = conditional and path.scheme == "s3"
        self.atomic = False
        """After :meth:`acquire`: whether the lock was taken by an atomic conditional create."""
        self.stale: object | None = None
        self._token: str | None = None

    def acquire(self) -> None:
        """Take the lock, waiting up to ``wait_seconds``; raises LockedError otherwise."""
        token = uuid.uuid4().hex
        record = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "command": self.command,
                             "since": time.time(), "token": token}).encode()
        deadline = time.monotonic() + self.wait_seconds
        while True:
            if self._create(record, token):
                self._token = token
                return
            holder = self._holder()
            if holder is not None and _gone(holder):
                self._remove_if(holder.get("token"))

                self.stale = LockHolder(int(holder["pid"]), str(holder["host"]), str(holder["command"]),
                                        float(holder["since"]))
                continue
            if time.monotonic() >= deadline:
                raise LockedError(
                    f"{self.path.parent.display()} is locked by {_describe(holder)}: another job is writing it. "
                    "Wait for it to finish, or set store.lock.wait.seconds to wait; if that writer is gone, "
                    f"delete {self.path.display()}."
                )
            time.sleep(0.2)

    def _create(self, record: bytes, token: str) -> bool:
        if self.conditional:
            try:
                self.atomic = put_if_absent(self.path, record)
                return self.atomic
            except ConditionalPutUnavailable as exc:
                self.conditional = False
                _warn_once(str(exc))
        if self.path.exists():
            return False
        self.path.write_bytes(record)
        self.atomic = False
        holder = self._holder()
        return holder is not None and holder.get("token") == token

    def _holder(self) -> dict | None:
        try:
            data = json.loads(self.path.read_bytes())
            return data if isinstance(data, dict) else {"command": "unreadable lock record"}
        except FileNotFoundError:
            return None
        except ValueError:
            return {"command": "unreadable lock record"}

    def _remove_if(self, token: object) -> None:
        holder = self._holder()
        if holder is not None and holder.get("token") == token:
            self.path.delete_file()

    def release(self) -> None:
        """Delete the lock object if it still holds this writer's record (idempotent)."""
        if self._token is not None:
            self._remove_if(self._token)
            self._token = None


def _gone(holder: dict) -> bool:
    """Whether the holder is a process of this host that no longer runs."""
    try:
        pid, host = int(holder["pid"]), str(holder["host"])
    except (KeyError, TypeError, ValueError):
        return False
    if host != socket.gethostname() or pid == os.getpid():
        return False
    return not pid_alive(pid)


def _describe(holder: dict | None) -> str:
    if holder is None:
        return "another process"
    try:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(holder["since"])))
        return f"pid {holder['pid']} on {holder['host']} ({holder['command']}, since {started})"
    except (KeyError, TypeError, ValueError):
        return str(holder.get("command", "another process"))


_WARNED: set[str] = set()


def _warn_once(reason: str) -> None:
    """Say (once per reason) that a lock on S3 is check-then-write, not an atomic create."""
    if reason not in _WARNED:
        _WARNED.add(reason)
        LOG.warning("%s: the table lock falls back to check-then-write (two writers starting in the same "
                    "instant could both proceed)", reason)
