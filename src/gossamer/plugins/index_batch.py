"""The pages of one index batch as columns: what the batch forms of indexing and scoring filters read.

The index job hands the indexing filters a whole reduce batch at once
(:meth:`~gossamer.plugins.api.IndexingFilter.filter_batch`): the pages whose latest fetch and
parse succeeded, in URL order, one entry per page in every column.  A filter with a batch form
reads the columns it needs and builds no object per page; a filter with only Nutch's per-document
form gets each page as an :class:`~gossamer.plugins.api.IndexInput` (:meth:`IndexBatch.page`),
made on first use and then kept, so a chain may mix both forms.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from gossamer.core import Inlink
from gossamer.plugins.api import IndexInput

__all__ = ["IndexBatch", "MetadataColumn", "header"]


def header(meta: Mapping[str, str], name: str) -> str:
    """A header value from content metadata, matched case-insensitively ('' when absent).

    An exact match wins; else the first key (in the map's order) equal to ``name`` but for case.
    """
    if name in meta:
        return meta[name]
    lower = name.lower()
    for key, value in meta.items():
        if key.lower() == lower:
            return value
    return ""


class MetadataColumn:
    """One metadata map per page (content or parse metadata), read one key at a time for every page.

    This form holds the maps as mappings (or makes them on first use, ``maps`` a callable);
    the index job uses a subclass that looks the keys up in its Arrow column instead, with the same
    results.  Each key's values are computed once.
    """

    def __init__(self, maps: Sequence[Mapping[str, str]] | Callable[[], Sequence[Mapping[str, str]]]) -> None:
        self._maps = maps
        self._values: dict[tuple[str, bool], list[Any]] = {}

    @property
    def maps(self) -> Sequence[Mapping[str, str]]:
        """The maps themselves, one per page."""
        if callable(self._maps):
            self._maps = self._maps()
        return self._maps

    def values(self, key: str) -> list[str | None]:
        """Every page's value of ``key`` (``map.get(key)``)."""
        cached = self._values.get((key, False))
        if cached is None:
            cached = self._values[key, False] = self._lookup(key)
        return cached

    def headers(self, name: str) -> list[str]:
        """Every page's value of header ``name`` (:func:`header`: case-insensitive, ``""`` when absent)."""
        cached = self._values.get((name, True))
        if cached is None:
            cached = self._values[name, True] = self._header(name)
        return cached

    def _lookup(self, key: str) -> list[str | None]:
        return [meta.get(key) for meta in self.maps]

    def _header(self, name: str) -> list[str]:
        return [header(meta, name) for meta in self.maps]


@dataclass
class IndexBatch:
    """Pages ``0 … len - 1`` of one batch, column by column (every list has one entry per page).

    ``titles`` and ``texts`` are the parse's title and text (``""`` when missing),
    ``content`` / ``parse`` the parse data's content and parse metadata (:class:`MetadataColumn`;
    :attr:`content_metadata` / :attr:`parse_metadata` the maps themselves), ``inlinks`` the
    linkdb's inlinks (empty without a linkdb), ``fetch_times`` / ``modified_times`` the
    fetch datum's times (epoch ms, 0 when unset), ``scores`` the score of the crawldb
    datum, else of the fetch datum (what ``indexer_score`` reads), ``signatures`` the
    fetch datum's signature, else the crawldb datum's.  ``make_page(i)`` builds page ``i``
    as one object, for per-document forms (:meth:`page`).  :meth:`fail` records a page
    whose document cannot be built (a ``ValueError``).
    """

    urls: list[str]
    segments: list[str]
    titles: list[str]
    texts: list[str]
    content: MetadataColumn
    parse: MetadataColumn
    inlinks: list[Sequence[Inlink]]
    fetch_times: list[int]
    modified_times: list[int]
    scores: list[float]
    signatures: list[bytes | None]
    make_page: Callable[[int], IndexInput]
    errors: dict[int, str] = field(default_factory=dict)
    _pages: dict[int, IndexInput] = field(default_factory=dict)
    _derived: dict[str, list[Any]] = field(default_factory=dict)

    @classmethod
    def of_pages(cls, pages: Sequence[IndexInput]) -> IndexBatch:
        """A batch of the given page objects (what a caller with :class:`IndexInput` s has)."""
        batch = cls(
            urls=[p.url for p in pages], segments=[p.segment for p in pages],
            titles=[p.parse.data.title or "" for p in pages], texts=[p.parse.text.text or "" for p in pages],
            content=MetadataColumn([p.parse.data.content_metadata for p in pages]),
            parse=MetadataColumn([p.parse.data.parse_metadata for p in pages]), inlinks=[p.inlinks for p in pages],
            fetch_times=[p.fetch.fetch_time for p in pages], modified_times=[p.fetch.modified_time for p in pages],
            scores=[(p.db or p.fetch).score for p in pages],
            signatures=[p.fetch.signature or (p.db.signature if p.db is not None else None) for p in pages],
            make_page=pages.__getitem__)
        batch._pages.update(enumerate(pages))
        return batch

    def derived(self, key: str, compute: Callable[[], list[Any]]) -> list[Any]:
        """A column derived from the others, one value per page: ``compute()`` once per batch and ``key``.

        Filters share such columns (the content type is read by several); ``key`` names what
        ``compute`` gives, so two filters asking for one key must mean the same values.
        """
        values = self._derived.get(key)
        if values is None:
            values = self._derived[key] = compute()
        return values

    @property
    def content_metadata(self) -> Sequence[Mapping[str, str]]:
        """Every page's content metadata as a mapping (made on first use in the index job)."""
        return self.content.maps

    @property
    def parse_metadata(self) -> Sequence[Mapping[str, str]]:
        """Every page's parse metadata as a mapping (made on first use in the index job)."""
        return self.parse.maps

    def header(self, name: str) -> list[str]:
        """Every page's content-metadata header ``name`` (:func:`header`), computed once per batch and name."""
        return self.content.headers(name)

    def __len__(self) -> int:
        return len(self.urls)

    def page(self, i: int) -> IndexInput:
        """Page ``i`` as an :class:`IndexInput` (made once; its URL is :attr:`urls` ``[i]``)."""
        page = self._pages.get(i)
        if page is None:
            page = self._pages[i] = self.make_page(i)
        if page.url != self.urls[i]:
            page = self._pages[i] = replace(page, url=self.urls[i])
        return page

    def fail(self, i: int, error: Exception, docs: list[dict | None]) -> None:  # type: ignore[type-arg]
        """Page ``i``'s document cannot be built: drop it from ``docs`` and count it as an error."""
        docs[i] = None
        self.errors[i] = str(error)
