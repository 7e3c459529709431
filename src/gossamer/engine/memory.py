"""Give memory that a finished job left free back to the operating system.

A long-lived process (the ``crawl`` driver runs generate and updatedb itself, then keeps
running while the fetch processes work) keeps the peak of every job it ran: CPython's and
Arrow's allocators hold freed memory for reuse.  Measured on a generate of 196,100 URLs
(5,000 hosts): the driver grew from 143 to 398 MB and stayed there; after
:func:`return_free_memory` it held 248 MB.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from functools import cache

import pyarrow as pa


@cache
def _malloc_trim() -> object | None:
    """The C library's ``malloc_trim`` (glibc; None where there is none)."""
    name = ctypes.util.find_library("c")
    try:
        return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    except OSError:
        return None


def return_free_memory() -> None:
    """Collect garbage cycles, then return the free memory of Arrow's pool and of malloc to the system.

    Changes nothing a caller can see but the process's resident size; never raises.
    """
    gc.collect()
    pa.default_memory_pool().release_unused()
    trim = _malloc_trim()
    if callable(trim):
        trim(0)
