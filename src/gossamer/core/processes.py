"""Process-level helpers: whether a process still runs, dying with the parent, the garbage collector's pace."""

from __future__ import annotations

import ctypes
import gc
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

PR_SET_PDEATHSIG = 1
EXIT_ORPHANED = 70
"""Exit status of a task process whose driver died."""


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


def die_with_parent(parent_pid: int) -> None:
    """End this process when ``parent_pid`` (the driver) dies, however it dies (``kill -9`` too).

    On Linux the kernel sends SIGKILL at the parent's death (``PR_SET_PDEATHSIG``); everywhere
    a daemon thread also checks once a second that the parent is still this process's parent.
    A parent already gone when this runs ends the process at once.
    """
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(EXIT_ORPHANED)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="gossamer-parent-watch", daemon=True).start()


def die_with(pid: int) -> None:
    """End this process when process ``pid`` (the driver, not this process's parent) ends, however it ends.

    For a process whose parent is not the driver (a fork server's child): the kernel's parent-death
    signal would follow the server, which itself lives as long as its children.  A daemon thread waits
    on a pidfd of ``pid`` (Linux 5.3+: readable the moment it ends, ``kill -9`` too), else checks once a
    second that it still exists.  A ``pid`` already gone when this runs ends the process at once.
    """
    try:
        handle: int | None = os.pidfd_open(pid)
    except ProcessLookupError:
        os._exit(EXIT_ORPHANED)
    except (AttributeError, OSError):
        handle = None
    if handle is None and not pid_alive(pid):
        os._exit(EXIT_ORPHANED)

    def watch() -> None:
        if handle is not None:
            select.select([handle], [], [])
        else:
            while pid_alive(pid):
                time.sleep(1.0)
        os._exit(EXIT_ORPHANED)

    threading.Thread(target=watch, name="gossamer-driver-watch", daemon=True).start()


PAGE_WORK_GC_THRESHOLDS = (20_000, 20, 20)
"""Cyclic-GC thresholds while pages are fetched and parsed (Python's defaults: 700, 10, 10).

Parsing a page allocates thousands of small containers (DOM nodes, outlinks, datums) that
die young; at the default first threshold the collector runs every 700 of them and each
older-generation pass walks the parse buffers and URL caches again — about a sixth of a
fetch process's CPU on the doc web (issue 22).  Reference counting frees those objects
anyway; the collector is only needed for cycles, which page work rarely makes.
"""


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Within: the objects alive on entry are left out of cyclic garbage collections (``gc.freeze``).

    For a long step (a fetch loop, a crawl's rounds) whose objects alive at its start — modules,
    plugins, settings, caches — live through it: every collection, and ``gc.collect`` in
    :func:`~gossamer.engine.memory.return_free_memory`, then walks only what the step made.  A
    full collection right after the imports of a fetch process took 38 ms for 87,000 objects,
    10 µs with them frozen.  The frozen objects are put back on exit (``gc.unfreeze``).  Inside
    a scope of its own, or with objects already frozen by someone else, it changes nothing.
    """
    if gc.get_freeze_count():
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@contextmanager
def short_lived_gc() -> Iterator[None]:
    """Run the block with :data:`PAGE_WORK_GC_THRESHOLDS`, restored after; nothing frozen.

    Cheap enough to enter per engine task (a map or reduce task builds a few containers per row
    that die young; the index job's step took 4 % less wall time with it): :func:`frozen_heap`
    asks ``gc.get_freeze_count()``, which walks every frozen object (CPython 3.11), so a crawl's
    driver, whose heap is frozen, paid milliseconds per task for it.
    """
    previous = gc.get_threshold()
    gc.set_threshold(*PAGE_WORK_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


@contextmanager
def page_work_gc() -> Iterator[None]:
    """Run the block under :func:`short_lived_gc` and a :func:`frozen_heap` (for a long step, entered once)."""
    with short_lived_gc(), frozen_heap():
        yield
