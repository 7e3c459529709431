"""From the query AST to a tantivy query, through the QueryFilter plugins.

Each clause goes to the plugin that registered its field (``""`` = the default
field); the plugin builds the clause's query with a :class:`QueryContext`.  The
context records every *scoring leaf* — a boosted term query on one text field —
so that the searcher can later recompute each hit's score with statistics of
the whole index (:mod:`gossamer.search.scoring`).  Everything else (phrases,
raw-field terms, date ranges) matches without scoring (``ctx.filter``).

Occurrence: a ``+`` clause must match, a ``-`` clause must not; filters
(``site:``, ``type:`` …), phrases and ``field:`` clauses always must match.  Bare
terms on the default field are *soft* (``query.soft``, on by default): the first
tier (``BuiltQuery.query``) requires every one of them, as Nutch does; with two or
more of them a second tier (``BuiltQuery.soft``) matches the pages that have at
least one but not all, and their score is multiplied by a coordination factor
(:func:`gossamer.search.scoring.coordination`) computed from each soft clause's
leaves (``BuiltQuery.groups``).  With ``query.soft=false`` every bare term is
required and there is no second tier.

Stemming: a term also scores in the stemmed shadow field of each field it is
searched in (``<field>_stem_<language>``, see :mod:`gossamer.index.analysis`),
with the field's boost × ``query.stem.boost``; the query word is stemmed by
each language of ``query.stem.languages``, in that language's shadow field.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import tantivy

from gossamer.core import Clause, Query, Settings, has_cjk
from gossamer.index import analyze, cjk_field, shadow_terms
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
    stem_boost: float = 0.0
    stem_languages: tuple[str, ...] = ()
    cjk_query: bool = False
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

    def term_leaves(self, field_name: str, term: str) -> list[tantivy.Query]:
        """Scoring leaves of one index token in one field: the exact term, and its stems in the shadow field.

        The field's boost (``query.<field>.boost``) applies; in a query with a CJK character a token also
        scores with it in the field's CJK shadow field (:meth:`cjk_shadow`).  The stemmed shadow field's leaves
        (``<field>_stem_<language>`` for each language of ``stem_languages`` the index
        has, see :func:`gossamer.index.analysis.shadow_terms`; only when ``stem_boost`` > 0)
        carry boost × ``stem_boost``.
        """
        boost = self.boosts.get(field_name, 1.0)
        found = [self.leaf(field_name, term, boost)]
        cjk = self.cjk_shadow(field_name)
        if cjk is not None:
            found.append(self.leaf(cjk, term, boost))
        if self.stem_boost > 0:
            found += [self.leaf(shadow, stem, boost * self.stem_boost)
                      for shadow, stem in shadow_terms(field_name, term, self.stem_languages, self.field_names)]
        return found

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
        """An exact phrase on one text field (a filter), or a term query for one term.

        In a query with a CJK character: in the field or in its CJK shadow field (:meth:`cjk_shadow`).
        """
        query = self._phrase(field_name, terms)
        shadow = self.cjk_shadow(field_name)
        return query if shadow is None else self.any_of([query, self._phrase(shadow, terms)])

    def cjk_shadow(self, field_name: str) -> str | None:
        """The CJK shadow field a word of ``field_name`` is also looked up in (:mod:`gossamer.index.cjk`), or None.

        Only in a query with a CJK character, only when the index has that field.
        """
        shadow = cjk_field(field_name)
        return shadow if self.cjk_query and shadow in self.field_names else None

    def _phrase(self, field_name: str, terms: Sequence[str]) -> tantivy.Query:
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
    ``soft`` is the second tier (pages matching some but not all soft clauses;
    ``None`` when there is none) and ``groups`` the leaves of each soft clause
    (empty unless ``soft`` is set).  ``words``: the leaves of each bare one-word
    term on the default field (``query.soft`` or not; what description matching,
    :mod:`gossamer.search.opening_match`, looks for).
    """

    query: tantivy.Query
    scoring: tantivy.Query | None
    leaves: tuple[LeafKey, ...]
    highlight: tuple[str, ...]
    soft: tantivy.Query | None = None
    groups: tuple[tuple[LeafKey, ...], ...] = ()
    words: tuple[tuple[LeafKey, ...], ...] = ()
    fixed: tuple[tuple[tantivy.Occur, tantivy.Query], ...] = ()
    soft_clauses: tuple[tantivy.Query, ...] = ()

    def soft_part(self, required: Sequence[int], excluded: Sequence[int]) -> tantivy.Query:
        """The part of the second tier whose pages match the soft clauses ``required`` and none of ``excluded``.

        With nothing ``excluded``, pages matching every soft clause are left out (they are the first
        tier's).  :func:`gossamer.search.scoring.soft_parts` chooses parts that split the second
        tier (``soft``) into disjoint queries, each with a tight bound on its pages' coordination.
        """
        clauses = self.soft_clauses
        parts = [*self.fixed, *((Occur.Must, clauses[i]) for i in required)]
        parts += [(Occur.MustNot, clauses[i]) for i in excluded]
        if not excluded:
            parts.append((Occur.MustNot, tantivy.Query.boolean_query([(Occur.Must, q) for q in clauses])))
        return tantivy.Query.boolean_query(parts)


class QueryBuilder:
    """The active QueryFilter plugins, by field; builds :class:`BuiltQuery` objects."""

    def __init__(self, settings: Settings, schema: tantivy.Schema, field_names: Iterable[str]) -> None:
        self.schema = schema
        self.field_names = frozenset(field_names)
        self.boosts = {name: settings.get_float(f"query.{name}.boost")
                       for name in ("url", "anchor", "title", "host", "content", "opening")}
        self.stem_boost = settings.get_float("query.stem.boost")
        self.stem_languages = tuple(code.lower() for code in settings.get_list("query.stem.languages"))
        self.soft = settings.get_bool("query.soft")
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
        ctx = QueryContext(self.schema, self.field_names, self.boosts, scale, self.stem_boost, self.stem_languages,
                           any(has_cjk(token) for clause in query.clauses for token in clause.tokens or ()))
        fixed: list[tuple[tantivy.Occur, tantivy.Query]] = []
        soft: list[tantivy.Query] = []
        groups: list[tuple[LeafKey, ...]] = []
        words: list[tuple[LeafKey, ...]] = []
        for clause in query.clauses:
            plugin = self.by_field.get(clause.field or "")
            if plugin is None:
                raise QuerySyntaxError(f"{clause.field}: is not a searchable field here")
            start = len(ctx.leaves)
            translated = plugin.translate(clause, ctx)
            if translated is None:
                continue
            if _is_soft(clause):
                words.append(tuple(ctx.leaves[start:]))
            if self.soft and _is_soft(clause):
                soft.append(translated)
                groups.append(tuple(ctx.leaves[start:]))
            else:
                fixed.append((Occur.MustNot if clause.excluded else Occur.Must, translated))
        all_of = [(Occur.Must, q) for q in soft]
        if not soft and not any(occur == Occur.Must for occur, _ in fixed):
            raise QuerySyntaxError("a query needs at least one term that is not excluded")
        second = None
        if len(soft) >= 2:
            some = tantivy.Query.boolean_query([(Occur.Should, q) for q in soft])
            second = tantivy.Query.boolean_query([*fixed, (Occur.Must, some),
                                                  (Occur.MustNot, tantivy.Query.boolean_query(all_of))])
        return BuiltQuery(tantivy.Query.boolean_query(fixed + all_of), ctx.scoring_query(), tuple(ctx.leaves),
                          tuple(analyze(" ".join(query.positive_terms()))), second,
                          tuple(groups) if second is not None else (), tuple(words),
                          tuple(fixed), tuple(soft) if second is not None else ())


class PreparedQueries:
    """The parsed and built (unscaled) forms of the last :data:`MEMO` query texts, for one builder.

    A search needs both three times (statistics, candidates, details); parsing and building were
    ~10 % of a query's CPU.  A reopened index gets a new builder, and so a new memo.
    """

    MEMO = 64

    def __init__(self, builder: QueryBuilder) -> None:
        self.builder = builder
        self.found: dict[str, tuple[Query, BuiltQuery]] = {}

    def get(self, text: str, parse: Callable[[], Query]) -> tuple[Query, BuiltQuery]:
        """``text`` parsed (by ``parse``, unless kept) and built."""
        found = self.found.get(text)
        if found is None:
            parsed = parse()
            found = (parsed, self.builder.build(parsed))
            if len(self.found) >= self.MEMO:
                self.found.clear()
            self.found[text] = found
        return found


def _is_soft(clause: Clause) -> bool:
    """A bare one-word term on the default field: required in the first tier only.

    A term the index splits into several words (``os.path.join``) stays required: it is
    searched as a phrase, whose engine score is not the sum of its words' leaves, so a page
    holding only some of its words would break the soft tier's bound on the exact score.
    """
    return (clause.kind == "term" and not clause.field and not clause.required and not clause.excluded
            and len(analyze(" ".join(clause.tokens))) == 1)


def clause_tokens(ctx: QueryContext, clause: Clause) -> list[str]:
    """The index tokens of a term or phrase clause."""
    return ctx.tokens(clause.tokens)
