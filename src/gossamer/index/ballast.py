"""Shard statistics as tantivy counts them, and the *ballast* that keeps shards cheap to search exactly.

Search gives every hit its score with the statistics of the whole index
(:mod:`gossamer.search.scoring`), re-scoring tantivy's candidates one by one.
A shard can stop early when no later candidate can beat the current top; how
early depends on how far its own average field lengths are below the whole
index's (BM25 favours a document more when the average is higher).  URL-hash
shards differ by several per cent in average content length (page lengths are
heavy-tailed), which on pages with near-equal scores meant explaining hundreds
of candidates per query.

So after each commit the index writer tops up every shard whose average length
of a text field is below the index-wide one with a *ballast* document: one
reserved word repeated until the shard's average reaches the index-wide average
(plus 0.1 %).  Ballast documents have the id :data:`BALLAST_ID`, are never
deleted (so tantivy's token counts never lose them), are excluded from every
search, and are subtracted from the statistics scores are computed with — the
scores do not change, only the search gets faster.  ``_index.json`` records the
ballast of each shard (documents and tokens per field).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import tantivy

BALLAST_ID = "gossamer:ballast"
BALLAST_WORD = "gossamerballast"
HEADROOM = 1.001


@dataclass
class EngineStats:
    """Documents and tokens per text field of one shard, as tantivy's BM25 sees them."""

    docs: int = 0
    tokens: dict[str, float] = field(default_factory=dict)

    def minus(self, ballast: Mapping[str, Any] | None) -> EngineStats:
        """These statistics without the shard's ballast documents."""
        if not ballast:
            return EngineStats(self.docs, dict(self.tokens))
        extra = ballast.get("tokens", {})
        return EngineStats(self.docs - int(ballast.get("docs", 0)),
                           {f: max(0.0, t - float(extra.get(f, 0))) for f, t in self.tokens.items()})


def engine_stats(index: tantivy.Index, searcher: tantivy.Searcher, text_fields: Sequence[str]) -> EngineStats:
    """Documents and tokens per text field as tantivy counts them (read from one explanation per field)."""
    docs = searcher.num_docs
    tokens: dict[str, float] = {}
    for name in text_fields:
        found = searcher.terms_with_prefix(name, "", limit=1)
        if not found:
            continue
        query = tantivy.Query.term_query(index.schema, name, found[0][0])
        hits = searcher.search(query, 1, count=False).hits
        if not hits:
            continue
        total, avgdl = _explained_totals(json.loads(query.explain(searcher, hits[0][1]).to_json()))
        docs = int(total) if total else docs
        tokens[name] = float(round(avgdl * docs))  # an integer count; rounding undoes float32 where it can
    return EngineStats(docs, tokens)


def _explained_totals(node: dict[str, Any]) -> tuple[float, float]:
    total = avgdl = 0.0
    stack = [node]
    while stack:
        current = stack.pop()
        text = str(current.get("description", ""))
        if text.startswith("N,"):
            total = float(current["value"])
        elif text.startswith("avgdl"):
            avgdl = float(current["value"])
        stack.extend(current.get("details", ()))
    return total, avgdl


def ballast_needed(shards: Sequence[EngineStats], ballast: Sequence[Mapping[str, Any] | None]) -> list[dict[str, int]]:
    """Tokens per field of the ballast document each shard needs now (empty: none).

    ``shards`` are tantivy's statistics (ballast included), ``ballast`` what each
    shard holds already.  A new ballast document must lift the shard's average
    to the index-wide real average × :data:`HEADROOM`, counting itself.
    """
    real = [stats.minus(held) for stats, held in zip(shards, ballast, strict=True)]
    docs = sum(r.docs for r in real)
    fields = sorted({f for r in real for f in r.tokens})
    needs: list[dict[str, int]] = []
    for engine in shards:
        need: dict[str, int] = {}
        for name in fields:
            if not docs:
                continue
            target = sum(r.tokens.get(name, 0.0) for r in real) / docs * HEADROOM
            if engine.docs and engine.tokens.get(name, 0.0) / engine.docs >= target:
                continue
            missing = math.ceil(target * (engine.docs + 1) - engine.tokens.get(name, 0.0))
            if missing > 0:
                need[name] = missing
        needs.append(need)
    return needs


def ballast_document(tokens: Mapping[str, int]) -> dict[str, Any]:
    """The ballast document carrying ``tokens`` words in each field."""
    doc: dict[str, Any] = {"id": BALLAST_ID}
    for name, count in tokens.items():
        doc[name] = (BALLAST_WORD + " ") * count
    return doc


def add_ballast(held: Mapping[str, Any] | None, tokens: Mapping[str, int]) -> dict[str, Any]:
    """The shard's ballast record after adding one document of ``tokens``."""
    record = {"docs": int((held or {}).get("docs", 0)) + 1, "tokens": dict((held or {}).get("tokens", {}))}
    for name, count in tokens.items():
        record["tokens"][name] = int(record["tokens"].get(name, 0)) + count
    return record
