"""Description matching: a page whose opening holds every word of a plain query ranks higher.

People who describe a page in their own words use the words of its opening (the first prose of its
main content, field ``opening`` of ``index-opening``) far more than the words of its lists, tables
and navigation.  With ``query.opening.all.boost`` (2; ``1`` = off), when a query has two or more
*plain* words (bare one-word terms on the default field, ``BuiltQuery.words``) and a page's opening
matches each of them (exactly, or by a stem in ``opening_stem``), the page's score is multiplied by
the factor.  It depends only on the page and the query, so scores stay the same on 1 or N shards
and search nodes.  The factor is read from the hit's own scoring leaves (:meth:`OpeningRule.opening_factor`),
whichever tier found the page; in a shard the covering pages are searched first as a tier of their
own (:func:`covering`) whose bound includes the factor, so the early stop stays exact.

That a word counts once in the opening is the index's business (``opening.distinct.words``).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

import tantivy

from gossamer.core import Settings
from gossamer.index import is_stem_field, stem_field
from gossamer.search.scoring import Leaf, LeafKey

OPENING_FIELD = "opening"


def is_opening_field(name: str) -> bool:
    """Whether a word of the opening is matched in field ``name`` (exact, or stemmed in any language)."""
    return name == OPENING_FIELD or (is_stem_field(name) and name.startswith(stem_field(OPENING_FIELD)))


@dataclass(frozen=True)
class OpeningRule:
    """The description-match factor (1 = off)."""

    factor: float

    @classmethod
    def from_settings(cls, settings: Settings) -> OpeningRule:
        """``query.opening.all.boost`` (at least 1); 1 when the opening does not score (``query.opening.boost`` 0)."""
        if settings.get_float("query.opening.boost") <= 0:
            return cls(1.0)
        return cls(max(1.0, settings.get_float("query.opening.all.boost")))

    def applies(self, groups: Sequence[Sequence[LeafKey]]) -> bool:
        """Whether a query with these words (each its leaves) can have covering pages (two or more, factor > 1)."""
        return self.factor > 1.0 and len(groups) >= 2

    def opening_factor(self, leaves: Sequence[Leaf], groups: Sequence[Sequence[LeafKey]]) -> float:
        """``factor`` when every word (``groups``: each word's leaves) has a matching leaf in the opening, else 1."""
        if not self.applies(groups):
            return 1.0
        found = {(leaf.field, leaf.term) for leaf in leaves if is_opening_field(leaf.field) and leaf.freq > 0}
        return self.factor if all(any(key in found for key in group) for group in groups) else 1.0


def covering(schema: tantivy.Schema, query: tantivy.Query, groups: Sequence[Sequence[LeafKey]],
             field_names: Collection[str]) -> tantivy.Query | None:
    """``query`` restricted to pages whose opening matches every word (a filter: the score is unchanged).

    ``None`` when some word has no leaf in an opening field (no page can cover the query).
    """
    musts: list[tuple[tantivy.Occur, tantivy.Query]] = [(tantivy.Occur.Must, query)]
    for group in groups:
        keys = [key for key in dict.fromkeys(group) if is_opening_field(key[0]) and key[0] in field_names]
        if not keys:
            return None
        terms = [tantivy.Query.term_query(schema, f, t) for f, t in keys]
        either = terms[0] if len(terms) == 1 else tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, q) for q in terms])
        musts.append((tantivy.Occur.Must, tantivy.Query.const_score_query(either, 0.0)))
    return tantivy.Query.boolean_query(musts)


__all__ = ["OPENING_FIELD", "OpeningRule", "covering", "is_opening_field"]
