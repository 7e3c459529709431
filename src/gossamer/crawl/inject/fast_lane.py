"""The inject map's fast lane: seed lines that are one clean URL, handled as Arrow columns.

Most seed lines are a bare URL already in normal form that the filters accept.  For them the
per-line path (parse the line, :func:`~gossamer.core.url_problem`, normalize, filter, build a
row) only ever yields the line itself as the URL, with the default score and interval and no
metadata.  :func:`fast_line_mask` finds such lines with a few vectorized screens over the whole
batch, so they never become Python objects; the other lines take the per-line path, and
:func:`in_line_order` puts both kinds of rows back in line order (the last line of a URL wins).

Contract of :func:`fast_line_mask`: true only for a line that the per-line path would turn into
exactly ``(url=line, score=default, interval=default, metadata=None)`` — the line has no read
problem, passes :func:`~gossamer.plugins.support.urlscreen.valid_url_mask` (printable ASCII: no
tab, blank, metadata or comment) and the chain's :meth:`~gossamer.plugins.URLChain.unchanged_mask`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.plugins import URLChain, valid_url_mask
from gossamer.store import CRAWLDB_SCHEMA

Column = Sequence[Any] | pa.Array
"""A column of values: a Python list or an Arrow array."""

_METADATA = CRAWLDB_SCHEMA.field("metadata").type


@dataclass(frozen=True)
class SeedDefaults:
    """Score and fetch interval of a seed line without ``nutch.score`` / ``nutch.fetchInterval``."""

    score: float
    interval: int


@dataclass
class SlowRows:
    """Rows made line by line: each with the position of its line in the batch."""

    positions: list[int] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)
    intervals: list[int] = field(default_factory=list)
    metadata: list[list[tuple[str, str]] | None] = field(default_factory=list)
    seed_lines: int = 0

    def add(self, position: int, url: str, score: float, interval: int,
            metadata: list[tuple[str, str]] | None) -> None:
        """Append the row of the line at ``position``."""
        self.positions.append(position)
        self.urls.append(url)
        self.scores.append(score)
        self.intervals.append(interval)
        self.metadata.append(metadata)


@dataclass(frozen=True)
class FastRows:
    """The fast lane's lines of a batch: their positions and URLs (the lines themselves)."""

    positions: pa.Array
    urls: pa.Array

    @property
    def count(self) -> int:
        """Number of fast-lane rows."""
        return len(self.urls)

    @classmethod
    def of(cls, batch: pa.RecordBatch, mask: pa.BooleanArray | None) -> FastRows:
        """The lines of ``batch`` where ``mask`` is true (none when ``mask`` is ``None``)."""
        if mask is None:
            return cls(pa.array([], pa.int64()), pa.array([], pa.string()))
        return cls(pc.indices_nonzero(mask), batch.column("line").filter(mask))


def fast_line_mask(batch: pa.RecordBatch, chain: URLChain, schemes: Collection[str]) -> pa.BooleanArray | None:
    """True for the lines of ``batch`` the fast lane may take (see the module docstring).

    ``None`` when the chain offers no batch shortcut (every line then takes the per-line path).
    """
    lines = batch.column("line")
    mask = pc.and_(pc.is_null(batch.column("problem")), valid_url_mask(lines, schemes))
    if not pc.any(mask).as_py():
        return mask
    kept = chain.unchanged_mask(lines.filter(mask))
    if kept is None:
        return None
    return pc.replace_with_mask(mask, mask, kept)


def in_line_order(fast: FastRows, slow: SlowRows, defaults: SeedDefaults) -> tuple[pa.Array, ...]:
    """The columns (url, score, interval, metadata) of both kinds of rows, in the order of their lines."""
    n = fast.count
    urls = [fast.urls, pa.array(slow.urls, pa.string())]
    scores = [pa.repeat(pa.scalar(defaults.score, pa.float32()), n), pa.array(slow.scores, pa.float32())]
    intervals = [pa.repeat(pa.scalar(defaults.interval, pa.int32()), n), pa.array(slow.intervals, pa.int32())]
    metadata = [pa.nulls(n, _METADATA), pa.array(slow.metadata, _METADATA)]
    columns = tuple(pa.concat_arrays(parts) for parts in (urls, scores, intervals, metadata))
    if not n or not slow.urls:
        return columns
    order = pc.sort_indices(pa.concat_arrays([fast.positions.cast(pa.int64()), pa.array(slow.positions, pa.int64())]))
    return tuple(column.take(order) for column in columns)
