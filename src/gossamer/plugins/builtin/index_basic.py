"""Plugin ``index-basic``: the fields every search needs (after Nutch's BasicIndexingFilter).

``url`` (tokenized), ``host`` (tokenized, for matching host names), ``site`` (the
host, one exact term: ``site:`` filters and per-site grouping), ``title`` (at most
``indexer.max.title.length`` characters; -1 = all), ``content`` (the parse text, at
most ``indexer.max.content.length`` characters; -1 = all), ``tstamp`` (fetch time)
and, with ``indexer.add.domain``, ``domain`` (the registered domain).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from gossamer.core import Settings, domain_of
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo
from gossamer.store import host_of


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (``limit`` < 0 = no cut)."""
    return text if limit < 0 else text[:limit]


def millis_to_datetime(millis: int) -> datetime:
    """A UTC datetime from epoch milliseconds."""
    return datetime.fromtimestamp(millis / 1000, UTC)


class BasicIndexingFilter(IndexingFilter):
    """url, host, site, title, content, tstamp (and domain)."""

    reads_inlink_sources = False

    def __init__(self, settings: Settings) -> None:
        self.max_title = settings.get_int("indexer.max.title.length")
        self.max_content = settings.get_int("indexer.max.content.length")
        self.add_domain = settings.get_bool("indexer.add.domain")
        fields = [
            IndexField("url", "text", description="the URL, tokenized"),
            IndexField("host", "text", stored=False, description="the host name, tokenized"),
            IndexField("site", "raw", description="the host name, exactly (site: and grouping)"),
            IndexField("title", "text", description="the page title"),
            IndexField("content", "text", description="the page text"),
            IndexField("tstamp", "date", fast=True, description="fetch time"),
        ]
        if self.add_domain:
            fields.append(IndexField("domain", "raw", description="registered domain"))
        self.fields = tuple(fields)

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        self._fill(doc, page.url, page.parse.data.title or "", page.parse.text.text or "", page.fetch.fetch_time)
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        for doc, url, title, text, fetch_time in zip(docs, batch.urls, batch.titles, batch.texts, batch.fetch_times,
                                                     strict=True):
            if doc is not None:
                self._fill(doc, url, title, text, fetch_time)

    def _fill(self, doc: dict[str, Any], url: str, title: str, text: str, fetch_time: int) -> None:
        host = host_of(url)
        doc["url"] = url
        doc["host"] = host
        doc["site"] = host
        doc["title"] = cut(title, self.max_title)
        doc["content"] = cut(text, self.max_content)
        doc["tstamp"] = millis_to_datetime(fetch_time)
        if self.add_domain:
            doc["domain"] = domain_of(host) or host


PLUGIN = PluginInfo(
    id="index-basic",
    point="IndexingFilter",
    factory=BasicIndexingFilter,
    description="url, host, site, title, content, fetch time (and domain)",
    aliases=("org.apache.nutch.indexer.basic.BasicIndexingFilter",),
)
