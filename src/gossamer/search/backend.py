"""The search protocol between the broker and the places shards live, and the records it carries.

A :class:`SearchBackend` is either a :class:`~gossamer.search.shards.ShardSet`
in this process or a :class:`~gossamer.search.remote.RemoteNode` (a search node
over HTTP).  Three calls make a query (query text is sent as text; every
backend parses it with the same plugins):

1. ``stats(text) -> Stats`` — collection statistics of the query's terms;
2. ``search(text, want, per_site, stats, semantic=0) -> SearchPage`` — the backend's best
   ``want`` candidates scored with the summed ``stats`` (so scores from
   different backends compare), at most ``per_site`` per site, and with
   ``semantic > 0`` its ``semantic`` pages nearest to the query's embedding
   (``neighbours``, scored by cosine; :mod:`gossamer.search.semantic`);
3. ``details(candidates, text) -> list[HitDetails]`` — stored fields and a
   snippet for the candidates that made the page;

and, on demand, ``explain(url, text, stats)`` — a hit's score taken apart.

Candidates name a document by (shard, segment ordinal, document number) within
a searcher ``generation``; ``details`` must be asked of the same backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from gossamer.search.scoring import Stats


@dataclass
class Candidate:
    """A scored hit before details: global score, document address, site hash, "more from this site"."""

    score: float
    shard: int
    segment: int
    doc: int
    site: int
    more: bool = False

    def to_json(self) -> list[Any]:
        """Compact JSON form."""
        return [self.score, self.shard, self.segment, self.doc, self.site, self.more]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> Candidate:
        """Inverse of :meth:`to_json`."""
        score, shard, segment, doc, site, more = data
        return cls(float(score), int(shard), int(segment), int(doc), int(site), bool(more))


@dataclass
class SearchPage:
    """One backend's answer to ``search``: candidates (best first), matching documents, searcher generation."""

    candidates: list[Candidate] = field(default_factory=list)
    total: int = 0
    generation: str = ""
    neighbours: list[Candidate] = field(default_factory=list)
    """Nearest pages by embedding, best first (only when asked for and the index has vectors)."""


@dataclass
class Snippet:
    """A passage of the page text and the (start, end) character ranges of query terms in it."""

    text: str = ""
    highlights: list[tuple[int, int]] = field(default_factory=list)

    def parts(self) -> list[tuple[str, bool]]:
        """The text cut into (piece, highlighted) pairs — what a template renders (and escapes)."""
        out: list[tuple[str, bool]] = []
        at = 0
        for start, end in self.highlights:
            if start > at:
                out.append((self.text[at:start], False))
            out.append((self.text[start:end], True))
            at = end
        if at < len(self.text):
            out.append((self.text[at:], False))
        return out


@dataclass
class HitDetails:
    """What a result shows: URL, title, site, snippet and stored facts of the page."""

    url: str
    title: str
    site: str
    snippet: Snippet
    fields: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> HitDetails:
        """Inverse of :meth:`to_json`."""
        snippet = data.get("snippet") or {}
        return cls(data["url"], data.get("title", ""), data.get("site", ""),
                   Snippet(snippet.get("text", ""), [tuple(h) for h in snippet.get("highlights", [])]),
                   data.get("fields", {}))


class SearchBackend(Protocol):
    """Where shards are searched (see the module docstring)."""

    def stats(self, text: str) -> Stats:
        """Statistics of the query's terms."""
        ...

    def search(self, text: str, want: int, per_site: int, stats: Stats, semantic: int = 0) -> SearchPage:
        """Best candidates scored with ``stats`` (and ``semantic`` nearest pages)."""
        ...

    def details(self, candidates: Sequence[Candidate], text: str) -> list[HitDetails]:
        """Details of candidates this backend returned."""
        ...

    def explain(self, url: str, text: str, stats: Stats) -> dict[str, Any] | None:
        """The score explanation of ``url`` (``None`` when its document is not here)."""
        ...


def group_by_site(candidates: Sequence[Candidate], per_site: int, want: int | None = None) -> list[Candidate]:
    """The best candidates, at most ``per_site`` per site (0 = no limit), best first, at most ``want``.

    A kept candidate whose site had more candidates gets ``more = True``.  Ties
    are broken by document address, so the order is deterministic.
    """
    ordered = sorted(candidates, key=lambda c: (-c.score, c.shard, c.segment, c.doc))
    if not per_site:
        return ordered[:want] if want is not None else ordered
    kept: list[Candidate] = []
    last: dict[int, Candidate] = {}
    counts: dict[int, int] = {}
    for candidate in ordered:
        count = counts.get(candidate.site, 0)
        if count >= per_site:
            last[candidate.site].more = True
            continue
        counts[candidate.site] = count + 1
        last[candidate.site] = candidate
        kept.append(candidate)
    return kept[:want] if want is not None else kept


def refill(lists: dict[int, list[Candidate]], merged: Sequence[Candidate], need: int,
           per_site: int) -> dict[int, int]:
    """Which lists to ask again for more, and how many more, after a merge with per-site grouping.

    ``lists`` are each source's best candidates (at most ``per_site`` per site of
    its own), ``merged`` their :func:`group_by_site` merge (not cut).  A source's
    list can hide candidates that belong on the page when it was full (``need``
    long), some of its candidates were dropped because other sources had better
    hits of the same site, and its worst candidate still ranks on the page.
    """
    if not per_site:
        return {}
    kept = {id(c) for c in merged}
    floor = merged[need - 1].score if len(merged) >= need else float("-inf")
    extra: dict[int, int] = {}
    for key, candidates in lists.items():
        dropped = sum(1 for c in candidates if id(c) not in kept)
        if len(candidates) >= need and dropped and min(c.score for c in candidates) >= floor:
            extra[key] = dropped
    return extra
