"""The index job's engine half: join the crawldb, the linkdb and segments by URL into index actions.

Inputs, in this order (so within a URL the engine hands the rows over in this order):
the crawldb, the linkdb, the web graph's nodes (only with ``index.static.rank=linkrank``)
and, per segment, ``crawl_fetch``, ``parse_data`` and ``parse_text``.  The job partitions
by the CRC-32 of the whole URL, not by host:
a crawl of a few large sites would otherwise leave one reduce doing most of the
work (the crawldb and linkdb are shuffled instead of streamed, a fair price).
Each map projects its table onto :data:`SHUFFLE_SCHEMA` (one
``kind`` per table; columns of other tables are null).  The reduce
(:class:`IndexReducer`) keeps only URLs that have segment rows (or, with
``-deleteGone``, a crawldb status that calls for a delete) and hands each to
:class:`~gossamer.index.documents.DocumentBuilder`; the output is one row per
action (:data:`ACTIONS_SCHEMA`: add with the document as JSON, or delete; with
``search.semantic`` an added document's page vector, embedded here, as float16 bytes).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import InlinkList
from gossamer.engine import Input, Job, TableSource, TaskContext, large_binary_array
from gossamer.index.ascii_json import ascii_json
from gossamer.index.document_values import (
    DELETE_DB_STATUSES,
    KIND_DB,
    KIND_FETCH,
    KIND_LINKS,
    KIND_NODE,
    KIND_PARSE_DATA,
    KIND_PARSE_TEXT,
)
from gossamer.index.documents import DocumentBuilder, IndexOptions
from gossamer.index.embeddings import embedder
from gossamer.index.page_rows import LazyColumns
from gossamer.plugins import IndexingFilter, PluginRepository, ScoringFilter, settings_key
from gossamer.store import CRAWLDB_SCHEMA, KEY_PARTITIONER_NAME, SUCCESS_MARKER, Place, TableVersion, table_present

METADATA = pa.map_(pa.string(), pa.string())
INLINK_TYPE = pa.struct([pa.field("from_url", pa.string()), pa.field("anchor", pa.string())])
INLINKS_TYPE = pa.list_(INLINK_TYPE)
SHUFFLE_SCHEMA = pa.schema(
    [pa.field("url", pa.string(), nullable=False), pa.field("kind", pa.uint8()), pa.field("segment", pa.string())]
    + [pa.field(f.name, f.type) for f in CRAWLDB_SCHEMA if f.name not in ("url", "host")]
    + [pa.field("parse_status", pa.uint8()), pa.field("title", pa.string()),
       pa.field("content_metadata", METADATA), pa.field("parse_metadata", METADATA),
       pa.field("text", pa.large_string()), pa.field("inlinks", INLINKS_TYPE)]
)
ACTION_ADD, ACTION_DELETE = 1, 2
ACTIONS_SCHEMA = pa.schema([pa.field("url", pa.string(), nullable=False), pa.field("action", pa.uint8()),
                            pa.field("doc", pa.large_string()), pa.field("vector", pa.binary())])
SEGMENT_TABLES = (("crawl_fetch", KIND_FETCH), ("parse_data", KIND_PARSE_DATA), ("parse_text", KIND_PARSE_TEXT))
REDUCE_BATCH_ROWS = 4096
"""Rows per reduce batch (~800 pages): the batch's columns become Python lists at once, so a whole part in one
batch (``engine.batch.rows``) made each worker hold all its texts, inlinks and documents together (the doc web:
a worker's peak ~875 MB, each page of it first touched at a cost)."""
READ_COLUMNS = {KIND_PARSE_DATA: ("url", "status", "title", "content_metadata", "parse_metadata")}
"""Columns read of a table whose other columns the job never uses (parse_data's outlinks)."""


@dataclass(frozen=True)
class ProjectRows:
    """Map: one table's rows onto :data:`SHUFFLE_SCHEMA`, tagged with its kind and segment."""

    kind: int
    segment: str = ""
    inlink_sources: bool = True
    """``False``: the inlinks' source URLs are left out (``""``; see :func:`inlink_sources_read`)."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        n = batch.num_rows
        names = set(batch.schema.names)
        arrays = []
        for field in SHUFFLE_SCHEMA:
            source = field.name
            if self.kind == KIND_PARSE_DATA and field.name == "parse_status":
                source = "status"
            elif self.kind == KIND_PARSE_DATA and field.name == "status":
                source = ""
            if field.name == "kind":
                arrays.append(pa.array([self.kind] * n, pa.uint8()))
            elif field.name == "segment":
                arrays.append(pa.array([self.segment] * n, pa.string()))
            elif source in names:
                column = batch.column(source)
                column = column if column.type == field.type else column.cast(field.type)
                arrays.append(column if field.name != "inlinks" or self.inlink_sources else _without_sources(column))
            else:
                arrays.append(pa.nulls(n, field.type))
        yield pa.RecordBatch.from_arrays(arrays, schema=SHUFFLE_SCHEMA)


def _without_sources(inlinks: pa.Array) -> pa.Array:
    """An :data:`INLINKS_TYPE` column with every source URL ``""`` (the same lists, nulls and anchors)."""
    start, end = inlinks.offsets[0].as_py(), inlinks.offsets[-1].as_py()
    anchors = inlinks.values.slice(start, end - start).field("anchor")  # ``values`` ignores the slice offset
    empty = pa.py_buffer(np.zeros(len(anchors) + 1, dtype=np.int32))
    sources = pa.StringArray.from_buffers(len(anchors), empty, pa.py_buffer(b""))
    entries = pa.StructArray.from_arrays([sources, anchors], fields=list(INLINK_TYPE))
    offsets = pc.subtract(inlinks.offsets, pa.scalar(start, pa.int32())) if start else inlinks.offsets
    return pa.ListArray.from_arrays(offsets, entries, type=INLINKS_TYPE, mask=inlinks.is_null())


def inlink_sources_read(repo: PluginRepository) -> bool:
    """Whether an active indexing or scoring filter reads the source URLs of a page's inlinks.

    Filters say so by ``reads_inlink_sources``; a scoring filter overriding neither ``indexer_score`` nor
    ``indexer_scores`` reads no inlinks.  When none does, the job's map leaves the source URLs out of the
    shuffle (a third of the linkdb's bytes): the documents are the same.
    """
    if any(f.reads_inlink_sources for f in repo.chain(IndexingFilter)):
        return True
    return any(f.reads_inlink_sources and (type(f).indexer_score is not ScoringFilter.indexer_score
                                           or type(f).indexer_scores is not ScoringFilter.indexer_scores)
               for f in repo.chain(ScoringFilter))


@dataclass(frozen=True)
class IndexReducer:
    """Reduce: the index actions of each URL (see :class:`~gossamer.index.documents.DocumentBuilder`)."""

    options: IndexOptions
    ascii_documents: bool = False
    """Documents with every character beyond ASCII escaped (:mod:`~gossamer.index.ascii_json`): for ``index``'s
    own staging, which its driver hands to tantivy-py as ``str``."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        if batch.num_rows == 0:
            return
        kinds = batch.column("kind")
        wanted = pc.and_(pc.greater_equal(kinds, KIND_FETCH), pc.less_equal(kinds, KIND_PARSE_TEXT))
        if self.options.delete_gone:
            gone = pc.and_(pc.equal(kinds, KIND_DB), pc.is_in(batch.column("status"), value_set=DELETE_DB_STATUSES))
            wanted = pc.or_(wanted, pc.fill_null(gone, False))
        urls = pc.unique(batch.column("url").filter(wanted))
        if len(urls) == 0:
            return
        kept = pc.is_in(batch.column("url"), value_set=urls)
        # the kept rows by number, not a filtered copy of the batch (its texts, inlinks and metadata)
        rows = None if kept.true_count == batch.num_rows else np.flatnonzero(kept.to_numpy(zero_copy_only=False))
        n = batch.num_rows if rows is None else len(rows)
        columns = LazyColumns(batch, _pylist, None if rows is None else rows.tolist())
        builder: DocumentBuilder = ctx.cached(settings_key(ctx.settings, "index-builder", self.options),
                                              lambda: DocumentBuilder(ctx.settings, self.options))
        out_urls: list[str] = []
        out_actions: list[int] = []
        out_docs: list[bytes | None] = []
        embed: list[tuple[int, str]] = []
        for url, action, doc, text in builder.actions(columns, n, ctx):
            if text is not None:
                embed.append((len(out_urls), text))
            out_urls.append(url)
            out_actions.append(action)
            out_docs.append(ascii_json(doc) if self.ascii_documents and doc is not None else doc)
        if out_urls:
            yield pa.RecordBatch.from_arrays([pa.array(out_urls, pa.string()), pa.array(out_actions, pa.uint8()),
                                              utf8_array(out_docs),
                                              _vectors(ctx, len(out_urls), embed)], schema=ACTIONS_SCHEMA)


def utf8_array(values: list[bytes | None]) -> pa.LargeStringArray:
    """``values`` (UTF-8 bytes, as orjson writes them, or None) as a large string array, without re-validation.

    ``pa.array(values, pa.large_string())`` checks every byte of every document again (~0.3 s of a doc
    web's index job); bytes that are not UTF-8 are the caller's bug, never the input's.
    """
    return large_binary_array(values, pa.large_string())


def _vectors(ctx: TaskContext, n: int, texts: list[tuple[int, str]]) -> pa.Array:
    """The ``vector`` column of ``n`` actions: row ``i`` of ``texts`` embedded (float16 bytes), else null.

    Embedding here, in the reduce tasks, spreads it over the engine's workers; each row is
    embedded on its own (:class:`~gossamer.index.embeddings.Embedder`), so the vectors do not
    depend on which rows share a batch.
    """
    if not texts:
        return pa.nulls(n, pa.binary())
    model = embedder(ctx.settings.get_str("search.semantic.model"))
    matrix = model.embed([text for _, text in texts]).astype(np.float16)
    out: list[bytes | None] = [None] * n
    for (i, _), row in zip(texts, matrix, strict=True):
        out[i] = row.tobytes()
    return pa.array(out, pa.binary())


def _pylist(column: pa.Array) -> list[Any]:
    """A column as Python values: timestamps as epoch milliseconds, inlinks as InlinkList, string maps as dicts.

    No datetime objects; a map key given twice keeps its last value, as ``dict`` of the pairs does.
    """
    if column.type == INLINKS_TYPE:
        return _inlink_lists(column)
    if column.type == METADATA:
        return _map_dicts(column)
    if pa.types.is_timestamp(column.type):
        column = column.cast(pa.timestamp("ms", tz=column.type.tz)).cast(pa.int64())
    return column.to_pylist()


def _map_dicts(column: pa.Array) -> list[dict[str, str | None] | None]:
    """A map column as one dict per row (``None`` for a null row), read column-wise (no tuple per entry)."""
    if column.null_count == len(column):
        return [None] * len(column)
    offsets = column.offsets.to_pylist()
    entries = column.values.slice(offsets[0], offsets[-1] - offsets[0])  # ``values`` ignores the slice offset
    keys = entries.field(0).to_pylist()
    items = entries.field(1).to_pylist()
    base = offsets[0]
    return [dict(zip(keys[start - base:end - base], items[start - base:end - base], strict=True)) if valid else None
            for valid, start, end in zip(column.is_valid().to_pylist(), offsets, offsets[1:], strict=False)]


def _inlink_lists(column: pa.Array) -> list[InlinkList | None]:
    """An ``inlinks`` column as one :class:`InlinkList` per row (``None`` for a null row), null strings as ``""``.

    Read column-wise: no dict and no :class:`~gossamer.core.Inlink` per link.
    """
    if column.null_count == len(column):
        return [None] * len(column)
    offsets = column.offsets.to_pylist()
    values = column.values.slice(offsets[0], offsets[-1] - offsets[0])  # this (possibly sliced) array's values
    from_urls = pc.fill_null(values.field("from_url"), "").to_pylist()
    anchors = pc.fill_null(values.field("anchor"), "").to_pylist()
    base = offsets[0]
    return [None if not valid else InlinkList(from_urls[start - base:end - base], anchors[start - base:end - base])
            for valid, start, end in zip(column.is_valid().to_pylist(), offsets, offsets[1:], strict=False)]


def index_inputs(crawldb: TableVersion | None, linkdb: TableVersion | None, segments: list[Path] | list[Place],
                 nodes: TableVersion | None = None, *, inlink_sources: bool = True) -> tuple[list[Input], list[str]]:
    """The job's inputs and notes about segments that had nothing to index.

    ``nodes``: the web graph's nodes table, read for its scores (``index.static.rank=linkrank``).
    ``inlink_sources=False``: the linkdb's inlinks without their source URLs (:func:`inlink_sources_read`).
    A segment is a local path or a :class:`~gossamer.store.location.Location` (``s3://…``): its
    sub-tables are read where they are, and one counts only once its ``_SUCCESS`` exists.
    """
    inputs: list[Input] = []
    notes: list[str] = []
    if crawldb is not None:
        inputs.append(Input(TableSource(str(crawldb.directory)), ProjectRows(KIND_DB)))
    if linkdb is not None:
        inputs.append(Input(TableSource(str(linkdb.directory)), ProjectRows(KIND_LINKS, inlink_sources=inlink_sources)))
    if nodes is not None:
        inputs.append(Input(TableSource(str(nodes.directory)), ProjectRows(KIND_NODE)))
    for segment in segments:
        present = [(name, kind) for name, kind in SEGMENT_TABLES
                   if table_present(segment / name) and (segment / name / SUCCESS_MARKER).is_file()]
        if len(present) < len(SEGMENT_TABLES):
            missing = sorted({name for name, _ in SEGMENT_TABLES} - {name for name, _ in present})
            notes.append(f"segment {segment.name}: no {', '.join(missing)} (not fetched or not parsed), skipped")
            continue
        for name, kind in present:
            source = TableSource(str(segment / name), READ_COLUMNS.get(kind))
            inputs.append(Input(source, ProjectRows(kind, segment.name)))
    return inputs, notes


def actions_job(inputs: list[Input], options: IndexOptions, parts: int, output_format: str = "parquet") -> Job:
    """The engine job writing :data:`ACTIONS_SCHEMA` parts.

    ``output_format``: ``parquet`` (a table anyone may open), or ``arrow`` for ``index``'s own staging,
    which its driver reads back once (:attr:`~gossamer.engine.Job.output_format`); the rows are the same,
    but for the staging's documents written in ASCII (:func:`~gossamer.index.ascii_json.ascii_json`: the
    same JSON values).
    """
    reducer = IndexReducer(options, ascii_documents=output_format == "arrow")
    return Job("index", inputs, SHUFFLE_SCHEMA, reducer, ACTIONS_SCHEMA, parts,
               partitioner=KEY_PARTITIONER_NAME, reduce_in_part_order=True, reduce_in_memory=True,
               reduce_batch_rows=REDUCE_BATCH_ROWS, output_format=output_format)


__all__ = ["ACTIONS_SCHEMA", "ACTION_ADD", "ACTION_DELETE", "SHUFFLE_SCHEMA", "actions_job", "index_inputs",
           "inlink_sources_read", "utf8_array"]
