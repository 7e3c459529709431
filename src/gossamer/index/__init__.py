"""Indexing: the index job, the index directory and its schema.

Public API: :func:`index` and :func:`clean` (what ``gossamer index`` / ``clean``
run), :class:`IndexOptions`, :class:`IndexReport`, the index directory helpers
(:class:`IndexDescription`, :func:`live_index`, :func:`shard_of`), an index on another
filesystem (:class:`IndexTarget` for writers, :class:`IndexCache` for readers) and the schema
(:data:`CORE_FIELDS`, :func:`analyze`).  Indexing filters and index writers are
plugins (:mod:`gossamer.plugins.api`).
"""

from gossamer.index.cache import IndexCache
from gossamer.index.documents import IndexOptions
from gossamer.index.indexer import IndexReport, clean, index
from gossamer.index.schema import CORE_FIELDS, analyze
from gossamer.index.store import IndexDescription, live_index, shard_of
from gossamer.index.target import IndexTarget

__all__ = [
    "CORE_FIELDS",
    "IndexCache",
    "IndexDescription",
    "IndexOptions",
    "IndexReport",
    "IndexTarget",
    "analyze",
    "clean",
    "index",
    "live_index",
    "shard_of",
]
