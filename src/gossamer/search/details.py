"""Per-hit details: stored fields of the document and a snippet with the query terms highlighted.

The snippet is tantivy's best fragment of ``content`` for the query's positive
terms (at most ``searcher.summary.length`` × 10 characters), looked for in the first
``searcher.summary.scan.chars`` characters of a long text and in the rest only when they hold none
of the terms; when the terms occur
only in the title, URL or anchors, the start of the text stands in, unhighlighted.
A snippet never starts by repeating the title: the page text begins with the
title (the HTML parser puts it there, as Nutch's does), so a leading copy of the
title — or several, when the first heading repeats it — is cut off
(:func:`without_title`).  Highlights are character ranges into the snippet text — never markup — so every
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
    """The shown stored fields of a document as JSON-able values.

    Read field by field: ``to_dict`` would copy every stored field, the page's whole text included.
    """
    out: dict[str, Any] = {}
    for name in SHOWN_FIELDS:
        values = document.get_all(name)
        if values:
            out[name] = [_value(v) for v in values] if name in LIST_FIELDS else _value(values[0])
    return out


TITLE_SEPARATORS = "-\u2013\u2014|:\u00b7\u2022,;."
"""What may stand between a leading title and the rest of the text (cut with the title)."""


def _title_prefix_length(text: str, title: str) -> int:
    """How many leading characters of ``text`` are copies of ``title`` and separators (0: none).

    A copy is the title's exact text (white space aside: the parser collapses it in both),
    followed by the end of the text or a character that is not a letter, digit or
    underscore: title "News" does not cut "Newsletter", nor "news" in lower case, which
    is the page's own sentence rather than the parser's copy of the title.
    """
    words = title.split()
    if not words:
        return 0
    cut = 0
    while (end := _copy_end(text, cut, words)) is not None and end > cut:
        cut = end
    return cut


def _copy_end(text: str, start: int, words: list[str]) -> int | None:
    """Where a copy of ``words`` at ``start`` (white space before it, separators after it) ends, or ``None``.

    The words must follow one another with white space between them, and the last one must not
    run on into a letter, digit or underscore.  Plain string scanning: a regular expression per
    title would be compiled for every hit (titles differ), which cost 15 % of a query's time.
    """
    size = len(text)
    at = start
    while at < size and text[at].isspace():
        at += 1
    for i, word in enumerate(words):
        if i:
            gap = at
            while gap < size and text[gap].isspace():
                gap += 1
            if gap == at:
                return None
            at = gap
        if not text.startswith(word, at):
            return None
        at += len(word)
    if at < size and (text[at].isalnum() or text[at] == "_"):
        return None
    while at < size and (text[at].isspace() or text[at] in TITLE_SEPARATORS):
        at += 1
    return at


def character_ranges(text: str, ranges: Sequence[Any]) -> list[tuple[int, int]]:
    """The ranges tantivy highlights (``start``, ``end``: byte offsets into the UTF-8 of ``text``) as character ranges.

    A range that does not fall on character boundaries is widened to the characters it touches.
    """
    if text.isascii():
        return [(r.start, r.end) for r in ranges]
    data = text.encode("utf-8")

    def chars(offset: int) -> int:
        return len(data[:offset].decode("utf-8", errors="ignore"))

    return [(chars(r.start), len(text) - len(data[r.end:].decode("utf-8", errors="ignore"))) for r in ranges]


def without_title(snippet: Snippet, title: str) -> Snippet:
    """``snippet`` without leading copies of ``title`` (see the module docstring); highlights shifted.

    Highlights inside the cut part are dropped, one that straddles its end is clipped.
    """
    cut = _title_prefix_length(snippet.text, title)
    if cut == 0:
        return snippet
    ranges = [(max(a, cut) - cut, b - cut) for a, b in snippet.highlights if b > cut]
    return Snippet(snippet.text[cut:], ranges)


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
        self.scan = settings.get_int("searcher.summary.scan.chars")

    def _best_fragment(self, document: tantivy.Document) -> tantivy.Snippet:
        """The best fragment of the first ``scan`` characters of the text (cut at a space), else of all of it.

        The whole text is read only when its start holds no query term: tantivy tokenizes all the
        text it is given, and the longest pages (up to 1.4 MB of text) made snippets a sixth of a
        query's CPU.  ``searcher.summary.scan.chars`` = 0: always the whole text.
        """
        assert self.generator is not None
        content = document.get_first("content") or ""
        if 0 < self.scan < len(content):
            cut = content.rfind(" ", 0, self.scan + 1)
            found = self.generator.snippet_from_doc(tantivy.Document(content=content[:cut if cut > 0 else self.scan]))
            if found.highlighted():
                return found
        return self.generator.snippet_from_doc(document)

    def snippet(self, document: tantivy.Document) -> Snippet:
        """The document's snippet (see the module docstring)."""
        title = document.get_first("title") or ""
        if self.generator is not None:
            found = self._best_fragment(document)
            text = found.fragment()
            if text and found.highlighted():
                best = without_title(Snippet(text, character_ranges(text, found.highlighted())), title)
                if best.highlights:
                    return best
        content = document.get_first("content") or ""
        content = content[_title_prefix_length(content, title):]
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
