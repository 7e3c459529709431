"""Plugin ``index-more``: content type, length and dates (after Nutch's MoreIndexingFilter).

* ``type``: the MIME type without parameters and, with
  ``moreIndexingFilter.indexMimeTypeParts``, its two parts (``text/html`` →
  ``text/html``, ``text``, ``html``) — what ``type:`` matches;
* ``content_length``: the Content-Length header, else the text length;
* ``last_modified``: the Last-Modified header or the fetch's modified time;
* ``date``: ``last_modified`` when known, else the fetch time — what ``date:`` ranges over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gossamer.core import Settings, http_date
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput
from gossamer.plugins.builtin.index_basic import millis_to_datetime
from gossamer.plugins.index_batch import IndexBatch, header
from gossamer.plugins.registry import PluginInfo


def mime_type(meta: Mapping[str, str]) -> str:
    """The content type without parameters, lower-cased ('' when unknown)."""
    return _mime(header(meta, "Content-Type"))


def _mime(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def mime_types(batch: IndexBatch) -> list[str]:
    """:func:`mime_type` of every page of ``batch`` (computed once per batch)."""
    return batch.derived("mime_type", lambda: [_mime(value) for value in batch.header("Content-Type")])


class MoreIndexingFilter(IndexingFilter):
    """type, content_length, last_modified, date."""

    reads_inlink_sources = False

    fields = (
        IndexField("type", "raw", description="MIME type and its parts"),
        IndexField("content_length", "int", description="bytes of content"),
        IndexField("last_modified", "date", description="Last-Modified of the page"),
        IndexField("date", "date", fast=True, description="last modified, else fetch time (date: ranges)"),
    )

    def __init__(self, settings: Settings) -> None:
        self.parts = settings.get_bool("moreIndexingFilter.indexMimeTypeParts")

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        meta = page.parse.data.content_metadata
        self._fill(doc, mime_type(meta), header(meta, "Content-Length"), header(meta, "Last-Modified"),
                   page.parse.text.text or "", page.fetch.fetch_time, page.fetch.modified_time)
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        for i, (doc, mime, length, modified) in enumerate(zip(docs, mime_types(batch), batch.header("Content-Length"),
                                                              batch.header("Last-Modified"), strict=True)):
            if doc is not None:
                try:
                    self._fill(doc, mime, length, modified, batch.texts[i], batch.fetch_times[i],
                               batch.modified_times[i])
                except ValueError as exc:
                    batch.fail(i, exc, docs)

    def _fill(self, doc: dict[str, Any], mime: str, length: str, last_modified: str, text: str, fetch_time: int,
              modified_time: int) -> None:
        if mime:
            types = [mime]
            if self.parts and "/" in mime:
                types.extend(part for part in mime.split("/", 1) if part)
            doc["type"] = types
        length = length.strip()
        doc["content_length"] = int(length) if length.isdigit() else len(text)
        modified = None
        if last_modified:
            modified = http_date(last_modified)
        if modified is None and modified_time > 0:
            modified = millis_to_datetime(modified_time)
        if modified is not None and modified.tzinfo is None:
            modified = None
        if modified is not None:
            doc["last_modified"] = modified
        doc["date"] = modified if modified is not None else millis_to_datetime(fetch_time)


PLUGIN = PluginInfo(
    id="index-more",
    point="IndexingFilter",
    factory=MoreIndexingFilter,
    description="type (MIME and parts), content_length, last_modified, date",
    aliases=("org.apache.nutch.indexer.more.MoreIndexingFilter",),
)
