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
            value = source.get(key)
            if value:
                out[key] = [v.strip() for v in value.split(self.separator) if v.strip()] if self.separator else value

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        self._fill(doc, page.parse.data.parse_metadata, page.parse.data.content_metadata,
                   page.db.metadata if page.db is not None else None)
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        for i, doc in enumerate(docs):
            if doc is not None:
                db = batch.page(i).db if self.db_keys else None  # the crawldb's metadata: only when asked for
                self._fill(doc, batch.parse_metadata[i], batch.content_metadata[i],
                           db.metadata if db is not None else None)

    def _fill(self, doc: dict[str, Any], parse_metadata: Mapping[str, str], content_metadata: Mapping[str, str],
              db_metadata: Mapping[str, str] | None) -> None:
        meta: dict[str, Any] = {}
        self._copy(meta, parse_metadata, self.parse_keys)
        self._copy(meta, content_metadata, self.content_keys)
        if db_metadata is not None:
            self._copy(meta, db_metadata, self.db_keys)
        if meta:
            doc["meta"] = meta


PLUGIN = PluginInfo(
    id="index-metadata",
    point="IndexingFilter",
    factory=MetadataIndexingFilter,
    description="meta: parse/content/crawldb metadata named by index.*.md",
    aliases=("org.apache.nutch.indexer.metadata.MetadataIndexer",),
)
