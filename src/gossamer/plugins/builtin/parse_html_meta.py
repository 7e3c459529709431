"""``<meta>`` tags of an HTML page, read as Nutch's ``HTMLMetaProcessor`` and ``parse-metatags`` do.

* ``<meta name="robots" content="…">``: the words ``noindex``, ``nofollow``,
  ``none`` (both) and ``noarchive`` (caching forbidden) are honoured; the robots
  value is kept in the parse metadata under ``robots`` (the indexer's
  ``indexer.delete.robots.noindex`` reads it).
* ``<meta http-equiv="refresh" content="5; url=…">``: a refresh with a whole number
  of seconds (fractions are cut) and an optional target; without a target it
  refreshes the page itself.  ``<meta http-equiv="Pragma" content="no-cache">``
  forbids caching too.
* Every ``<meta name>`` goes into the parse metadata under its lower-cased name
  (first value wins), as Nutch's HtmlParser does.  The ``metatag.<name>`` keys are
  the ``parse-metatags`` HtmlParseFilter's (:mod:`.htmlfilter_metatags`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from gossamer.core import robots_words


@dataclass
class MetaDirectives:
    """What a page's ``<meta>`` tags say."""

    noindex: bool = False
    nofollow: bool = False
    nocache: bool = False
    refresh_seconds: int | None = None
    refresh_target: str = ""
    tags: dict[str, str] = field(default_factory=dict)
    elements: list[dict[str, str | None]] = field(default_factory=list)
    """The attributes of every ``<meta>`` element read, in document order."""


def parse_refresh(value: str) -> tuple[int, str] | None:
    """``(seconds, target)`` of a refresh value (``target`` may be empty); ``None`` if malformed."""
    seconds_text, sep, rest = value.partition(";")
    if not sep:
        seconds_text, sep, rest = value.partition(",")
    seconds_text = seconds_text.strip()
    digits = seconds_text.split(".", 1)[0]
    if not digits.isdigit():
        return None
    target = rest.strip()
    lowered = target.lower()
    if lowered.startswith("url"):
        name, eq, after = target.partition("=")
        if eq and name.strip().lower() == "url":
            target = after.strip()
    if len(target) >= 2 and target[0] == target[-1] and target[0] in "'\"":
        target = target[1:-1].strip()
    elif target[:1] in "'\"":
        target = target[1:].strip()
    return int(digits), target


class MetaReader:
    """Reads the ``<meta>`` tags of a parsed tree into :class:`MetaDirectives`."""

    def read(self, tree: object) -> MetaDirectives:
        """Directives and tags of every ``<meta>`` element of ``tree`` (a selectolax parser)."""
        return self.read_attributes(node.attributes for node in tree.css("meta"))  # type: ignore[attr-defined]

    def read_attributes(self, elements: Iterable[dict[str, Any]]) -> MetaDirectives:
        """Directives and tags of ``<meta>`` elements given by their attributes, in document order."""
        found = MetaDirectives()
        tags = found.tags
        for attrs in elements:
            found.elements.append(attrs)
            content = attrs.get("content")
            if content is None:
                continue
            name = attrs.get("name")
            if name:
                name = name.strip().lower()
                if name not in tags:
                    tags[name] = content.strip()
                if name == "robots":
                    words = robots_words(content)
                    if "none" in words:
                        found.noindex = found.nofollow = True
                    found.noindex = found.noindex or "noindex" in words
                    found.nofollow = found.nofollow or "nofollow" in words
                    found.nocache = found.nocache or "noarchive" in words
                continue
            equiv = (attrs.get("http-equiv") or "").strip().lower()
            if equiv == "refresh" and found.refresh_seconds is None:
                refresh = parse_refresh(content)
                if refresh is not None:
                    found.refresh_seconds, found.refresh_target = refresh
            elif equiv == "pragma" and "no-cache" in content.lower():
                found.nocache = True
        return found
