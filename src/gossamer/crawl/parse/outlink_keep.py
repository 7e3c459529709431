"""The outlink filter's per-link loop (:meth:`~gossamer.crawl.parse.outlinks.OutlinkFilter.outlinks`), in C when built.

:func:`keep_links` walks a page's link targets in document order and keeps each one that
is not the page itself, whose processed URL (from the filter's memo) is not ``None`` and
not kept already, and that the ``db.ignore.*`` scope keeps, until ``limit`` links are kept.
A target first seen is processed by the caller's ``enter`` (which must put its entry in the
memo); the walk then goes on from there.  The optional C extension ``_outlinks`` (built at
install time like parse-html's link walk) runs the walk without a Python step per link;
without it, or with ``GOSSAMER_OUTLINKS=python``, the same walk runs in Python.  Both give
the same result (``tests/test_outlink_keep.py``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

ENV_VAR = "GOSSAMER_OUTLINKS"
"""``python`` selects the Python walk for every filter built afterwards."""
IGNORE_EXTERNAL = 1
IGNORE_INTERNAL = 2

Entry = tuple[str | None, str | None]
"""A memo entry: the processed URL (``None``: dropped) and the raw target's origin (``None``: unknown)."""


@dataclass(frozen=True, slots=True)
class Scope:
    """What :func:`keep_links` needs of the ``db.ignore.*`` rules.

    ``mode``: :data:`IGNORE_EXTERNAL` and/or :data:`IGNORE_INTERNAL` (0: every link is in scope);
    ``exempt(from_url, to_url)`` decides on an external link when external links are ignored
    (``None``: none is exempted).
    """

    mode: int = 0
    exempt: Callable[[str, str], bool] | None = None


@cache
def _native() -> Any | None:
    try:
        return importlib.import_module("gossamer.crawl.parse._outlinks")
    except ImportError:
        return None


def native_available() -> bool:
    """Whether the C walk is built and not turned off by ``GOSSAMER_OUTLINKS=python``."""
    return os.environ.get(ENV_VAR, "").strip().lower() != "python" and _native() is not None


def _in_scope(from_url: str, raw: str, source: str | None, target: str | None, mode: int,
              exempt: Callable[[str, str], bool] | None) -> bool:
    if target is None:
        return False
    internal = source is not None and source == target
    if mode & IGNORE_EXTERNAL and not internal:
        return exempt is not None and bool(exempt(from_url, raw))
    return not (mode & IGNORE_INTERNAL and internal)


def _walk_python(to_urls: list[str], start: int, memo: dict[str, Entry], from_url: str, source: str | None,
                 mode: int, exempt: Callable[[str, str], bool] | None, seen: set[str], kept_urls: list[str],
                 kept: list[int], limit: int) -> int:
    """The C walk's contract in Python: -1 when done, else the index of the first target missing from the memo."""
    for index in range(start, len(to_urls)):
        raw = to_urls[index]
        if raw == from_url:
            continue
        entry = memo.get(raw)
        if entry is None:
            return index
        url = entry[0]
        if url is None or url in seen:
            continue
        if mode and not _in_scope(from_url, raw, source, entry[1], mode, exempt):
            continue
        seen.add(url)
        kept_urls.append(url)
        kept.append(index)
        if len(kept) >= limit:
            break
    return -1


def keep_links(to_urls: list[str], memo: dict[str, Entry], enter: Callable[[str], Entry], from_url: str,
               source: str | None, scope: Scope, limit: int, native: bool = True) -> tuple[list[str], list[int]]:
    """``(kept URLs, their indexes in to_urls)``, in order (see the module docstring).

    ``enter(raw)`` is called for a target missing from ``memo`` and returns its entry (which it
    may also remember in ``memo``; when it does not, it is put there); ``source`` is the page's
    own origin (``None``: unknown); ``limit`` ≥ 1.
    """
    walk = _native().keep if native and native_available() else _walk_python  # type: ignore[union-attr]
    seen = {from_url}
    kept_urls: list[str] = []
    kept: list[int] = []
    exempt = scope.exempt if scope.mode & IGNORE_EXTERNAL else None
    index = 0
    while True:
        index = walk(to_urls, index, memo, from_url, source, scope.mode, exempt, seen, kept_urls, kept, limit)
        if index < 0:
            return kept_urls, kept
        raw = to_urls[index]
        entry = enter(raw)
        if raw not in memo:
            memo[raw] = entry
