"""WebGraph steps 3 and 4: the ``inlinks`` table, with node ids (Nutch's ``WebGraph.InlinkDb``).

Both steps read the new ``nodes`` version as a co-partitioned input (input 0), so a
node row's ``_seq`` is its id (``part << 40 | row``, :mod:`gossamer.graph.schema`) and
comes first among its URL's rows:

* step 3 (:func:`source_ids`) joins ``outlinks`` (co-partitioned, input 1) with the
  nodes by source URL: each link gets ``from_id``.  Its output (:data:`SOURCED_SCHEMA`,
  sorted by source) is an intermediate table.
* step 4 (:func:`invert` shuffles the links by target URL; :class:`InlinkReducer`)
  joins them with the nodes by target URL: each link gets ``to_id`` and ``counted``.
  Within a target its inlinks are written in ``from_id`` order, and the first from
  each source page (``link.ignore.limit.page``) / source domain
  (``link.ignore.limit.domain``) counts — Nutch's LinkRank rule: a link counts unless
  a counted one came from its page or domain already; with both off every link counts.

A link whose URL has no node row (a nodes version not built from these outlinks) is
reported and dropped.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.engine import SEQ_COLUMN, SRC_COLUMN, TaskContext
from gossamer.graph.rules import GraphSettings, url_domain, url_page
from gossamer.graph.schema import INLINKS_SCHEMA

SOURCED_SCHEMA = pa.schema([
    pa.field("url", pa.string()),
    pa.field("to_url", pa.string()),
    pa.field("anchor", pa.string()),
    pa.field("timestamp", pa.int64()),
    pa.field("from_id", pa.int64()),
])
"""Step 3's rows: an outlink and its source's node id (key ``url``, the source)."""
INVERTED_SCHEMA = pa.schema([
    pa.field("url", pa.string()),
    pa.field("from_url", pa.string()),
    pa.field("anchor", pa.string()),
    pa.field("timestamp", pa.int64()),
    pa.field("from_id", pa.int64()),
])
"""Step 4's shuffle rows: a link under its target URL."""


def _padded(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch``'s columns of ``schema``, nulls for the ones it lacks (a nodes row in a link schema)."""
    n = batch.num_rows
    names = set(batch.schema.names)
    return pa.RecordBatch.from_arrays(
        [batch.column(f.name) if f.name in names else pa.nulls(n, f.type) for f in schema], schema=schema)


def nodes_as_sourced(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Map for the nodes input of step 3: its URLs, the link columns null (row order kept)."""
    yield _padded(batch.select(["url"]), SOURCED_SCHEMA)


def nodes_as_inverted(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Map for the nodes input of step 4: its URLs, the link columns null (row order kept)."""
    yield _padded(batch.select(["url"]), INVERTED_SCHEMA)


def outlinks_as_sourced(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Map for the outlinks input of step 3: ``from_id`` still null (row order kept)."""
    yield _padded(batch, SOURCED_SCHEMA)


def _node_ids(batch: pa.RecordBatch, what: str, ctx: TaskContext) -> tuple[pa.RecordBatch, pa.Array]:
    """The link rows of ``batch`` (not from input 0) and the id of their URL's node row.

    Node rows come first in each URL's rows, so a forward fill of their ``_seq`` gives
    every link its node's id; links of a URL without a node row are reported and dropped.
    """
    is_node = pc.equal(batch.column(SRC_COLUMN), pa.scalar(0, pa.int16()))
    null_seq, null_url = pa.nulls(batch.num_rows, pa.int64()), pa.nulls(batch.num_rows, pa.string())
    ids = pc.fill_null_forward(pc.if_else(is_node, batch.column(SEQ_COLUMN), null_seq))
    owners = pc.fill_null_forward(pc.if_else(is_node, batch.column("url"), null_url))
    matched = pc.fill_null(pc.equal(owners, batch.column("url")), False)
    links = pc.invert(is_node)
    orphans = pc.and_(links, pc.invert(matched))
    missing = pc.sum(orphans).as_py() or 0
    if missing:
        ctx.count("links_without_node", missing)
        for url in pc.unique(batch.column("url").filter(orphans)).to_pylist()[:3]:
            ctx.report(f"{url}: {what} has no node row (is the nodes table from another graph?)")
    keep = pc.and_(links, matched)
    return batch.filter(keep), ids.filter(keep)


def source_ids(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Reduce of step 3: every outlink with its source's node id, in source order."""
    links, ids = _node_ids(batch, "a link source", ctx)
    if links.num_rows:
        yield pa.RecordBatch.from_arrays([*(links.column(n) for n in SOURCED_SCHEMA.names[:4]), ids],
                                         schema=SOURCED_SCHEMA)


def invert(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Map for step 3's output: each link under its target URL."""
    yield pa.RecordBatch.from_arrays(
        [batch.column("to_url"), batch.column("url"), batch.column("anchor"), batch.column("timestamp"),
         batch.column("from_id")], schema=INVERTED_SCHEMA)


class InlinkReducer:
    """Reduce of step 4: inlinks rows with ``to_id`` and ``counted``, in (target, ``from_id``) order."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield :data:`~gossamer.graph.schema.INLINKS_SCHEMA` rows."""
        links, ids = _node_ids(batch, "a link target", ctx)
        n = links.num_rows
        if n == 0:
            return
        links = links.append_column("to_id", ids)
        links = links.take(pc.sort_indices(links, sort_keys=[("url", "ascending"), ("from_id", "ascending")]))
        counted = self._counted(links, GraphSettings.from_settings(ctx.settings))
        ctx.count("inlinks", n)
        ctx.count("inlinks_counted", sum(counted))
        yield pa.RecordBatch.from_arrays(
            [links.column("url"), links.column("from_url"), links.column("anchor"), links.column("timestamp"),
             links.column("from_id"), links.column("to_id"), pa.array(counted, pa.bool_())],
            schema=INLINKS_SCHEMA)

    @staticmethod
    def _counted(links: pa.RecordBatch, options: GraphSettings) -> list[bool]:
        """Whether each link counts (Nutch's LinkRank rule over one target's inlinks in from_id order)."""
        n = links.num_rows
        if not (options.limit_page or options.limit_domain):
            return [True] * n
        result: list[bool] = []
        target = None
        pages: set[str] = set()
        domains: set[str] = set()
        for url, source in zip(links.column("url").to_pylist(), links.column("from_url").to_pylist(), strict=True):
            if url != target:
                target, pages, domains = url, set(), set()
            page, domain = url_page(source), url_domain(source)
            counts = not ((options.limit_page and page in pages) or (options.limit_domain and domain in domains))
            if counts:
                pages.add(page)
                domains.add(domain)
            result.append(counts)
        return result
