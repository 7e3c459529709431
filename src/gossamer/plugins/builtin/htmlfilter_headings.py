"""Plugin ``headings``: the text of the page's headings as parse metadata (Nutch's HeadingsParseFilter).

For each element named in ``headings`` (default ``h1,h2``; any of ``h1`` … ``h6``)
the text of the first such element, white space collapsed, goes into the parse
metadata under the element's name (``h1``, ``h2`` …).  With
``headings.multivalued`` every such element's text is kept (distinct values, in
document order, tab-separated, see :mod:`.htmlfilter_common`).  Empty headings
are skipped.  To index them, name the keys in ``index.parse.md`` (``index-metadata``).
"""

from __future__ import annotations

from typing import Any

from gossamer.core import Content, Settings
from gossamer.plugins.api import HtmlParseFilter, ParseResult, PluginNotConfigured
from gossamer.plugins.builtin.htmlfilter_common import join_values, node_text
from gossamer.plugins.registry import PluginInfo

HEADING_TAGS = frozenset(f"h{level}" for level in range(1, 7))


class HeadingsFilter(HtmlParseFilter):
    """Heading texts → parse metadata keyed by the heading's tag name."""

    reads_text = False

    def __init__(self, settings: Settings) -> None:
        names = [n.strip().lower() for n in settings.get_list("headings") if n.strip()]
        self.tags = [n for n in dict.fromkeys(names) if n in HEADING_TAGS]
        if not self.tags:
            raise PluginNotConfigured("headings names no element h1 … h6")
        self.multivalued = settings.get_bool("headings.multivalued")

    def filter(self, content: Content, result: ParseResult, tree: Any) -> ParseResult:
        meta = result.data.parse_metadata
        for tag in self.tags:
            texts = (node_text(node) for node in tree.css(tag))
            found = [t for t in texts if t]
            if found:
                meta[tag] = join_values(found if self.multivalued else found[:1])
        return result


PLUGIN = PluginInfo(
    id="headings",
    point="HtmlParseFilter",
    factory=HeadingsFilter,
    description="h1/h2 (headings) text into parse metadata",
    aliases=("org.apache.nutch.parse.headings.HeadingsParseFilter", "HeadingsParseFilter"),
)
