"""Which Parser plugins read a document, in which order, and how large it may be.

The content type is :func:`gossamer.core.mime.detect_content_type`'s: the declared type, the URL's
extension and, with ``mime.type.magic``, the leading bytes (Nutch's MimeUtil).

The candidates for a type are, as Nutch's ``parse-plugins.xml`` orders them:

1. the plugin ids ``parse.plugin.map`` lists for the most specific of its keys that
   matches — the type itself, else its family (``text/*``), else ``*`` — in the
   order listed, skipping ids that are not active;
2. then every other active Parser plugin that declares the type in its
   ``content_types`` (exact type, then ``family/*``, then ``*``; ties by id).  So a
   third-party parser plugs in by declaring its types, without editing the map.

The parse runs the candidates in order until one succeeds.  ``parser.size.limits``
gives the largest document (bytes) each type may be, by the same most-specific-key
rule; a larger document is not handed to any parser.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gossamer.core import Content, canonical_mime, detect_content_type, mime_type_map, most_specific_mime
from gossamer.plugins import Parser, PluginRepository

NamedParser = tuple[str, Parser]
"""A parser plugin's id and its instance."""


def active_parsers(repo: PluginRepository) -> list[NamedParser]:
    """``(id, instance)`` of every active, configured Parser plugin."""
    found = []
    for state in repo.states():
        if state.info.point == "Parser" and state.active:
            try:
                found.append((state.info.id, repo.named(Parser, state.info.id)))
            except LookupError:  # not configured: it leaves the chain
                continue
    return found


class ParserSelector:
    """Maps documents to their candidate Parser plugins and size limit (see the module docstring)."""

    def __init__(self, parsers: Sequence[NamedParser], plugin_map: Iterable[str] = (), magic: bool = True,
                 size_limits: Iterable[str] = ()) -> None:
        self.parsers = sorted(parsers, key=lambda pair: pair[0])
        self.plugin_map = {key: value.replace(",", " ").split() for key, value in mime_type_map(plugin_map).items()}
        self.magic = magic
        self.limits = {key: int(value) for key, value in mime_type_map(size_limits).items()}
        self._declared = [(plugin_id, parser, {canonical_mime(t) if "/" in t and not t.endswith("/*") else t.lower()
                                               for t in parser.content_types})
                          for plugin_id, parser in self.parsers]
        self._cache: dict[str, list[NamedParser]] = {}

    def content_type(self, content: Content) -> str:
        """The effective MIME type of ``content`` (:func:`gossamer.core.mime.detect_content_type`)."""
        return detect_content_type(content.content_type, content.url, content.content, self.magic)

    def size_limit(self, mime: str) -> int:
        """Largest document of type ``mime`` a parser gets, in bytes; ``-1`` = no limit."""
        limit = most_specific_mime(self.limits, mime)
        return -1 if limit is None else limit

    def candidates(self, mime: str) -> list[NamedParser]:
        """The parsers to try for ``mime``, in order; empty when no active parser takes it."""
        if mime in self._cache:
            return self._cache[mime]
        by_id = dict(self.parsers)
        chosen: dict[str, Parser] = {}
        for plugin_id in most_specific_mime(self.plugin_map, mime) or ():
            if plugin_id in by_id:
                chosen.setdefault(plugin_id, by_id[plugin_id])
        family = mime.partition("/")[0] + "/*"
        ranked = []
        for plugin_id, parser, types in self._declared:
            rank = 0 if mime in types else 1 if family in types else 2 if "*" in types else None
            if rank is not None:
                ranked.append((rank, plugin_id, parser))
        for _, plugin_id, parser in sorted(ranked, key=lambda item: (item[0], item[1])):
            chosen.setdefault(plugin_id, parser)
        result = list(chosen.items())
        self._cache[mime] = result
        return result

    def parser_for(self, mime: str) -> Parser | None:
        """The first candidate for ``mime``, or ``None``."""
        found = self.candidates(mime)
        return found[0][1] if found else None
