"""Plugin ``index-metadata``: chosen metadata values as one ``meta`` field (Nutch's MetadataIndexer).

The keys named by ``index.parse.md`` (parse metadata, default the description and
keywords meta tags), ``index.content.md`` (response headers and content
metadata) and ``index.db.md`` (crawldb metadata) are copied into the JSON field
``meta`` (key → value, or a list of values when ``index.metadata.separator``
splits them).  The field is stored, and its text is searchable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gossamer.core import Settings
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput, PluginNotConfigured
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo


class MetadataIndexingFilter(IndexingFilter):
    """meta: chosen parse, content and crawldb metadata."""

    reads_inlink_sources = False

    fields = (IndexField("meta", "json", description="chosen metadata: key → value(s)"),)

    def __init__(self, settings: Settings) -> None:
        self.parse_keys = list(settings.get_list("index.parse.md"))
        self.content_keys = list(settings.get_list("index.content.md"))
        self.db_keys = list(settings.get_list("index.db.md"))
        self.separator = settings.get_str("index.metadata.separator")
        if not (self.parse_keys or self.content_keys or self.db_keys):
            raise PluginNotConfigured("index.parse.md, index.content.md and index.db.md are all empty")

    def _copy(self, out: dict[str, Any], source: Mapping[str, str], keys: list[str]) -> None:
        for key in keys:
            self._set(out, key, source.get(key))

    def _set(self, out: dict[str, Any], key: str, value: str | None) -> None:
        if value:
            out[key] = [v.strip() for v in value.split(self.separator) if v.strip()] if self.separator else value

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        meta: dict[str, Any] = {}
        self._copy(meta, page.parse.data.parse_metadata, self.parse_keys)
        self._copy(meta, page.parse.data.content_metadata, self.content_keys)
        if page.db is not None:
            self._copy(meta, page.db.metadata, self.db_keys)
        if meta:
            doc["meta"] = meta
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        columns = [(key, batch.parse.values(key)) for key in self.parse_keys] + \
            [(key, batch.content.values(key)) for key in self.content_keys]
        for i, doc in enumerate(docs):
            if doc is not None:
                meta: dict[str, Any] = {}
                for key, values in columns:
                    self._set(meta, key, values[i])
                db = batch.page(i).db if self.db_keys else None  # the crawldb's metadata: only when asked for
                if db is not None:
                    self._copy(meta, db.metadata, self.db_keys)
                if meta:
                    doc["meta"] = meta


PLUGIN = PluginInfo(
    id="index-metadata",
    point="IndexingFilter",
    factory=MetadataIndexingFilter,
    description="meta: parse/content/crawldb metadata named by index.*.md",
    aliases=("org.apache.nutch.indexer.metadata.MetadataIndexer",),
)
