"""WebGraph step 1: merge segments into the ``outlinks`` table (Nutch's ``WebGraph.OutlinkDb``).

Every input becomes *events* of a source URL (:data:`EVENT_SCHEMA`):

* the stored ``outlinks`` version (co-partitioned, taken as it is): a ``LINK`` per row;
* a segment's ``parse_data`` (:class:`ParseDataMapper`), pages parsed successfully only:
  one ``PAGE`` marker per page and a ``LINK`` per outlink, all stamped with the page's
  fetch time (content metadata ``_ftk_``; without it the segment's time, from its name);
* a segment's ``crawl_fetch`` (:class:`FetchMapper`, read only when ``link.delete.gone``
  is true, as in Nutch): a ``GONE`` event per page fetched as gone or redirected
  (``fetch_gone``, ``fetch_redir_temp``, ``fetch_redir_perm``), at its fetch time.

:class:`OutlinkReducer` keeps, per source URL, the links of its most recent event
only: when that is a ``GONE`` (a tie counts as gone) or a ``PAGE`` without links the
source keeps no links.  Among the newest links one per target URL is kept (the first,
in input order: stored rows, then segments in the order given, then page order), and
``link.ignore.internal.host`` / ``link.ignore.internal.domain`` drop links whose
target has the source's host / registered domain.  With ``normalize`` / ``filter``
the segments' source and target URLs pass the URL chain of scope ``default``; a
rejected source drops its page's events.  A source or target without a host is bad
input: reported, counted under ``links_bad`` / ``pages_bad``, skipped.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlStatus, ParseStatusCode
from gossamer.engine import TaskContext
from gossamer.graph.rules import SCOPE, GraphSettings, url_domain, url_host
from gossamer.graph.schema import OUTLINKS_SCHEMA
from gossamer.plugins import memo_url_step

LINK, PAGE, GONE = 0, 1, 2
"""Event kinds: a link read from a page, a page parsed (with or without links), a page gone or redirected."""
FETCH_TIME_KEY = "_ftk_"
"""The content metadata key holding a page's fetch time (ms), as Nutch's ``Nutch.FETCH_TIME_KEY``."""
GONE_STATUSES = (CrawlStatus.FETCH_GONE, CrawlStatus.FETCH_REDIR_TEMP, CrawlStatus.FETCH_REDIR_PERM)

EVENT_SCHEMA = pa.schema([
    pa.field("url", pa.string()),
    pa.field("to_url", pa.string()),
    pa.field("anchor", pa.string()),
    pa.field("timestamp", pa.int64()),
    pa.field("event", pa.int8()),
])


def segment_time(name: str) -> int | None:
    """Epoch ms of a segment named ``yyyyMMddHHmmss`` (UTC), or ``None`` for another name."""
    if len(name) != 14 or not name.isdigit():
        return None
    try:
        return calendar.timegm(time.strptime(name, "%Y%m%d%H%M%S")) * 1000
    except ValueError:
        return None


def _events(urls: list[str], to_urls: list[str | None], anchors: list[str | None], stamps: list[int],
            kinds: list[int]) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [pa.array(urls, pa.string()), pa.array(to_urls, pa.string()), pa.array(anchors, pa.string()),
         pa.array(stamps, pa.int64()), pa.array(kinds, pa.int8())], schema=EVENT_SCHEMA)


def _url_step(ctx: TaskContext, normalize: bool, filter: bool) -> Callable[[str], str | None]:
    """The URL chain of scope ``default`` as one memoized step; identity when both are off."""
    if not (normalize or filter):
        return lambda url: url
    return memo_url_step(ctx, SCOPE, normalize, filter, ctx.report)


def stored_outlinks(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """Map for the stored outlinks version: every row a ``LINK`` event, in order."""
    ctx.count("links_stored", batch.num_rows)
    yield batch.append_column("event", pa.repeat(pa.scalar(LINK, pa.int8()), batch.num_rows))


@dataclass(frozen=True)
class ParseDataMapper:
    """Map for a segment's parse_data: a ``PAGE`` event and ``LINK`` events per successfully parsed page.

    ``fallback_time`` is the segment's time, used for pages without a fetch time.
    """

    fallback_time: int | None
    normalize: bool
    filter: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the events of this batch's pages, in page order then link order."""
        ok = pc.equal(batch.column("status"), pa.scalar(int(ParseStatusCode.SUCCESS), pa.uint8()))
        pages = batch.filter(pc.fill_null(ok, False))
        ctx.count("pages_not_parsed", batch.num_rows - pages.num_rows)
        if pages.num_rows == 0:
            return
        stamps = pc.map_lookup(pages.column("content_metadata"), pa.scalar(FETCH_TIME_KEY), "first").to_pylist()
        step = _url_step(ctx, self.normalize, self.filter)
        out: tuple[list, ...] = ([], [], [], [], [])
        for url, links, stamp in zip(pages.column("url").to_pylist(), pages.column("outlinks").to_pylist(),
                                     stamps, strict=True):
            source = self._source(url, step, ctx)
            when = self._fetch_time(url, stamp, ctx)
            if source is None or when is None:
                continue
            ctx.count("pages")
            self._emit(out, source, None, None, when, PAGE)
            for link in links or ():
                ctx.count("links")
                target = link["url"] if link else None
                if not target or not url_host(target):
                    ctx.count("links_bad")
                    ctx.report(f"{url}: outlink {target!r} has no host")
                    continue
                kept = step(target)
                if kept is None:
                    ctx.count("links_filtered")
                    continue
                self._emit(out, source, kept, link["anchor"] or "", when, LINK)
        if out[0]:
            yield _events(*out)

    @staticmethod
    def _emit(out: tuple[list, ...], *values: object) -> None:
        for column, value in zip(out, values, strict=True):
            column.append(value)

    @staticmethod
    def _source(url: str | None, step: Callable[[str], str | None], ctx: TaskContext) -> str | None:
        if not url or not url_host(url):
            ctx.count("pages_bad")
            ctx.report(f"parse_data row {url!r}: not a URL with a host")
            return None
        source = step(url)
        if source is None:
            ctx.count("pages_filtered")
        return source

    def _fetch_time(self, url: str, stamp: str | None, ctx: TaskContext) -> int | None:
        try:
            return int(stamp) if stamp is not None else self._no_fetch_time(url, stamp, ctx)
        except ValueError:
            return self._no_fetch_time(url, stamp, ctx)

    def _no_fetch_time(self, url: str, stamp: str | None, ctx: TaskContext) -> int | None:
        ctx.count("pages_no_fetch_time")
        if self.fallback_time is None:
            ctx.count("pages_bad")
            ctx.report(f"{url}: no fetch time ({FETCH_TIME_KEY}={stamp!r}) and no segment time")
        return self.fallback_time


@dataclass(frozen=True)
class FetchMapper:
    """Map for a segment's crawl_fetch: a ``GONE`` event per page fetched gone or redirected."""

    normalize: bool
    filter: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the gone / redirect events of this batch."""
        statuses = pa.array([int(s) for s in GONE_STATUSES], pa.uint8())
        gone = batch.filter(pc.is_in(batch.column("status"), value_set=statuses))
        if gone.num_rows == 0:
            return
        step = _url_step(ctx, self.normalize, self.filter)
        stamps = gone.column("fetch_time").cast(pa.int64()).to_pylist()
        urls: list[str] = []
        times: list[int] = []
        for url, stamp in zip(gone.column("url").to_pylist(), stamps, strict=True):
            kept = step(url) if url else None
            if kept is not None:
                urls.append(kept)
                times.append(stamp)
        ctx.count("pages_gone", len(urls))
        n = len(urls)
        yield _events(urls, [None] * n, [None] * n, times, [GONE] * n)


class OutlinkReducer:
    """Reduce: each source URL's links of its most recent event (see the module docstring)."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield outlinks rows (:data:`~gossamer.graph.schema.OUTLINKS_SCHEMA`) in source URL order."""
        options = GraphSettings.from_settings(ctx.settings)
        urls = batch.column("url").to_pylist()
        to_urls = batch.column("to_url").to_pylist()
        anchors = batch.column("anchor").to_pylist()
        stamps = batch.column("timestamp").to_pylist()
        kinds = batch.column("event").to_pylist()
        keep: list[int] = []
        start = 0
        n = len(urls)
        while start < n:
            end = start + 1
            while end < n and urls[end] == urls[start]:
                end += 1
            self._group(range(start, end), urls[start], to_urls, stamps, kinds, options, keep, ctx)
            start = end
        ctx.count("links_kept", len(keep))
        if keep:
            index = pa.array(keep, pa.int64())
            yield pa.RecordBatch.from_arrays(
                [batch.column("url").take(index), batch.column("to_url").take(index),
                 pa.array([anchors[i] or "" for i in keep], pa.string()), batch.column("timestamp").take(index)],
                schema=OUTLINKS_SCHEMA)

    @staticmethod
    def _group(rows: range, url: str, to_urls: list, stamps: list, kinds: list, options: GraphSettings,
               keep: list[int], ctx: TaskContext) -> None:
        newest = max(stamps[i] for i in rows)
        if any(kinds[i] == GONE and stamps[i] == newest for i in rows):
            ctx.count("sources_gone")
            return
        host, domain = url_host(url), url_domain(url)
        seen: set[str] = set()
        for i in rows:
            if kinds[i] != LINK:
                continue
            target = to_urls[i]
            if stamps[i] != newest:
                ctx.count("links_stale")
            elif target in seen:
                ctx.count("links_duplicate")
            elif options.ignore_internal_host and url_host(target) == host:
                ctx.count("links_internal_host")
            elif options.ignore_internal_domain and url_domain(target) == domain:
                ctx.count("links_internal_domain")
            else:
                seen.add(target)
                keep.append(i)
        ctx.count("sources" if seen else "sources_without_links")
