"""Helpers shared by the HtmlParseFilter plugins (metatags, headings, creativecommons, reltag).

Parse metadata maps a key to one string; a key with several values (Nutch's
multi-valued ``Metadata``) holds them joined by :data:`VALUE_SEPARATOR`, a tab.
``index.metadata.separator`` set to a tab makes ``index-metadata`` index them as a
list; :func:`split_values` reads them back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin

from gossamer.core import Content
from gossamer.plugins.builtin.parse_html import collapse, document_base

VALUE_SEPARATOR = "\t"
"""Separator of the values of one multi-valued parse-metadata key."""


def join_values(values: Iterable[str]) -> str:
    """``values`` (first occurrences, in order, tabs and empty ones dropped) as one metadata value."""
    seen: dict[str, None] = {}
    for value in values:
        cleaned = collapse(value)
        if cleaned:
            seen.setdefault(cleaned, None)
    return VALUE_SEPARATOR.join(seen)


def split_values(value: str | None) -> list[str]:
    """The values of a metadata value written by :func:`join_values` (``[]`` for ``None``/empty)."""
    return [v for v in (value or "").split(VALUE_SEPARATOR) if v]


def rel_words(node: Any) -> set[str]:
    """The lower-cased words of a node's ``rel`` attribute (``rel="tag nofollow"`` → two words)."""
    return set((node.attributes.get("rel") or "").lower().split())


def base_url(content: Content, tree: Any) -> str:
    """The URL the page's relative links resolve against (``<base href>``, else the content's base URL)."""
    return document_base(tree, content.base_url or content.url)


def resolve(base: str, href: str | None) -> str:
    """``href`` made absolute against ``base``, fragment dropped; ``""`` when empty or malformed."""
    href = (href or "").strip()
    if not href:
        return ""
    try:
        return urljoin(base, href).partition("#")[0]
    except ValueError:
        return ""


def node_text(node: Any) -> str:
    """A node's text, white space collapsed."""
    return collapse(node.text(separator=" "))
