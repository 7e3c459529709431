"""From the query AST to a tantivy query, through the QueryFilter plugins.

Each clause goes to the plugin that registered its field (``""`` = the default
field); the plugin builds the clause's query with a :class:`QueryContext`.  The
context records every *scoring leaf* — a boosted term query on one text field —
so that the searcher can later recompute each hit's score with statistics of
the whole index (:mod:`gossamer.search.scoring`).  Everything else (phrases,
raw-field terms, date ranges) matches without scoring (``ctx.filter``).

Occurrence: a ``+`` clause must match, a ``-`` clause must not; a bare clause
on the default field or a text field must match too (all terms required, as in
Nutch), while filters (``site:``, ``type:`` …) always must match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import tantivy

from gossamer.core import Clause, Query, Settings
from gossamer.index import analyze
from gossamer.plugins import PluginRepository, QueryFilter
from gossamer.search.query_parse import QuerySyntaxError

Occur = tantivy.Occur
LeafKey = tuple[str, str]
"""A scoring leaf's (field, term)."""


@dataclass
class QueryContext:
    """What a QueryFilter builds with: the schema, field boosts, and leaf/filter helpers."""

    schema: tantivy.Schema
    field_names: frozenset[str]
    boosts: Mapping[str, float]
    scale: Callable[[str, str], float] | None = None
    leaves: list[LeafKey] = field(default_factory=list)
    weights: list[float] = field(default_factory=list)

    def tokens(self, clause_tokens: Iterable[str]) -> list[str]:
        """The index tokens of a clause's tokens (the index analyzer may split them further)."""
        return analyze(" ".join(clause_tokens))

    def leaf(self, field_name: str, term: str, boost: float = 1.0) -> tantivy.Query:
        """A scoring term query on a text field, recorded for global re-scoring.

        With a ``scale`` (per shard: global idf / local idf of the term) the query
        carries ``boost × scale``, so tantivy's order of candidates is already close
        to the global one; the recorded weight is ``boost`` alone.
        """
        self.leaves.append((field_name, term))
        self.weights.append(boost)
        query = tantivy.Query.term_query(self.schema, field_name, term)
        weight = boost * (self.scale(field_name, term) if self.scale is not None else 1.0)
        return query if weight == 1.0 else tantivy.Query.boost_query(query, weight)

    def scoring_query(self) -> tantivy.Query | None:
        """Every recorded leaf with its unscaled boost, as alternatives: what a hit's score is made of.

        ``None`` for a query without scoring leaves (filters only).
        """
        if not self.leaves:
            return None
        parts = []
        for (field_name, term), boost in zip(self.leaves, self.weights, strict=True):
            query = tantivy.Query.term_query(self.schema, field_name, term)
            parts.append((Occur.Should, query if boost == 1.0 else tantivy.Query.boost_query(query, boost)))
        return tantivy.Query.boolean_query(parts)

    @staticmethod
    def filter(query: tantivy.Query) -> tantivy.Query:
        """``query`` as a pure filter: it must match, and adds nothing to the score."""
        return tantivy.Query.const_score_query(query, 0.0)

    def phrase(self, field_name: str, terms: Sequence[str]) -> tantivy.Query:
        """An exact phrase on one text field (a filter), or a term query for one term."""
        if len(terms) == 1:
            return tantivy.Query.term_query(self.schema, field_name, terms[0])
        return tantivy.Query.phrase_query(self.schema, field_name, list(terms))

    def raw(self, field_name: str, value: str) -> tantivy.Query:
        """An exact-value filter on a raw field."""
        return self.filter(tantivy.Query.term_query(self.schema, field_name, value))

    def any_of(self, queries: Sequence[tantivy.Query]) -> tantivy.Query:
        """Matches when one of ``queries`` matches (their scores add up)."""
        if len(queries) == 1:
            return queries[0]
        return tantivy.Query.boolean_query([(Occur.Should, q) for q in queries])

    def all_of(self, queries: Sequence[tantivy.Query]) -> tantivy.Query:
        """Matches when every one of ``queries`` matches."""
        if len(queries) == 1:
            return queries[0]
        return tantivy.Query.boolean_query([(Occur.Must, q) for q in queries])


@dataclass(frozen=True)
class BuiltQuery:
    """A parsed query made ready for one index.

    ``query`` decides what matches and the order candidates come in; ``scoring``
    (the scoring leaves alone, unscaled) is what a hit's score is taken apart
    with; ``leaves`` are their (field, term); ``highlight`` the terms to highlight.
    """

    query: tantivy.Query
    scoring: tantivy.Query | None
    leaves: tuple[LeafKey, ...]
    highlight: tuple[str, ...]


class QueryBuilder:
    """The active QueryFilter plugins, by field; builds :class:`BuiltQuery` objects."""

    def __init__(self, settings: Settings, schema: tantivy.Schema, field_names: Iterable[str]) -> None:
        self.schema = schema
        self.field_names = frozenset(field_names)
        self.boosts = {name: settings.get_float(f"query.{name}.boost")
                       for name in ("url", "anchor", "title", "host", "content")}
        self.by_field: dict[str, QueryFilter] = {}
        for plugin in PluginRepository(settings).chain(QueryFilter):
            for name in plugin.fields:
                self.by_field.setdefault(name, plugin)

    @property
    def query_fields(self) -> frozenset[str]:
        """The ``field:`` prefixes some active plugin handles."""
        return frozenset(name for name in self.by_field if name)

    def build(self, query: Query, scale: Callable[[str, str], float] | None = None) -> BuiltQuery:
        """The engine query of ``query``; :class:`QuerySyntaxError` for a clause nothing can translate.

        ``scale(field, term)`` multiplies each scoring leaf's boost in the engine query (see
        :meth:`QueryContext.leaf`).
        """
        ctx = QueryContext(self.schema, self.field_names, self.boosts, scale)
        parts: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for clause in query.clauses:
            plugin = self.by_field.get(clause.field or "")
            if plugin is None:
                raise QuerySyntaxError(f"{clause.field}: is not a searchable field here")
            translated = plugin.translate(clause, ctx)
            if translated is None:
                continue
            parts.append((Occur.MustNot if clause.excluded else Occur.Must, translated))
        if not any(occur == Occur.Must for occur, _ in parts):
            raise QuerySyntaxError("a query needs at least one term that is not excluded")
        return BuiltQuery(tantivy.Query.boolean_query(parts), ctx.scoring_query(), tuple(ctx.leaves),
                          tuple(analyze(" ".join(query.positive_terms()))))


def clause_tokens(ctx: QueryContext, clause: Clause) -> list[str]:
    """The index tokens of a term or phrase clause."""
    return ctx.tokens(clause.tokens)
