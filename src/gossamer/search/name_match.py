"""Known-item matching: a page one of whose names is the whole query ranks higher.

A *plain* query — bare words and phrases on the default field, none of them ``+``/``-`` and no
``field:`` clause — is compared with the names ``index-name`` gave each page (title segments,
URL file name; see :mod:`gossamer.index.name_field`): folded (the query's index tokens) and as
written (the query text, white space collapsed, quotes dropped).  A page whose name equals the
folded query scores ``query.name.boost`` × its text score, one whose name equals the query as
written ``query.name.boost`` × ``query.name.exact.boost`` × (both ``1`` = off).  The factor
depends on the page and the query only, so scores stay the same on 1 or N shards and nodes.

In a shard the matching pages are searched first, each kind as its own tier with its factor
(:func:`name_tiers`); the all-words tier that follows skips them (already explained), so the
early stop of :func:`~gossamer.search.shard_search.search_shard` stays exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import tantivy

from gossamer.core import Query, Settings
from gossamer.index import exact_key, folded_key

NAME_FIELD = "name"


@dataclass(frozen=True)
class NameMatch:
    """The name keys of a plain query and their factors (``exact`` ≥ ``folded`` ≥ 1)."""

    folded_key: str
    exact_key: str
    folded: float
    exact: float

    def keys(self) -> tuple[tuple[str, float], ...]:
        """(key, factor) pairs, the larger factor first."""
        return ((self.exact_key, self.exact), (self.folded_key, self.folded))


def plain_query_text(parsed: Query, text: str) -> str | None:
    """The text of a plain query (see the module docstring) without quotes, else ``None``."""
    return None if parsed.plain_tokens(allow_required=False) is None else text.replace('"', " ")


def name_match(parsed: Query, text: str, settings: Settings, field_names: frozenset[str]) -> NameMatch | None:
    """The query's :class:`NameMatch`, or ``None`` (not plain, no ``name`` field, or ``query.name.boost`` ≤ 1)."""
    folded = settings.get_float("query.name.boost")
    if NAME_FIELD not in field_names or folded <= 1.0:
        return None
    plain = plain_query_text(parsed, text)
    tokens = [t for clause in parsed.clauses for t in clause.tokens]
    if plain is None or not tokens or not plain.strip():
        return None
    exact = folded * max(1.0, settings.get_float("query.name.exact.boost"))
    return NameMatch(folded_key(tokens), exact_key(plain), folded, exact)


def name_filter(schema: tantivy.Schema, key: str) -> tantivy.Query:
    """Pages with the name ``key`` (a filter: adds nothing to tantivy's score)."""
    return tantivy.Query.const_score_query(tantivy.Query.term_query(schema, NAME_FIELD, key), 0.0)


def with_name(schema: tantivy.Schema, query: tantivy.Query, key: str) -> tantivy.Query:
    """``query`` restricted to the pages with the name ``key``."""
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (tantivy.Occur.Must, name_filter(schema, key))])


def name_factor(searcher: tantivy.Searcher, schema: tantivy.Schema, match: NameMatch | None,
                doc_id: tantivy.Query) -> float:
    """The factor of the one document ``doc_id`` selects (1.0 without a match)."""
    if match is None:
        return 1.0
    for key, factor in match.keys():
        found = tantivy.Query.boolean_query([(tantivy.Occur.Must, doc_id),
                                             (tantivy.Occur.Must, name_filter(schema, key))])
        if searcher.search(found, 1, count=True).count:
            return factor
    return 1.0
