"""Plugin ``index-anchor``: the anchor texts of a page's inlinks, from the linkdb (Nutch's AnchorIndexingFilter).

``anchor`` holds one value per inlink with a non-empty anchor, in linkdb order;
with ``anchorIndexingFilter.deduplicate`` case-insensitive repeats are dropped.
"""

from __future__ import annotations

from typing import Any

from gossamer.core import InlinkList, Settings
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput
from gossamer.plugins.registry import PluginInfo


class AnchorIndexingFilter(IndexingFilter):
    """anchor: incoming anchor texts."""

    fields = (IndexField("anchor", "text", description="anchor texts of incoming links"),)

    def __init__(self, settings: Settings) -> None:
        self.deduplicate = settings.get_bool("anchorIndexingFilter.deduplicate")

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        anchors: list[str] = []
        seen: set[str] = set()
        texts = page.inlinks.anchors if isinstance(page.inlinks, InlinkList) else (i.anchor for i in page.inlinks)
        for text in texts:
            text = text.strip()
            if not text:
                continue
            if self.deduplicate:
                folded = text.casefold()
                if folded in seen:
                    continue
                seen.add(folded)
            anchors.append(text)
        if anchors:
            doc["anchor"] = anchors
        return doc


PLUGIN = PluginInfo(
    id="index-anchor",
    point="IndexingFilter",
    factory=AnchorIndexingFilter,
    description="anchor: the anchor texts of incoming links (linkdb)",
    aliases=("org.apache.nutch.indexer.anchor.AnchorIndexingFilter",),
)
