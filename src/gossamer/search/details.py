"""Per-hit details: stored fields of the document and a snippet with the query terms highlighted.

The snippet is tantivy's best fragment of ``content`` for the query's positive
terms (at most ``searcher.summary.length`` × 10 characters); when the terms occur
only in the title, URL or anchors, the start of the text stands in, unhighlighted.
Highlights are character ranges into the snippet text — never markup — so every
front end escapes the text itself.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any, Protocol

import tantivy

from gossamer.core import Settings
from gossamer.search.backend import Candidate, HitDetails, Snippet
from gossamer.search.query_build import BuiltQuery


class OpenShard(Protocol):
    """What details need of an open shard (:class:`gossamer.search.shards.Shard` is one)."""

    index: tantivy.Index
    searcher: tantivy.Searcher

SHOWN_FIELDS = ("boost", "tstamp", "segment", "digest", "warc", "lang", "type", "content_length", "last_modified",
                "date")
"""Stored fields copied into :attr:`HitDetails.fields` (when present)."""
LIST_FIELDS = ("type",)


def _value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return value


def stored_fields(document: tantivy.Document) -> dict[str, Any]:
    """The shown stored fields of a document as JSON-able values."""
    data = document.to_dict()
    out: dict[str, Any] = {}
    for name in SHOWN_FIELDS:
        values = data.get(name)
        if values:
            out[name] = [_value(v) for v in values] if name in LIST_FIELDS else _value(values[0])
    return out


class SnippetMaker:
    """Builds snippets of one shard's documents for one query."""

    def __init__(self, shard: OpenShard, built: BuiltQuery, settings: Settings) -> None:
        self.max_chars = max(60, settings.get_int("searcher.summary.length") * 10)
        self.generator: tantivy.SnippetGenerator | None = None
        schema = shard.index.schema
        terms = [t for t in built.highlight if t]
        if terms:
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "content", t)) for t in terms])
            self.generator = tantivy.SnippetGenerator.create(shard.searcher, query, schema, "content")
            self.generator.set_max_num_chars(self.max_chars)

    def snippet(self, document: tantivy.Document) -> Snippet:
        """The document's snippet (see the module docstring)."""
        if self.generator is not None:
            found = self.generator.snippet_from_doc(document)
            text = found.fragment()
            if text and found.highlighted():
                return Snippet(text, [(r.start, r.end) for r in found.highlighted()])
        content = document.get_first("content") or ""
        text = content[: self.max_chars]
        if len(content) > self.max_chars:
            text = text.rsplit(" ", 1)[0] + " …"
        return Snippet(text, [])


def hit_details(shard: OpenShard, candidates: Sequence[Candidate], built: BuiltQuery,
                settings: Settings) -> list[HitDetails]:
    """Details of ``candidates``, all of ``shard``, in order."""
    maker = SnippetMaker(shard, built, settings)
    out = []
    for candidate in candidates:
        document = shard.searcher.doc(tantivy.DocAddress(candidate.segment, candidate.doc))
        out.append(HitDetails(
            url=document.get_first("id") or "",
            title=document.get_first("title") or "",
            site=document.get_first("site") or "",
            snippet=maker.snippet(document),
            fields=stored_fields(document),
        ))
    return out
