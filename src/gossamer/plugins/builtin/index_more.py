"""Plugin ``index-more``: content type, length and dates (after Nutch's MoreIndexingFilter).

* ``type``: the MIME type without parameters and, with
  ``moreIndexingFilter.indexMimeTypeParts``, its two parts (``text/html`` →
  ``text/html``, ``text``, ``html``) — what ``type:`` matches;
* ``content_length``: the Content-Length header, else the text length;
* ``last_modified``: the Last-Modified header or the fetch's modified time;
* ``date``: ``last_modified`` when known, else the fetch time — what ``date:`` ranges over.
"""

from __future__ import annotations

from typing import Any

from gossamer.core import Settings, http_date
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput
from gossamer.plugins.builtin.index_basic import millis_to_datetime
from gossamer.plugins.registry import PluginInfo


def header(meta: dict[str, str], name: str) -> str:
    """A header value from content metadata, matched case-insensitively ('' when absent)."""
    if name in meta:
        return meta[name]
    lower = name.lower()
    for key, value in meta.items():
        if key.lower() == lower:
            return value
    return ""


def mime_type(meta: dict[str, str]) -> str:
    """The content type without parameters, lower-cased ('' when unknown)."""
    return header(meta, "Content-Type").split(";", 1)[0].strip().lower()


class MoreIndexingFilter(IndexingFilter):
    """type, content_length, last_modified, date."""

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
        mime = mime_type(meta)
        if mime:
            types = [mime]
            if self.parts and "/" in mime:
                types.extend(part for part in mime.split("/", 1) if part)
            doc["type"] = types
        length = header(meta, "Content-Length").strip()
        doc["content_length"] = int(length) if length.isdigit() else len(page.parse.text.text or "")
        modified = None
        value = header(meta, "Last-Modified")
        if value:
            modified = http_date(value)
        if modified is None and page.fetch.modified_time > 0:
            modified = millis_to_datetime(page.fetch.modified_time)
        if modified is not None and modified.tzinfo is None:
            modified = None
        if modified is not None:
            doc["last_modified"] = modified
        doc["date"] = modified if modified is not None else millis_to_datetime(page.fetch.fetch_time)
        return doc


PLUGIN = PluginInfo(
    id="index-more",
    point="IndexingFilter",
    factory=MoreIndexingFilter,
    description="type (MIME and parts), content_length, last_modified, date",
    aliases=("org.apache.nutch.indexer.more.MoreIndexingFilter",),
)
