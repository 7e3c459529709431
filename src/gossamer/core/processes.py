"""Whether a process of this machine still runs (for leftovers named after their writer's pid)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True when process ``pid`` exists on this machine (also when it belongs to another user).

    Spill directories, index cache downloads and lock objects record their writer's pid;
    their cleaners use this to tell a dead writer's leftovers from a running writer's work.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
