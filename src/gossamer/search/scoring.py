"""Scores that do not depend on how the index is split: BM25 with whole-index statistics.

tantivy scores with the statistics of the one index it searches (documents,
document frequency of each term, average field length), so the same page would
score differently in a 1-shard and an 8-shard index.  Gossamer therefore uses
tantivy's own score only to *find* candidates, and gives every hit the score
it would have in one index holding all shards:

1. :class:`Stats` — documents, tokens per field and the document frequency of
   each query term — is summed over every shard (over every search node, in a
   first round trip: "DFS" in Elasticsearch's words);
2. a candidate's score is taken apart through tantivy's explanation: for each
   scoring leaf (a boosted term query on one field) the term frequency and the
   (quantized) field length of that document, which do not depend on the split;
3. :func:`exact_score` recomputes BM25 (k1 = 1.2, b = 0.75, tantivy's and
   Lucene's) for each leaf with the global statistics and sums them;
4. the static rank multiplies it: ``score = bm25 × log2(2 + boost)``, ``boost`` =
   the crawldb score ^ ``indexer.score.power`` (OPIC's 0.5), the same factor
   tantivy's ``weight_by_field`` applies while collecting candidates;
5. a hit of the soft second tier (some of the query's bare words missing, see
   :mod:`gossamer.search.query_build`) is multiplied by its *coordination factor*
   ``(Σ weight of matched words / Σ weight of all words) ^ power``, a word's weight
   being the largest global idf of its leaves: more matched words, and rarer
   ones, rank higher.  It uses global statistics only, so it too is the same on
   1 or N shards and nodes.

:func:`ratio_bound` bounds global/local score per shard, so a shard can stop
explaining candidates once no later one can reach the current top.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import orjson

K1, B = 1.2, 0.75
LeafKey = tuple[str, str]
_CONTEXT = re.compile(r'^Term=Term\(field=(\d+), type=Str, "(.*)"\)$', re.S)
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|.)", re.S)
_SIMPLE = {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}


@dataclass
class Stats:
    """Collection statistics, summable over shards and nodes (``a + b``)."""

    docs: int = 0
    tokens: dict[str, float] = field(default_factory=dict)
    df: dict[LeafKey, int] = field(default_factory=dict)

    def __add__(self, other: Stats) -> Stats:
        tokens = dict(self.tokens)
        for name, value in other.tokens.items():
            tokens[name] = tokens.get(name, 0.0) + value
        df = dict(self.df)
        for key, value in other.df.items():
            df[key] = df.get(key, 0) + value
        return Stats(self.docs + other.docs, tokens, df)

    def avgdl(self, field_name: str) -> float:
        """Average length of ``field_name`` (1.0 when unknown, so nothing divides by zero)."""
        total = self.tokens.get(field_name, 0.0)
        return total / self.docs if self.docs and total > 0 else 1.0

    def idf(self, key: LeafKey) -> float:
        """BM25 idf of a (field, term): ``ln(1 + (N - n + 0.5) / (n + 0.5))``."""
        n = self.df.get(key, 0)
        return math.log(1.0 + (self.docs - n + 0.5) / (n + 0.5))

    def to_json(self) -> dict[str, Any]:
        """A JSON-able form (search nodes send it to the broker)."""
        return {"docs": self.docs, "tokens": self.tokens,
                "df": [[f, t, n] for (f, t), n in self.df.items()]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Stats:
        """Inverse of :meth:`to_json`."""
        return cls(int(data["docs"]), {str(k): float(v) for k, v in data["tokens"].items()},
                   {(str(f), str(t)): int(n) for f, t, n in data["df"]})


@dataclass(frozen=True)
class Leaf:
    """One scoring leaf of one hit: multiplier (boosts), field, term, term frequency, field length."""

    weight: float
    field: str
    term: str
    freq: float
    length: float


def rust_unescape(text: str) -> str:
    """Undo Rust's ``{:?}`` string escaping (how tantivy's explanation prints terms)."""
    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        return _SIMPLE.get(code, code)
    return _ESCAPE.sub(replace, text)


def leaves_of(explanation: str | dict[str, Any], field_names: Sequence[str]) -> list[Leaf]:
    """The scoring leaves in a tantivy explanation (JSON text or parsed)."""
    node = orjson.loads(explanation) if isinstance(explanation, str) else explanation
    found: list[Leaf] = []
    _walk(node, 1.0, field_names, found)
    return found


def _walk(node: dict[str, Any], weight: float, names: Sequence[str], found: list[Leaf]) -> None:
    description: str = node.get("description", "")
    if description.startswith("Boost x"):
        weight *= float(description[7:].split(" ", 1)[0])
    elif description.startswith("TermQuery") and node.get("context"):
        match = _CONTEXT.match(node["context"][0])
        if match is not None:
            freq = length = 0.0
            for part in node.get("details", ()):
                for detail in part.get("details", ()):
                    text = detail.get("description", "")
                    if text.startswith("freq,"):
                        freq = float(detail["value"])
                    elif text.startswith("dl,"):
                        length = float(detail["value"])
            index = int(match.group(1))
            name = names[index] if index < len(names) else str(index)
            found.append(Leaf(weight, name, rust_unescape(match.group(2)), freq, length))
        return
    elif description.startswith(("Const", "Phrase")):
        return
    for child in node.get("details", ()):
        _walk(child, weight, names, found)


def leaf_score(leaf: Leaf, stats: Stats) -> float:
    """BM25 of one leaf with ``stats`` (boost included)."""
    key = (leaf.field, leaf.term)
    tf = leaf.freq
    norm = tf + K1 * (1.0 - B + B * leaf.length / stats.avgdl(leaf.field))
    return leaf.weight * (K1 + 1.0) * stats.idf(key) * (tf / norm if norm > 0 else 0.0)


def _group_weights(groups: Sequence[Sequence[LeafKey]], stats: Stats) -> list[float]:
    """Each soft clause's weight: the largest global idf of its leaves (a small floor keeps it positive)."""
    return [max((stats.idf(key) for key in group), default=0.0) + 1e-6 for group in groups]


def coordination(leaves: Iterable[Leaf], groups: Sequence[Sequence[LeafKey]], stats: Stats,
                 power: float) -> tuple[float, list[bool]]:
    """The coordination factor of a hit with scoring ``leaves``, and which soft clauses it matched.

    1.0 when there are no groups or every group has a matching leaf.
    """
    if not groups:
        return 1.0, []
    hit = {(leaf.field, leaf.term) for leaf in leaves if leaf.freq > 0}
    matched = [any(key in hit for key in group) for group in groups]
    if all(matched):
        return 1.0, matched
    weights = _group_weights(groups, stats)
    share = sum(w for w, m in zip(weights, matched, strict=True) if m) / sum(weights)
    return share ** power, matched


def max_partial_coordination(groups: Sequence[Sequence[LeafKey]], stats: Stats, power: float) -> float:
    """The largest coordination factor a hit missing at least one soft clause can have (1.0 without groups)."""
    if not groups:
        return 1.0
    weights = _group_weights(groups, stats)
    return ((sum(weights) - min(weights)) / sum(weights)) ** power


EXACT_PARTS = 4
"""Up to this many soft clauses, the second tier is searched in one part per matched subset."""


def soft_parts(groups: Sequence[Sequence[LeafKey]], stats: Stats,
               power: float) -> list[tuple[tuple[int, ...], tuple[int, ...], float]]:
    """The second tier's parts: (soft clauses required, excluded, the largest coordination of its pages).

    The parts are disjoint and together the second tier; best bound first.  Up to
    :data:`EXACT_PARTS` clauses: one part per proper, non-empty subset of the clauses that a page
    matches exactly (its factor is the part's bound).  More clauses: heaviest (rarest) first, part
    ``j`` holds the pages that match clause ``j`` and none of the heavier ones (the first: not
    every clause), bounded by (the weight of clause ``j`` and the lighter ones / all) ^ ``power``.
    Empty without groups.
    """
    if not groups:
        return []
    weights = _group_weights(groups, stats)
    total = sum(weights)
    every = range(len(weights))
    if len(weights) <= EXACT_PARTS:
        subsets = [s for n in range(1, len(weights)) for s in combinations(every, n)]
        parts = [(s, tuple(i for i in every if i not in s), (sum(weights[i] for i in s) / total) ** power)
                 for s in subsets]
        return sorted(parts, key=lambda part: -part[2])
    order = sorted(every, key=lambda i: -weights[i])
    first = ((order[0],), (), max_partial_coordination(groups, stats, power))
    return [first, *(((i,), tuple(order[:pos]), (sum(weights[j] for j in order[pos:]) / total) ** power)
                     for pos, i in enumerate(order) if pos)]


def static_factor(boost: float) -> float:
    """The static-rank multiplier: ``log2(2 + boost)`` (1 for boost 0)."""
    return math.log2(2.0 + max(boost, 0.0))


def exact_score(leaves: Iterable[Leaf], stats: Stats, boost: float, coord: float = 1.0) -> float:
    """A hit's score with whole-index statistics (see the module docstring), times ``coord``.

    A hit without scoring leaves (a query of filters only, such as ``site:x``)
    scores its static rank alone.
    """
    scores = [leaf_score(leaf, stats) for leaf in leaves]
    return (sum(scores) if scores else 1.0) * static_factor(boost) * coord


def ratio_bound(local: Stats, global_: Stats, keys: Iterable[LeafKey], scaled: bool = True) -> float:
    """An upper bound of (global score / local score) for any hit of a shard with statistics ``local``.

    Per leaf, the global/local ratio of BM25's length normalization
    ``tf / (tf + k1 (1 - b + b dl / avgdl))`` grows with ``dl`` towards
    ``avgdl_global / avgdl_local``, so it is at most ``max(1, that)``; unless the
    engine query was ``scaled`` by global/local idf already, the idf ratio
    multiplies it.  A sum of positive leaves is bounded by its largest ratio.  A
    small slack covers tantivy's float32 arithmetic.
    """
    bound = 1.0
    for key in keys:
        if local.df.get(key, 0) <= 0:
            continue
        length = max(1.0, global_.avgdl(key[0]) / local.avgdl(key[0]))
        if scaled:
            bound = max(bound, length)
            continue
        idf_local = local.idf(key)
        if idf_local <= 0:
            return math.inf
        bound = max(bound, global_.idf(key) / idf_local * length)
    return bound * (1 + 1e-5)


def idf_scale(local: Stats, global_: Stats) -> Callable[[str, str], float]:
    """Per (field, term): global idf / local idf — the boost that gives a shard's engine query global idf."""
    def scale(field_name: str, term: str) -> float:
        key = (field_name, term)
        idf_local = local.idf(key)
        return global_.idf(key) / idf_local if local.df.get(key, 0) > 0 and idf_local > 0 else 1.0
    return scale


def explain(leaves: Sequence[Leaf], stats: Stats, boost: float,
            coord: tuple[float, list[bool]] = (1.0, []), name: float = 1.0, opening: float = 1.0) -> dict[str, Any]:
    """The score of one hit, taken apart: leaves (BM25 inputs, value), static, coordination, name, opening factors.

    ``coord`` is :func:`coordination`'s answer: the factor and the soft clauses matched; ``name``
    the name-match factor (:mod:`gossamer.search.name_match`), ``opening`` the description-match
    factor (:mod:`gossamer.search.opening_match`).
    """
    parts = []
    for leaf in leaves:
        key = (leaf.field, leaf.term)
        parts.append({"field": leaf.field, "term": leaf.term, "boost": leaf.weight, "freq": leaf.freq,
                      "length": leaf.length, "avg_length": stats.avgdl(leaf.field), "docs": stats.docs,
                      "doc_freq": stats.df.get(key, 0), "idf": stats.idf(key), "value": leaf_score(leaf, stats)})
    text = sum(p["value"] for p in parts) if parts else 1.0
    return {"score": text * static_factor(boost) * coord[0] * name * opening, "text_score": text, "boost": boost,
            "static_factor": static_factor(boost), "coordination": coord[0], "soft_matched": coord[1],
            "name_factor": name, "opening_factor": opening, "leaves": parts,
            "formula": "sum(boost × (k1+1) × idf × freq / (freq + k1 × (1 - b + b × length / avg_length)))"
                       f" × log2(2 + boost) × coordination × name × opening; k1={K1}, b={B}"}


EXPLAINED_FACTORS = (("name_factor", "name"), ("opening_factor", "description"), ("coordination", "coordination"))
"""The multipliers of an explanation (:func:`explain`) besides the static rank, and how they are named."""


def explained_factors(detail: dict[str, Any]) -> list[tuple[str, float]]:
    """The name, description and coordination factors of an explanation that change its score (≠ 1), in order.

    A coordination below 1 is labelled with how many of the query's bare words the page has.  ``--explain``
    and the web's explain page print them after the static factor, so the printed parts multiply to the score.
    """
    out: list[tuple[str, float]] = []
    for key, label in EXPLAINED_FACTORS:
        value = detail.get(key, 1.0)
        if isinstance(value, int | float) and value != 1.0:
            matched = detail.get("soft_matched") or []
            if key == "coordination" and matched:
                label = f"coordination ({sum(map(bool, matched))} of {len(matched)} words)"
            out.append((label, float(value)))
    return out
