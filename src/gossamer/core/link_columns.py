"""A page's links as columns: no Python object per link on the parse path.

A documentation page has a few hundred links, and an object per link (an ``Outlink``
from the parser, a ``CrawlDatum`` per kept target, each read back attribute by
attribute for Arrow) cost more than the links' own work.  These classes keep the links
of one page as parallel lists from extraction to the Arrow batches of the segment:

* :class:`OutlinkList`: outlinks (target URL, anchor, optional metadata) read as a
  ``Sequence[Outlink]``, so code written for a list of :class:`Outlink` still works;
* :class:`LinkTargets`: the ``linked`` crawl_parse datums of a page's kept outlinks,
  scored by the scoring filters' batch forms
  (:meth:`~gossamer.plugins.api.ScoringFilter.initial_scores`,
  :meth:`~gossamer.plugins.api.ScoringFilter.distribute_score_to_targets`); a filter that
  has only the per-link form gets the datums themselves (:meth:`LinkTargets.rows`);
* :class:`DatumColumns`: crawldb rows as one list per field, what
  :func:`gossamer.store.datums_to_batch` and the parse tables' buffer convert to Arrow.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import overload

from gossamer.core.datum import CrawlDatum
from gossamer.core.records import ColumnSequence, Outlink
from gossamer.core.status import CrawlStatus

Pairs = tuple[tuple[str, str], ...]


class OutlinkList(ColumnSequence[Outlink]):
    """Outlinks held as parallel lists (targets, anchors, metadata), read as ``Sequence[Outlink]``.

    ``metadata`` is ``None`` when no link has any (the common case), else one tuple of
    ``(key, value)`` pairs per link.  The lists must have the same length and are owned
    by the list (:meth:`append` and :meth:`extend` add :class:`Outlink` objects to them, as
    on a list); neither holds ``None``.
    """

    __slots__ = ("anchors", "metadata", "to_urls")

    def __init__(self, to_urls: list[str] | None = None, anchors: list[str] | None = None,
                 metadata: list[Pairs] | None = None) -> None:
        self.to_urls: list[str] = [] if to_urls is None else to_urls
        self.anchors: list[str] = [""] * len(self.to_urls) if anchors is None else anchors
        self.metadata = metadata
        if len(self.anchors) != len(self.to_urls) or (metadata is not None and len(metadata) != len(self.to_urls)):
            raise ValueError("outlink columns of different lengths")

    @classmethod
    def of(cls, links: Iterable[Outlink]) -> OutlinkList:
        """The columns of any outlinks (an :class:`OutlinkList` is returned as it is)."""
        if isinstance(links, OutlinkList):
            return links
        links = list(links)
        metadata = [link.metadata for link in links] if any(link.metadata for link in links) else None
        return cls([link.to_url for link in links], [link.anchor for link in links], metadata)

    def append(self, link: Outlink) -> None:
        """Add one outlink at the end (as a list of :class:`Outlink` would: filters may add links)."""
        if link.metadata and self.metadata is None:
            self.metadata = [()] * len(self.to_urls)
        self.to_urls.append(link.to_url)
        self.anchors.append(link.anchor)
        if self.metadata is not None:
            self.metadata.append(link.metadata)

    def extend(self, links: Iterable[Outlink]) -> None:
        """Add outlinks at the end, in order."""
        for link in links:
            self.append(link)

    @overload
    def __getitem__(self, index: int) -> Outlink: ...

    @overload
    def __getitem__(self, index: slice) -> OutlinkList: ...

    def __getitem__(self, index: int | slice) -> Outlink | OutlinkList:
        meta = self.metadata
        if isinstance(index, slice):
            return OutlinkList(self.to_urls[index], self.anchors[index], None if meta is None else meta[index])
        return Outlink(self.to_urls[index], self.anchors[index], () if meta is None else meta[index])

    def __iter__(self) -> Iterator[Outlink]:
        if self.metadata is None:
            return map(Outlink, self.to_urls, self.anchors)
        return map(Outlink, self.to_urls, self.anchors, self.metadata)

    def __len__(self) -> int:
        return len(self.to_urls)

    def __repr__(self) -> str:
        return f"OutlinkList({list(self)!r})"


class DatumColumns:
    """Crawldb rows ``(url, datum)`` as one list per :class:`CrawlDatum` field, in row order.

    ``metadata`` holds each row's ``(key, value)`` pairs as a list, or ``None`` when empty
    (what Arrow's map type takes).  Rows are added by :meth:`add_rows` or by
    :meth:`LinkTargets.append_to`.
    """

    __slots__ = ("fetch_interval", "fetch_time", "metadata", "modified_time", "retries", "score", "signature",
                 "status", "urls")

    def __init__(self) -> None:
        self.urls: list[str] = []
        self.status: list[int] = []
        self.fetch_time: list[int] = []
        self.retries: list[int] = []
        self.fetch_interval: list[int] = []
        self.score: list[float] = []
        self.signature: list[bytes | None] = []
        self.modified_time: list[int] = []
        self.metadata: list[list[tuple[str, str]] | None] = []

    @classmethod
    def of(cls, rows: Sequence[tuple[str, CrawlDatum]]) -> DatumColumns:
        """The columns of ``rows``."""
        columns = cls()
        columns.add_rows(rows)
        return columns

    def __len__(self) -> int:
        return len(self.urls)

    def add_rows(self, rows: Sequence[tuple[str, CrawlDatum]]) -> None:
        """Append ``(url, datum)`` rows."""
        if not rows:
            return
        if len(rows) <= 4:  # a page's own rows (one or two): a plain loop beats nine list comprehensions
            for url, d in rows:
                self.urls.append(url)
                self.status.append(int(d.status))
                self.fetch_time.append(d.fetch_time)
                self.retries.append(d.retries)
                self.fetch_interval.append(d.fetch_interval)
                self.score.append(d.score)
                self.signature.append(d.signature)
                self.modified_time.append(d.modified_time)
                self.metadata.append(list(d.metadata.items()) if d.metadata else None)
            return
        self.urls.extend([url for url, _ in rows])
        self.status.extend([int(d.status) for _, d in rows])
        self.fetch_time.extend([d.fetch_time for _, d in rows])
        self.retries.extend([d.retries for _, d in rows])
        self.fetch_interval.extend([d.fetch_interval for _, d in rows])
        self.score.extend([d.score for _, d in rows])
        self.signature.extend([d.signature for _, d in rows])
        self.modified_time.extend([d.modified_time for _, d in rows])
        self.metadata.extend([list(d.metadata.items()) if d.metadata else None for _, d in rows])


class LinkTargets:
    """The ``linked`` datums of one page's kept outlinks, as columns (see the module docstring).

    Every target starts as ``CrawlDatum(LINKED, fetch_time, 0, interval)`` with the metadata
    of its outlink (``metadata``: ``None`` or one tuple of pairs per target).  Batch methods
    change all targets at once: :meth:`set_scores`, :meth:`update_metadata`, :meth:`clear`.
    :meth:`rows` hands out the targets as ``(url, CrawlDatum)`` pairs for per-link code;
    from then on those pairs *are* the targets (changes to them, or to the list, count).
    """

    __slots__ = ("_common", "_rows", "_scores", "fetch_time", "interval", "link_metadata", "urls")

    def __init__(self, urls: list[str], fetch_time: int, interval: int, metadata: list[Pairs] | None = None) -> None:
        self.urls = urls
        self.fetch_time = fetch_time
        self.interval = interval
        self.link_metadata = metadata
        self._scores: list[float] | None = None
        self._common: dict[str, str] = {}
        self._rows: list[tuple[str, CrawlDatum]] | None = None

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else len(self.urls)

    @property
    def scores(self) -> list[float]:
        """The targets' scores, in order (a new list)."""
        if self._rows is not None:
            return [datum.score for _, datum in self._rows]
        return list(self._scores) if self._scores is not None else [0.0] * len(self.urls)

    def target_urls(self) -> list[str]:
        """The targets' URLs, in order."""
        return [url for url, _ in self._rows] if self._rows is not None else self.urls

    def set_scores(self, scores: float | Sequence[float]) -> None:
        """Give every target ``scores`` (one value), or each its own (one per target, in order)."""
        count = len(self)
        values = [float(scores)] * count if isinstance(scores, int | float) else list(scores)
        if len(values) != count:
            raise ValueError(f"{len(values)} scores for {count} targets")
        if self._rows is None:
            self._scores = values
            return
        for (_, datum), value in zip(self._rows, values, strict=True):
            datum.score = value

    def update_metadata(self, values: Mapping[str, str]) -> None:
        """Set the same metadata ``values`` on every target (its own keys are overwritten)."""
        if self._rows is None:
            self._common.update(values)
            return
        for _, datum in self._rows:
            datum.metadata.update(values)

    def clear(self) -> None:
        """Drop every target."""
        if self._rows is not None:
            self._rows.clear()
        else:
            self.urls = []
            self.link_metadata = None
            self._scores = None

    def _metadata_dicts(self) -> list[dict[str, str]]:
        common, link_meta = self._common, self.link_metadata
        if link_meta is None:
            return [dict(common) for _ in self.urls]
        return [{**dict(pairs), **common} if common else dict(pairs) for pairs in link_meta]

    def rows(self) -> list[tuple[str, CrawlDatum]]:
        """The targets as ``(url, CrawlDatum)`` pairs: the live list from now on (see the class docstring)."""
        if self._rows is None:
            status, time, interval = CrawlStatus.LINKED, self.fetch_time, self.interval
            self._rows = [(url, CrawlDatum(status, time, 0, interval, score, metadata=meta))
                          for url, score, meta in zip(self.urls, self.scores, self._metadata_dicts(), strict=True)]
        return self._rows

    def datums(self) -> list[tuple[str, CrawlDatum]]:
        """The targets as new ``(url, CrawlDatum)`` pairs, without switching to :meth:`rows` (a copy to read)."""
        if self._rows is not None:
            return [(url, datum.copy()) for url, datum in self._rows]
        status, time, interval = CrawlStatus.LINKED, self.fetch_time, self.interval
        return [(url, CrawlDatum(status, time, 0, interval, score, metadata=meta))
                for url, score, meta in zip(self.urls, self.scores, self._metadata_dicts(), strict=True)]

    def append_to(self, columns: DatumColumns) -> None:
        """Append the targets to ``columns``, in order."""
        if self._rows is not None:
            columns.add_rows(self._rows)
            return
        count = len(self.urls)
        if not count:
            return
        columns.urls.extend(self.urls)
        columns.status.extend([int(CrawlStatus.LINKED)] * count)
        columns.fetch_time.extend([self.fetch_time] * count)
        columns.retries.extend([0] * count)
        columns.fetch_interval.extend([self.interval] * count)
        columns.score.extend(self._scores if self._scores is not None else [0.0] * count)
        columns.signature.extend([None] * count)
        columns.modified_time.extend([0] * count)
        if self.link_metadata is None:
            shared = list(self._common.items()) or None
            columns.metadata.extend([shared] * count)
        else:
            columns.metadata.extend([list(meta.items()) or None for meta in self._metadata_dicts()])
