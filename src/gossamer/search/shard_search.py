"""One shard's part of a search: candidates in tantivy's order, explained until no later one can enter the top.

:func:`search_shard` runs each tier of a query (:func:`plan_tiers`: name matches,
description matches, the all-words tier, then the soft second tier when there is one, in parts)
over one :class:`Shard`, scoring every candidate exactly with :class:`TierScorer`
(global BM25 × static rank × the second tier's coordination factor × name and
description factors) and stopping once tantivy's bound says no later candidate can
beat the current top ``want`` (per site at most ``per_site``).  Used by
:class:`~gossamer.search.shards.ShardSet`.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass

import tantivy

from gossamer.index import BALLAST_ID, EngineStats
from gossamer.search.backend import Candidate, group_by_site
from gossamer.search.name_match import NAME_FIELD, NameMatch, with_name
from gossamer.search.opening_match import OpeningRule, covering
from gossamer.search.query_build import BuiltQuery
from gossamer.search.scoring import Stats, coordination, exact_score, leaves_of, soft_parts


@dataclass
class Shard:
    """One open shard: number, tantivy index and searcher, and statistics.

    ``engine``: as tantivy counts them (ballast included); ``real``: without ballast.
    """

    number: int
    index: tantivy.Index
    searcher: tantivy.Searcher
    engine: EngineStats
    real: EngineStats
    has_ballast: bool


TIE = 1 + 2e-5
"""A candidate whose ceiling is within this factor of a score it would have to beat can at most tie it.

The bound carries a slack of 1e-5 for tantivy's float32 arithmetic, so a page whose exact score
*equals* the current floor (the thousands of rustdoc pages sharing one summary, say) would
otherwise always look able to beat it, and every one of them would be explained: 257 candidates
and 90 ms for ``x86_64 rust`` instead of 3.  Which of exactly tied pages are returned was already
a matter of candidate order; the scores of the top never change."""


@dataclass(frozen=True)
class Tier:
    """One tier of a shard's search: the engine query, its bound, whether it is the soft tier, and its factor.

    tantivy orders the tier's candidates by their scaled local score; a candidate's exact
    score is at most ``bound`` × that (``bound`` includes ``factor``, the description-match
    factor where a page of the tier can have it and, for the soft tier, the largest partial
    coordination factor).  ``factor`` multiplies every exact score of the tier (a name match,
    :mod:`gossamer.search.name_match`); ``counted``: whether the tier's hits are counted in the
    total (the all-words and soft tiers; the name and description tiers are subsets of the first).
    """

    query: tantivy.Query
    bound: float
    soft: bool = False
    factor: float = 1.0
    counted: bool = True
    whole: tantivy.Query | None = None
    """For a part of the second tier: the whole tier (searched once, for its count and best local score)."""


def _descending(candidate: Candidate) -> float:
    """A site's candidates are kept best first (equal scores in the order they were explained)."""
    return -candidate.score


def _best(by_site: dict[int, list[Candidate]], per_site: int, want: int) -> list[Candidate]:
    """The best ``want`` candidates, at most ``per_site`` of a site (each site's list sorted best first)."""
    pool = [c for same in by_site.values() for c in (same[:per_site] if per_site else same)]
    return group_by_site(pool, per_site, want)


class TierScorer:
    """A hit's exact score for one query.

    Global BM25 × static rank × (second tier) coordination × the
    tier's name factor × the description-match factor (:mod:`gossamer.search.opening_match`).
    """

    def __init__(self, built: BuiltQuery, stats: Stats, power: float, opening: OpeningRule | None = None) -> None:
        self.built = built
        self.stats = stats
        self.power = power
        self.opening = opening if opening is not None else OpeningRule(1.0)
        self.soft_parts = soft_parts(built.groups, stats, power)

    def score(self, searcher: tantivy.Searcher, address: tantivy.DocAddress, boost: float, tier: Tier,
              field_names: Sequence[str]) -> float:
        """The exact score of the document at ``address``, found by ``tier``."""
        scoring = self.built.scoring
        leaves = leaves_of(scoring.explain(searcher, address).to_json(), field_names) if scoring is not None else []
        coord = coordination(leaves, self.built.groups, self.stats, self.power)[0] if tier.soft else 1.0
        factor = tier.factor * self.opening.opening_factor(leaves, self.built.words)
        return exact_score(leaves, self.stats, boost, coord) * factor


def plan_tiers(shard: Shard, scaled: BuiltQuery, bound: float, scorer: TierScorer, named: NameMatch | None,
               schema: tantivy.Schema, field_names: Sequence[str]) -> list[Tier]:
    """The tiers of one shard's search, in order: name matches, description matches, all words, soft.

    ``scaled`` is the query built for this shard (leaf boosts scaled to global idf), ``bound`` its
    :func:`~gossamer.search.scoring.ratio_bound`.  A name tier exists only where the shard has a page of
    that name (most queries name none); a page of a name tier may also match the description, so its
    bound includes both factors.
    """
    opening = scorer.opening
    covers = opening.applies(scorer.built.words)
    also = opening.factor if covers else 1.0
    tiers = [Tier(with_name(schema, scaled.query, key), bound * factor * also, factor=factor, counted=False)
             for key, factor in (named.keys() if named is not None else ())
             if shard.searcher.doc_freq(NAME_FIELD, key) > 0]
    described = covering(schema, scaled.query, scorer.built.words, field_names) if covers else None
    if described is not None:
        tiers.append(Tier(described, bound * opening.factor, counted=False))
    tiers.append(Tier(scaled.query, bound))
    if scaled.soft is not None:
        tiers += [Tier(scaled.soft_part(required, excluded), bound * coord, soft=True, counted=False,
                       whole=scaled.soft) for required, excluded, coord in scorer.soft_parts]
    return tiers


def search_shard(shard: Shard, tiers: Sequence[Tier], scorer: TierScorer,
                 want: int, per_site: int, schema: tantivy.Schema,
                 field_names: Sequence[str]) -> tuple[list[Candidate], int]:
    """Explain candidates of each tier in tantivy's order until none left can enter the top ``want``.

    Tiers (:class:`Tier`) run in order; a document explained by an earlier tier is
    skipped by later ones.  A site is *closed* within a tier once it has ``per_site`` exact scores no
    later candidate of it can beat: its further documents are skipped without
    explaining and, when the candidate list runs out, excluded from the next,
    longer search (Nutch's ``-site:`` re-query).  The total counts the hits of
    every tier.  The second tier's parts share one search of the whole tier (its count, and its best
    local score: a part none of whose pages can enter the top is not searched).
    """
    by_site: dict[int, list[Candidate]] = {}
    seen: set[tuple[int, int]] = set()
    total = 0
    whole_top: float | None = None
    for tier in tiers:
        if tier.whole is not None:
            if whole_top is None:
                whole_top, counted = _top_and_count(shard, tier.whole, schema)
                total += counted
            best = _best(by_site, per_site, want)
            if len(best) >= want and whole_top * tier.bound / TIE <= best[-1].score:
                continue
        counted = _search_tier(shard, tier, scorer, want, per_site, by_site, seen, schema, field_names)
        total += counted if tier.counted else 0
    return _best(by_site, per_site, want), total


def _without_ballast(shard: Shard, query: tantivy.Query, schema: tantivy.Schema,
                     excluded: list[tantivy.Query]) -> tantivy.Query:
    """``query`` without the documents of ``excluded`` nor the shard's ballast document."""
    if shard.has_ballast:
        excluded = [*excluded, tantivy.Query.term_query(schema, "id", BALLAST_ID)]
    if not excluded:
        return query
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, query)] + [(tantivy.Occur.MustNot, q) for q in excluded])


def _top_and_count(shard: Shard, query: tantivy.Query, schema: tantivy.Schema) -> tuple[float, int]:
    """The best local (scaled, boost-weighted) score of ``query``'s hits in the shard, and their number."""
    result = shard.searcher.search(_without_ballast(shard, query, schema, []), 1, count=True,
                                   weight_by_field="boost")
    return (result.hits[0][0] if result.hits else 0.0), result.count or 0


def _search_tier(shard: Shard, tier: Tier, scorer: TierScorer, want: int, per_site: int,
                 by_site: dict[int, list[Candidate]], seen: set[tuple[int, int]], schema: tantivy.Schema,
                 field_names: Sequence[str]) -> int:
    """One tier of :func:`search_shard`: adds to ``by_site`` and ``seen``; returns the tier's hit count."""
    query, bound = tier.query, tier.bound
    limit = max(2 * want, 20)
    closed: set[int] = set()
    total = 0
    while True:
        excluded = [tantivy.Query.term_set_query(schema, "site_hash", sorted(closed))] if closed else []
        current = _without_ballast(shard, query, schema, excluded)
        result = shard.searcher.search(current, limit, count=tier.counted and not total, weight_by_field="boost")
        total = total or result.count or 0
        hits = result.hits
        addresses = [address for _, address in hits]
        sites = shard.searcher.fast_field_values("site_hash", addresses) if hits else []
        boosts = shard.searcher.fast_field_values("boost", addresses) if hits else []
        best = _best(by_site, per_site, want)
        floor = best[-1].score if len(best) >= want else -1.0
        for i, (local, address) in enumerate(hits):
            ceiling = local * bound / TIE
            if ceiling <= floor:
                return total
            key = (address.segment_ord, address.doc)
            site = int(sites[i] or 0)
            same = by_site.get(site, [])
            if key in seen or site in closed:
                continue
            if per_site and len(same) >= per_site and ceiling <= same[per_site - 1].score:
                closed.add(site)
                continue
            seen.add(key)
            score = scorer.score(shard.searcher, address, float(boosts[i] or 0.0), tier, field_names)
            insort(same, Candidate(score, shard.number, address.segment_ord, address.doc, site), key=_descending)
            by_site[site] = same
            best = _best(by_site, per_site, want)
            if len(best) >= want:
                floor = best[-1].score
        if len(hits) < limit:
            return total
        limit *= 4

