"""The linkdb's Parquet schema and conversion between Arrow rows and :class:`~gossamer.core.records.Inlink`.

Columns: ``url`` (the link target, sort key) and ``inlinks``, the links pointing
at it in their stored order (each: the source page ``from_url`` and its
``anchor`` text, possibly empty).  At most one inlink per source URL.  The table
is partitioned and sorted like the crawldb (host-hash parts, URL order), so it
joins the crawldb part by part and a single URL is read from one row group.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa

from gossamer.core import Inlink

INLINK_TYPE = pa.struct([pa.field("from_url", pa.string(), nullable=False),
                         pa.field("anchor", pa.string(), nullable=False)])
INLINKS_TYPE = pa.list_(pa.field("item", INLINK_TYPE, nullable=False))

LINKDB_SCHEMA = pa.schema([
    pa.field("url", pa.string(), nullable=False),
    pa.field("inlinks", INLINKS_TYPE),
])


def inlinks_array(offsets: Sequence[int] | pa.Array, from_urls: Sequence[str] | pa.Array,
                  anchors: Sequence[str] | pa.Array) -> pa.ListArray:
    """An ``inlinks`` column from flat values: row *i* holds items ``offsets[i]:offsets[i + 1]``."""
    items = pa.StructArray.from_arrays(
        [from_urls if isinstance(from_urls, pa.Array) else pa.array(from_urls, pa.string()),
         anchors if isinstance(anchors, pa.Array) else pa.array(anchors, pa.string())],
        fields=list(INLINK_TYPE))
    offsets = offsets if isinstance(offsets, pa.Array) else pa.array(offsets, pa.int32())
    return pa.ListArray.from_arrays(offsets.cast(pa.int32()), items, type=INLINKS_TYPE)


def linkdb_batch(urls: Sequence[str] | pa.Array, inlinks: pa.Array) -> pa.RecordBatch:
    """A linkdb batch from a URL column and an ``inlinks`` column (see :func:`inlinks_array`)."""
    url_array = urls if isinstance(urls, pa.Array) else pa.array(urls, pa.string())
    return pa.RecordBatch.from_arrays([url_array.cast(pa.string()), inlinks], schema=LINKDB_SCHEMA)


def rows_to_batch(rows: Sequence[tuple[str, Sequence[Inlink]]]) -> pa.RecordBatch:
    """A linkdb batch from ``(url, inlinks)`` pairs, order kept."""
    offsets, froms, anchors = [0], [], []
    for _, links in rows:
        froms.extend(link.from_url for link in links)
        anchors.extend(link.anchor for link in links)
        offsets.append(len(froms))
    return linkdb_batch([url for url, _ in rows], inlinks_array(offsets, froms, anchors))


def flat_inlinks(column: pa.Array | pa.ChunkedArray) -> tuple[list[int], list[str], list[str]]:
    """``(offsets, from_urls, anchors)`` of an ``inlinks`` column as Python lists (null lists are empty)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    lengths = column.value_lengths().fill_null(0).to_pylist()
    offsets = [0]
    for length in lengths:
        offsets.append(offsets[-1] + length)
    values = column.flatten()
    return offsets, values.field("from_url").to_pylist(), values.field("anchor").to_pylist()


def batch_to_rows(batch: pa.RecordBatch | pa.Table) -> list[tuple[str, list[Inlink]]]:
    """Linkdb rows as ``(url, [Inlink, …])`` pairs."""
    if batch.num_rows == 0:
        return []
    offsets, froms, anchors = flat_inlinks(batch.column("inlinks"))
    urls = batch.column("url").to_pylist()
    return [(url, [Inlink(froms[j], anchors[j]) for j in range(offsets[i], offsets[i + 1])])
            for i, url in enumerate(urls)]
