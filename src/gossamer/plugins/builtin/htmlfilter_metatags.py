"""Plugin ``parse-metatags``: chosen ``<meta>`` tags as ``metatag.<name>`` parse metadata (Nutch's MetaTagsParser).

Every ``<meta name=… content=…>`` and ``<meta http-equiv=… content=…>`` whose
lower-cased name is listed in ``metatags.names`` (``*`` = every one) is copied into
the parse metadata as ``metatag.<name>``.  A name given several times keeps all its
distinct values, tab-separated (see :mod:`.htmlfilter_common`), as Nutch's
multi-valued metadata does.  ``index-metadata`` indexes them: its default
``index.parse.md`` is ``metatag.description,metatag.keywords``.

Unlike Nutch's plugin, a ``<meta>`` with neither ``name`` nor ``http-equiv`` (e.g.
``property``) is read through its ``property`` attribute too (Open Graph tags:
``metatag.og:title``), because pages use it for the same purpose.
"""

from __future__ import annotations

from typing import Any

from gossamer.core import Content, Settings
from gossamer.plugins.api import HtmlParseFilter, ParseResult
from gossamer.plugins.builtin.htmlfilter_common import join_values
from gossamer.plugins.registry import PluginInfo

PREFIX = "metatag."
"""Parse-metadata key prefix of the copied tags."""


class MetaTagsFilter(HtmlParseFilter):
    """Copies the ``metatags.names`` meta tags into ``metatag.*`` parse metadata."""

    reads_text = False

    def __init__(self, settings: Settings) -> None:
        names = {n.strip().lower() for n in settings.get_list("metatags.names") if n.strip()}
        self.all_names = "*" in names
        self.names = frozenset(names - {"*"})

    def wanted(self, name: str) -> bool:
        """Whether the lower-cased tag ``name`` is copied."""
        return bool(name) and (self.all_names or name in self.names)

    def filter(self, content: Content, result: ParseResult, tree: Any) -> ParseResult:
        values: dict[str, list[str]] = {}
        elements = result.meta_elements  # what parse-html read; else a walk of the DOM
        if elements is None:
            elements = [node.attributes for node in tree.css("meta")]
        for attrs in elements:
            if "content" not in attrs:
                continue
            name = (attrs.get("name") or attrs.get("http-equiv") or attrs.get("property") or "").strip().lower()
            if self.wanted(name):
                values.setdefault(name, []).append(attrs.get("content") or "")
        meta = result.data.parse_metadata
        for name, found in values.items():
            joined = join_values(found)
            if joined:
                meta[PREFIX + name] = joined
        return result


PLUGIN = PluginInfo(
    id="parse-metatags",
    point="HtmlParseFilter",
    factory=MetaTagsFilter,
    description="metatag.NAME parse metadata from the <meta> tags named by metatags.names",
    aliases=("org.apache.nutch.parse.metatags.MetaTagsParser", "MetaTagsParser"),
)
