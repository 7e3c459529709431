"""Plugin ``index-anchor``: the anchor texts of a page's inlinks, from the linkdb (Nutch's AnchorIndexingFilter).

``anchor`` holds one value per inlink with a non-empty anchor, in linkdb order;
with ``anchorIndexingFilter.deduplicate`` case-insensitive repeats are dropped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gossamer.core import Inlink, InlinkList, Settings
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo


class AnchorIndexingFilter(IndexingFilter):
    """anchor: incoming anchor texts."""

    reads_inlink_sources = False

    fields = (IndexField("anchor", "text", description="anchor texts of incoming links"),)

    def __init__(self, settings: Settings) -> None:
        self.deduplicate = settings.get_bool("anchorIndexingFilter.deduplicate")

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        self._fill(doc, page.inlinks)
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        for doc, inlinks in zip(docs, batch.inlinks, strict=True):
            if doc is not None and inlinks:
                self._fill(doc, inlinks)

    def _fill(self, doc: dict[str, Any], inlinks: Sequence[Inlink]) -> None:
        anchors: list[str] = []
        seen: set[str] = set()
        texts = inlinks.anchors if isinstance(inlinks, InlinkList) else (i.anchor for i in inlinks)
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


PLUGIN = PluginInfo(
    id="index-anchor",
    point="IndexingFilter",
    factory=AnchorIndexingFilter,
    description="anchor: the anchor texts of incoming links (linkdb)",
    aliases=("org.apache.nutch.indexer.anchor.AnchorIndexingFilter",),
)
