"""Which pages of results a page links to: first, previous, next and last (0-based start ranks).

Contract of :func:`page_links` for a page that asked for ``n`` hits from rank
``start`` and got ``shown`` of ``total``:

* ``first`` is 0; ``previous`` is ``max(0, start - n)``, ``None`` on the first page;
* ``next`` is ``start + n`` while this page is full, hits remain (``start + n < total``)
  and ``start + n`` is a rank the server pages to (≤ ``MAX_START``); else ``None``;
* ``last`` is the start of the last page of ``total`` in steps of ``n`` from
  ``start`` (so first … next … last walk the same pages), no further than ``MAX_START``.

``total`` counts every match; with hits per site grouped, fewer can be shown, and the
``last`` page may then be empty — ``next`` never points past the hits shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from gossamer.web.context import MAX_START


@dataclass(frozen=True)
class PageLinks:
    """Start ranks of the pages linked from one page (``None``: no such page)."""

    first: int
    previous: int | None
    next: int | None
    last: int


def page_links(start: int, n: int, total: int, shown: int) -> PageLinks:
    """The linked pages of a page (see the module docstring); ``n`` ≥ 1."""
    previous = max(0, start - n) if start > 0 else None
    following = start + n
    has_next = shown >= n and following < total and following <= MAX_START
    last = start + ((max(total, 1) - 1 - start) // n) * n
    if last > MAX_START:
        last = start + ((MAX_START - start) // n) * n
    if last < 0:
        last = start % n
    return PageLinks(0, previous, following if has_next else None, last)
