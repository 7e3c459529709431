"""The map and reduce functions of the linkdb jobs (Nutch's LinkDb mapper and LinkDbMerger reducer).

* :class:`InvertMapper` — a segment's parse_data rows → one linkdb row per kept
  outlink (target URL, one inlink).  Only pages whose parse status is success
  count.  ``linkdb.ignore.internal.links`` drops links whose source and target
  hosts are equal, ``linkdb.ignore.external.links`` those whose hosts differ (and
  either drops links whose target has no host); anchors are cut to
  ``linkdb.max.anchor.length`` characters.  With normalizing / filtering on, the
  source URL (a rejected source drops all its page's links) and every target URL
  go through the URL chain of scope ``linkdb``.
* :class:`LinkDbFilter` — the same chain over stored linkdb rows (``mergelinkdb
  -normalize/-filter``): the target URL and every inlink's source URL.
* :class:`LinkDbReducer` — per target URL, the inlinks of every input in input
  order (``_src``, then ``_seq``), one per source URL: an inlink whose source is
  already there replaces its anchor in place; a new source is appended while
  fewer than ``linkdb.max.inlinks`` are kept, else dropped.  A URL left without
  inlinks is dropped.  A URL with a single row that needs no merging (one inlink,
  or a row of a stored linkdb, whose sources are unique, within the cap) is
  copied column-wise without passing through Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import ParseStatusCode, Settings
from gossamer.engine import TaskContext, arange
from gossamer.plugins import memo_url_step
from gossamer.store import flat_inlinks, hosts_of, inlinks_array, linkdb_batch

SCOPE = "linkdb"
"""The URL normalizer scope of every linkdb job."""


@dataclass(frozen=True)
class LinkDbSettings:
    """The ``linkdb.*`` properties (a negative anchor length or a max inlinks ≤ 0 means no limit)."""

    max_inlinks: int
    ignore_internal: bool
    ignore_external: bool
    max_anchor_length: int

    @classmethod
    def from_settings(cls, settings: Settings) -> LinkDbSettings:
        """Read the properties."""
        return cls(settings.get_int("linkdb.max.inlinks"), settings.get_bool("linkdb.ignore.internal.links"),
                   settings.get_bool("linkdb.ignore.external.links"), settings.get_int("linkdb.max.anchor.length"))


def _url_step(ctx: TaskContext, normalize: bool, filter: bool) -> Callable[[str], str | None]:
    """Normalize then filter one URL (scope ``linkdb``); ``None`` when rejected or malformed (reported)."""
    return memo_url_step(ctx, SCOPE, normalize, filter, ctx.report)


@dataclass(frozen=True)
class InvertMapper:
    """Map for a segment's parse_data: every kept outlink becomes a (target, [inlink]) row."""

    normalize: bool
    filter: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield linkdb rows (one inlink each), in page order then link order."""
        options = LinkDbSettings.from_settings(ctx.settings)
        pages = batch.filter(pc.equal(batch.column("status"), pa.scalar(int(ParseStatusCode.SUCCESS), pa.uint8())))
        ctx.count("pages", pages.num_rows)
        ctx.count("pages_not_parsed", batch.num_rows - pages.num_rows)
        outlinks = pages.column("outlinks")
        flat = pc.list_flatten(outlinks)
        if len(flat) == 0:
            return
        ctx.count("links", len(flat))
        parents = pc.list_parent_indices(outlinks)
        from_urls = pages.column("url").take(parents)
        to_urls, anchors = pc.struct_field(flat, "url"), pc.struct_field(flat, "anchor")
        if options.ignore_internal or options.ignore_external:
            to_hosts = hosts_of(to_urls)
            same = pc.equal(hosts_of(pages.column("url")).take(parents), to_hosts)
            drop = pc.or_(same if options.ignore_internal else pc.invert(same), pc.equal(to_hosts, ""))
            dropped = pc.sum(drop).as_py() or 0
            ctx.count("links_internal" if options.ignore_internal else "links_external", dropped)
            if dropped:
                keep = pc.invert(drop)
                from_urls, to_urls, anchors = from_urls.filter(keep), to_urls.filter(keep), anchors.filter(keep)
        if options.max_anchor_length >= 0:
            anchors = pc.utf8_slice_codeunits(anchors, 0, options.max_anchor_length)
        if self.normalize or self.filter:
            from_urls, to_urls, anchors = self._chain(ctx, from_urls, to_urls, anchors)
        n = len(to_urls)
        if n:
            ctx.count("inlinks", n)
            yield linkdb_batch(to_urls, inlinks_array(arange(0, n + 1), from_urls, anchors))

    def _chain(self, ctx: TaskContext, from_urls: pa.Array, to_urls: pa.Array,
               anchors: pa.Array) -> tuple[pa.Array, pa.Array, pa.Array]:
        step = _url_step(ctx, self.normalize, self.filter)
        froms, tos, texts = [], [], []
        for source, target, anchor in zip(from_urls.to_pylist(), to_urls.to_pylist(), anchors.to_pylist(),
                                          strict=True):
            new_source = step(source)
            new_target = step(target) if new_source is not None else None
            if new_target is None:
                ctx.count("links_filtered")
                continue
            froms.append(new_source)
            tos.append(new_target)
            texts.append(anchor)
        return pa.array(froms, pa.string()), pa.array(tos, pa.string()), pa.array(texts, pa.string())


@dataclass(frozen=True)
class LinkDbFilter:
    """Map for a stored linkdb: normalize / filter target URLs and inlink sources (rows left empty go)."""

    normalize: bool
    filter: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the rows that survive, with their new URLs."""
        step = _url_step(ctx, self.normalize, self.filter)
        offsets, froms, anchors = flat_inlinks(batch.column("inlinks"))
        urls, out_offsets, out_froms, out_anchors = [], [0], [], []
        for i, url in enumerate(batch.column("url").to_pylist()):
            target = step(url)
            if target is None:
                ctx.count("urls_filtered")
                continue
            before = len(out_froms)
            for j in range(offsets[i], offsets[i + 1]):
                source = step(froms[j])
                if source is None:
                    ctx.count("inlinks_filtered")
                    continue
                out_froms.append(source)
                out_anchors.append(anchors[j])
            if len(out_froms) == before:
                ctx.count("urls_filtered")
                continue
            urls.append(target)
            out_offsets.append(len(out_froms))
        yield linkdb_batch(urls, inlinks_array(out_offsets, out_froms, out_anchors))


_TRUE = pa.array([True])


@dataclass(frozen=True)
class LinkDbReducer:
    """Reduce: merge each URL's inlinks (see the module docstring).

    ``unique_srcs`` are the input positions whose rows already hold at most one
    inlink per source (stored linkdbs read as they are): such a row, alone for its
    URL and within ``linkdb.max.inlinks``, is copied unchanged.
    """

    unique_srcs: tuple[int, ...] = ()

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the merged rows of this batch's URLs, in URL order."""
        n = batch.num_rows
        if n == 0:
            return
        max_inlinks = LinkDbSettings.from_settings(ctx.settings).max_inlinks
        keys, inlinks = batch.column("url"), batch.column("inlinks")
        if n > 1:
            differs = pc.not_equal(keys.slice(1), keys.slice(0, n - 1))
            first = pa.concat_arrays([_TRUE, differs])
            single = pc.and_(first, pa.concat_arrays([differs, _TRUE]))
        else:
            first = single = _TRUE
        base = linkdb_batch(keys, inlinks)
        lengths = pc.fill_null(pc.list_value_length(inlinks), 0)
        untouched = pc.and_(single, pc.equal(lengths, 1))
        unchanged = 0
        if self.unique_srcs:
            fits = pc.greater(lengths, 0)
            if max_inlinks > 0:
                fits = pc.and_(fits, pc.less_equal(lengths, max_inlinks))
            src = batch.column("_src")
            stored = pc.and_(single, pc.is_in(src, value_set=pa.array(self.unique_srcs, src.type)))
            untouched = pc.or_(untouched, pc.and_(stored, fits))
            unchanged = pc.sum(pc.and_(untouched, stored)).as_py() or 0
        copied = pc.sum(untouched).as_py() or 0
        ctx.count("urls_unchanged", unchanged)
        ctx.count("urls_updated", copied - unchanged)
        if copied == n:
            yield base
            return
        touched = pc.invert(untouched)
        rest = batch.filter(touched)
        starts = pc.indices_nonzero(first.filter(touched))
        kept, merged = _merge_groups(rest, starts.to_pylist(), max_inlinks, ctx)
        ctx.count("urls_updated", len(kept))
        ctx.count("urls_dropped", len(starts) - len(kept))
        # Output row order = batch order: a copied row where it was, a merged row at its URL's first row.
        merged_at = pc.is_in(arange(0, n), value_set=pc.indices_nonzero(touched).take(starts.take(pa.array(
            kept, pa.int64()))))
        index = pc.replace_with_mask(arange(0, n), merged_at, arange(n, merged.num_rows))
        index = index.filter(pc.or_(untouched, merged_at))
        yield from pa.Table.from_batches([base, merged]).take(index).combine_chunks().to_batches()


def _merge_groups(rows: pa.RecordBatch, starts: list[int], max_inlinks: int,
                  ctx: TaskContext) -> tuple[list[int], pa.RecordBatch]:
    """Merge each URL's rows (``starts``: each URL's first row); returns the groups kept and their rows."""
    urls = rows.column("url").to_pylist()
    offsets, froms, anchors = flat_inlinks(rows.column("inlinks"))
    kept: list[int] = []
    out_urls: list[str] = []
    out_offsets, out_froms, out_anchors = [0], [], []
    dropped = 0
    for group, (lo, hi) in enumerate(pairwise([*starts, rows.num_rows])):
        merged: dict[str, str] = {}
        for j in range(offsets[lo], offsets[hi]):
            source = froms[j]
            if source in merged or max_inlinks <= 0 or len(merged) < max_inlinks:
                merged[source] = anchors[j]
            else:
                dropped += 1
        if merged:
            kept.append(group)
            out_urls.append(urls[lo])
            out_froms.extend(merged)
            out_anchors.extend(merged.values())
            out_offsets.append(len(out_froms))
    ctx.count("inlinks_dropped", dropped)
    return kept, linkdb_batch(out_urls, inlinks_array(out_offsets, out_froms, out_anchors))
