"""Plugins ``microformats-reltag`` and ``microformats-reltag-index``: rel-tag microformat tags (Nutch's RelTag*).

The parse filter reads every ``<a rel="tag" href="…">`` (``rel`` may hold other
words too): the tag is the last non-empty path segment of the link, percent-decoded
(``href="/tags/web%20crawling/"`` → ``web crawling``), as the rel-tag microformat
defines it.  The distinct tags, sorted, go into the parse metadata key
:data:`REL_TAG` (Nutch's ``Rel-Tag``), tab-separated.

The indexing filter puts them into the ``tag`` field (text, one value per tag);
the ``tag:`` query operator (plugin ``microformats-reltag-query``,
:mod:`gossamer.search.query_filter_fields`) finds pages by tag.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from gossamer.core import Content, Settings
from gossamer.plugins.api import HtmlParseFilter, IndexField, IndexingFilter, IndexInput, ParseResult
from gossamer.plugins.builtin.htmlfilter_common import (
    VALUE_SEPARATOR,
    base_url,
    join_values,
    rel_words,
    resolve,
    split_values,
)
from gossamer.plugins.registry import PluginInfo

REL_TAG = "Rel-Tag"
"""Parse-metadata key of the page's tags (Nutch's name)."""
MAX_TAG_LENGTH = 128
"""Longer tags are cut to this many characters."""


def tag_of(url: str) -> str:
    """The rel-tag of a tag link: the last non-empty path segment, percent-decoded ("" if none)."""
    try:
        path = urlsplit(url).path
    except ValueError:
        return ""
    segment = next((s for s in reversed(path.split("/")) if s), "")
    return " ".join(unquote(segment).replace("+", " ").split())[:MAX_TAG_LENGTH]


class RelTagParseFilter(HtmlParseFilter):
    """``<a rel="tag">`` links → :data:`REL_TAG` parse metadata."""

    reads_text = False

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def filter(self, content: Content, result: ParseResult, tree: Any) -> ParseResult:
        base = ""
        tags: set[str] = set()
        for node in tree.css("a[rel][href]"):
            if "tag" not in rel_words(node):
                continue
            base = base or base_url(content, tree)
            tag = tag_of(resolve(base, node.attributes.get("href")))
            if tag and VALUE_SEPARATOR not in tag:
                tags.add(tag)
        if tags:
            result.data.parse_metadata[REL_TAG] = join_values(sorted(tags))
        return result


class RelTagIndexingFilter(IndexingFilter):
    """tag: the page's rel-tags."""

    reads_inlink_sources = False

    fields = (IndexField("tag", "text", description="rel-tag microformat tags of the page"),)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        tags = split_values(page.parse.data.parse_metadata.get(REL_TAG))
        if tags:
            doc["tag"] = tags
        return doc


PARSE_PLUGIN = PluginInfo(
    id="microformats-reltag",
    point="HtmlParseFilter",
    factory=RelTagParseFilter,
    description="rel=tag links into parse metadata Rel-Tag",
    aliases=("org.apache.nutch.microformats.reltag.RelTagParser", "RelTagParser"),
)
INDEX_PLUGIN = PluginInfo(
    id="microformats-reltag-index",
    point="IndexingFilter",
    factory=RelTagIndexingFilter,
    description="tag: the page's rel-tags (from Rel-Tag)",
    aliases=("org.apache.nutch.microformats.reltag.RelTagIndexingFilter", "RelTagIndexingFilter"),
)
