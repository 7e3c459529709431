"""Who holds a lock, and the error raised when someone else does (shared by local and remote locks)."""

from __future__ import annotations

import time
from dataclasses import dataclass


class LockedError(RuntimeError):
    """Another live process holds the lock."""


@dataclass(frozen=True)
class LockHolder:
    """Who holds (or held) a lock."""

    pid: int
    host: str
    command: str
    since: float

    def describe(self) -> str:
        """Human-readable holder description."""
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        return f"pid {self.pid} on {self.host} ({self.command}, since {started})"
