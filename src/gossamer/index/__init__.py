"""Indexing: the index job, the index directory and its schema.

Public API: :func:`index` and :func:`clean` (what ``gossamer index`` / ``clean``
run), :class:`IndexOptions`, :class:`IndexReport`, the index directory helpers
(:class:`IndexDescription`, :func:`live_index`, :func:`shard_of`), an index on another
filesystem (:class:`IndexTarget` for writers, :class:`IndexCache` for readers) and the schema
(:data:`CORE_FIELDS`, :func:`analyze`), the keys of the ``name`` field (:func:`exact_key`,
:func:`folded_key`; filter ``index-name``), the stemmed shadow fields (:class:`Analysis`,
:func:`query_stems`, :func:`stem_field`), the CJK shadow fields (:func:`cjk_field`,
:func:`is_cjk_field`), what searchers read of a shard (:func:`open_shard`,
:func:`engine_stats`), the page vectors of ``search.semantic`` (:func:`embedder`,
:func:`read_vectors`), and the document one page would become (:func:`check_document`, for
``indexchecker``).  Indexing filters are plugins (:mod:`gossamer.plugins.api`); the built-in
IndexWriter ``indexer-tantivy`` lives here (:mod:`.tantivy_writer`) and registers by entry point.
"""

from gossamer.index.analysis import Analysis, is_stem_field, query_stems, shadow_terms, stem_field
from gossamer.index.ann import ann_rows, open_ann, set_expansion
from gossamer.index.ballast import BALLAST_ID, EngineStats, engine_stats
from gossamer.index.cache import IndexCache, local_live_version
from gossamer.index.check import DocumentCheck, check_document
from gossamer.index.cjk import cjk_field, is_cjk_field
from gossamer.index.documents import IndexOptions
from gossamer.index.embeddings import Embedder, EmbeddingError, embedder
from gossamer.index.indexer import IndexReport, clean, index
from gossamer.index.name_field import exact_key, folded_key
from gossamer.index.schema import CORE_FIELDS, analyze
from gossamer.index.store import INDEX_FILE, IndexDescription, live_index, open_shard, shard_name, shard_of
from gossamer.index.target import IndexTarget
from gossamer.index.vectors import ShardVectors, has_vectors, read_vectors

__all__ = [
    "Analysis",
    "cjk_field",
    "is_cjk_field",
    "is_stem_field",
    "ann_rows",
    "open_ann",
    "set_expansion",
    "query_stems",
    "shadow_terms",
    "stem_field",
    "BALLAST_ID",
    "INDEX_FILE",
    "EngineStats",
    "Embedder",
    "EmbeddingError",
    "ShardVectors",
    "embedder",
    "has_vectors",
    "read_vectors",
    "engine_stats",
    "local_live_version",
    "open_shard",
    "shard_name",
    "CORE_FIELDS",
    "DocumentCheck",
    "IndexCache",
    "IndexDescription",
    "IndexOptions",
    "IndexReport",
    "IndexTarget",
    "analyze",
    "check_document",
    "exact_key",
    "folded_key",
    "clean",
    "index",
    "live_index",
    "shard_of",
]
