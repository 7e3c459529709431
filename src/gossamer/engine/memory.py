"""Give memory that a finished job left free back to the operating system, and the allocators a crawl runs on.

:func:`return_free_memory`: a long-lived process (the ``crawl`` driver runs generate and updatedb itself, then keeps
running while the fetch processes work) keeps the peak of every job it ran: CPython's and
Arrow's allocators hold freed memory for reuse.  Measured on a generate of 196,100 URLs
(5,000 hosts): the driver grew from 143 to 398 MB and stayed there; after
:func:`return_free_memory` it held 248 MB.

:func:`crawl_allocators`: the settings a crawl's processes run with (:data:`CRAWL_ALLOCATOR_ENV`).  A
fetch process of a polite crawl of 5,000 hosts builds and drops Arrow batches of its part writers
for minutes while its Python objects churn; Arrow's default pool (mimalloc) and glibc's malloc
each kept freed memory resident, so the process grew while the live data did not (bench/README.md,
session 30: Arrow's pool 40–80 MB live in a process of 350–400 MB).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import pyarrow as pa


@cache
def _libc_function(function: str) -> object | None:
    """The C library's ``function`` (``malloc_trim``, ``mallopt``: glibc's; None where there is none)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), function, None) if name else None
    except OSError:
        return None


def return_free_memory() -> None:
    """Collect garbage cycles, then return the free memory of Arrow's pool and of malloc to the system.

    Changes nothing a caller can see but the process's resident size; never raises.
    """
    gc.collect()
    pa.default_memory_pool().release_unused()
    trim_malloc()


def trim_malloc() -> None:
    """Return the free pages of malloc's heaps to the system (glibc's ``malloc_trim``; elsewhere nothing).

    A few ms when there is little to return (~100 ms for hundreds of MB); never raises.
    """
    trim = _libc_function("malloc_trim")
    if callable(trim):
        trim(0)


CRAWL_ALLOCATOR_ENV: dict[str, str] = {
    "ARROW_DEFAULT_MEMORY_POOL": "system",
    "MALLOC_ARENA_MAX": "2",
    "MALLOC_MMAP_THRESHOLD_": str(1 << 20),
    "MIMALLOC_PURGE_DELAY": "0",
}
"""Allocator settings for a crawl's processes (what the environment sets already wins).

* ``ARROW_DEFAULT_MEMORY_POOL=system``: Arrow's buffers come from malloc, so a dropped batch's memory
  goes back to the system (below) instead of staying in mimalloc's segments;
* ``MALLOC_MMAP_THRESHOLD_`` = 1 MiB, fixed: blocks of 1 MiB and more (Arrow's column buffers) are
  mapped on their own and unmapped when freed.  glibc's default threshold moves up to the size of
  the largest block freed (up to 32 MiB), after which such buffers come from the heap and fragment
  it; smaller blocks (a socket read's 256 KiB) still come from the heap;
* ``MALLOC_ARENA_MAX=2``: threads (the part writers' spill threads, the resolver's) share two
  arenas instead of getting one each;
* ``MIMALLOC_PURGE_DELAY=0``: where mimalloc is still the pool (the environment chose it), freed pages
  are purged at once.

Measured on a polite crawl of 5,000 hosts, 150 s into round 2 (bench/README.md, session 30): the
process tree's peak 1,069 MB with the first two at their defaults, 864 MB with these settings.
"""

POOLS = ("jemalloc", "mimalloc", "system")
"""Arrow memory pools ``engine.memory.pool`` may name (``""``: pyarrow's default, mimalloc in its wheels)."""


def arrow_pool(name: str) -> pa.MemoryPool | None:
    """Arrow's pool called ``name`` (:data:`POOLS`), or None for ``""`` or one this pyarrow was built without."""
    factory = {"jemalloc": pa.jemalloc_memory_pool, "mimalloc": pa.mimalloc_memory_pool,
               "system": pa.system_memory_pool}.get(name)
    try:
        return factory() if factory is not None else None
    except NotImplementedError:
        return None


@contextmanager
def job_memory_pool(name: str) -> Iterator[None]:
    """Within: Arrow's default pool is ``name`` (``engine.memory.pool``), unless the environment names one.

    ``ARROW_DEFAULT_MEMORY_POOL`` in the environment wins: a crawl's processes run on the system pool
    (:data:`CRAWL_ALLOCATOR_ENV`), whose freed memory goes back at once.  ``""`` (the default) leaves
    pyarrow's own default (mimalloc).  Measured on the index job (bench/README.md, session 39): jemalloc
    faults fewer fresh pages in (system time 2.4 → 2.1 s, wall −3 % in 5 alternating pairs) but keeps
    freed memory longer (the process tree's peak +200–270 MB, +15 %), so it is a choice, not the default.
    Buffers remember their pool, so leaving is safe at any time.
    """
    pool = None if "ARROW_DEFAULT_MEMORY_POOL" in os.environ else arrow_pool(name)
    if pool is None:
        yield
        return
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pool)
    try:
        yield
    finally:
        pa.set_memory_pool(previous)


_M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter numbers (malloc.h)."""
_M_ARENA_MAX = -8


@contextmanager
def crawl_allocators() -> Iterator[None]:
    """Within: this process and the processes it starts use :data:`CRAWL_ALLOCATOR_ENV`'s allocators.

    Processes started within get the settings in their environment, except those the environment
    already sets.  This process: Arrow's default pool becomes the system pool (the previous one comes
    back on leaving; buffers remember the pool they came from) and glibc's ``mallopt`` gets the
    threshold and arena settings, which stay for the rest of the process (glibc cannot go back to
    a moving threshold).  Never raises for want of glibc or of a pool.
    """
    added = [name for name in CRAWL_ALLOCATOR_ENV if name not in os.environ]
    previous_pool = pa.default_memory_pool()
    if "ARROW_DEFAULT_MEMORY_POOL" in added:
        pa.set_memory_pool(pa.system_memory_pool())
    mallopt = _libc_function("mallopt")
    if callable(mallopt):
        for name, parameter in (("MALLOC_MMAP_THRESHOLD_", _M_MMAP_THRESHOLD), ("MALLOC_ARENA_MAX", _M_ARENA_MAX)):
            if name in added:
                mallopt(parameter, int(CRAWL_ALLOCATOR_ENV[name]))
    for name in added:
        os.environ[name] = CRAWL_ALLOCATOR_ENV[name]
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)
        pa.set_memory_pool(previous_pool)
