"""Hybrid semantic ranking: nearest-neighbour pages by embedding, fused with the text ranking.

With ``search.semantic=true`` the index stores one vector per page
(:mod:`gossamer.index.vectors`).  A query is embedded with the same model
(:func:`query_vector`); every backend returns, beside its text candidates, its
``k`` pages nearest to the query vector (:class:`SemanticIndex`: exact cosine
similarity, a matrix product over the shard's vectors — see docs/search.md for
the measured sizes), as :class:`~gossamer.search.backend.Candidate` s whose
score is the cosine.  The broker fuses the two rankings (:class:`Fusion`):

* ``rrf`` — weighted reciprocal rank: ``1 / (k + text_rank) + w / (k + semantic_rank)``
  (a missing part adds 0);
* ``linear`` — ``text_score / best_text_score + w × cosine``.

Cosine similarity (rounded to 6 decimals) and the global BM25 score do not depend on how the index is
split, and both rankings are cut at the same depth whatever the split, so the
fused ranking is the same on 1 shard, N shards and N search nodes.

Only *plain* queries get the semantic part: words and phrases on the default
fields, nothing excluded, no field clause (``site:``, ``type:``, ``date:`` …),
since the nearest pages are not filtered; any other query is ranked by text alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import tantivy

from gossamer.core import Query, Settings
from gossamer.index import Embedder, ann_rows, embedder, has_vectors, open_ann, read_vectors, set_expansion, shard_name
from gossamer.search.backend import Candidate, SearchPage

Key = tuple[int, int, int, int]
"""(backend, shard, segment, doc): one document of one backend."""


def query_vector(query: Query, model: Embedder) -> np.ndarray | None:
    """The query's embedding, or ``None`` when the query is not plain or embeds to nothing."""
    words = query.plain_tokens()
    if not words:
        return None
    vector = model.embed([" ".join(words)])[0]
    return vector if np.any(vector) else None


class SemanticIndex:
    """The page vectors of some shards of one index version, searched exactly."""

    def __init__(self, model: Embedder, numbers: Sequence[int], matrix: np.ndarray, shard_of_row: np.ndarray,
                 ids: list[str], graphs: Sequence[tuple[Any | None, int, int]] = ()) -> None:
        self.model = model
        self.graphs = tuple(graphs)
        """Per shard: (its nearest-neighbour graph or ``None``, its first row in ``matrix``, its rows)."""
        self.numbers = tuple(numbers)
        self.matrix = matrix
        self.shard_of_row = shard_of_row
        self.ids = ids
        self._rows: dict[str, int] | None = None

    @classmethod
    def open(cls, live: Path, numbers: Sequence[int], model_name: str) -> SemanticIndex | None:
        """The vectors of shards ``numbers`` of version ``live``; ``None`` when it has none (of that model)."""
        if not all(has_vectors(live / shard_name(number)) for number in numbers):
            return None
        model = embedder(model_name)
        parts, owners, ids, graphs = [], [], [], []
        for number in numbers:
            vectors = read_vectors(live / shard_name(number))
            if vectors is None or vectors.model != model.name:
                return None
            graphs.append((open_ann(live / shard_name(number), len(vectors.ids)), len(ids), len(vectors.ids)))
            parts.append(np.asarray(vectors.matrix, dtype=np.float32))
            owners.append(np.full(len(vectors.ids), number, dtype=np.int32))
            ids.extend(vectors.ids)
        if not parts:
            return None
        return cls(model, numbers, np.concatenate(parts), np.concatenate(owners), ids, graphs)

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[float, int, str]]:
        """The ``k`` pages most similar to ``vector``: (cosine, shard, url), best first (ties by url)."""
        if not len(self.ids) or k <= 0:
            return []
        rows = self._candidate_rows(vector, k)
        scores = self.matrix @ vector if rows is None else self.matrix[rows] @ vector
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        if rows is not None:
            scores, top = scores[top], rows[top]
            found = [(_rounded(s), int(self.shard_of_row[i]), self.ids[i]) for s, i in zip(scores, top, strict=True)]
        else:
            found = [(_rounded(scores[i]), int(self.shard_of_row[i]), self.ids[i]) for i in top]
        found.sort(key=lambda hit: (-hit[0], hit[2]))
        return found


    def _candidate_rows(self, vector: np.ndarray, k: int) -> np.ndarray | None:
        """Rows to score when some shard has a graph: its graph's ``k`` nearest, every row of the others.

        ``None`` when no shard has a graph (score every row).
        """
        if not any(graph is not None for graph, _, _ in self.graphs):
            return None
        parts = []
        for graph, first, count in self.graphs:
            if graph is None:
                parts.append(np.arange(first, first + count, dtype=np.int64))
                continue
            set_expansion(graph, k)
            parts.append(ann_rows(graph, vector, min(k, count)) + first)
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def similarity(self, vector: np.ndarray, url: str) -> float | None:
        """The cosine similarity of ``url``'s page to ``vector`` (``None`` when the page has no vector here)."""
        if self._rows is None:
            self._rows = {u: i for i, u in enumerate(self.ids)}
        row = self._rows.get(url)
        return None if row is None else _rounded(self.matrix[row] @ vector)


def _rounded(cosine: float) -> float:
    """A cosine rounded to 6 decimals.

    float32 products over differently split matrices may differ in the last bits, and the fused
    score must not depend on the split.
    """
    return round(float(cosine), 6)


def neighbour_candidates(nearest: list[tuple[float, int, str]], shards: dict[int, Any],
                         schema: tantivy.Schema) -> list[Candidate]:
    """Candidates for the nearest pages (found by ``id`` in their shard; pages no longer there are skipped)."""
    out: list[Candidate] = []
    for score, number, url in nearest:
        shard = shards[number]
        hits = shard.searcher.search(tantivy.Query.term_query(schema, "id", url), 1).hits
        if not hits:
            continue
        address = hits[0][1]
        site = shard.searcher.fast_field_values("site_hash", [address])[0]
        out.append(Candidate(score, number, address.segment_ord, address.doc, int(site or 0)))
    return out


@dataclass(frozen=True)
class Fusion:
    """How the broker fuses the text and semantic rankings (see the module docstring)."""

    method: str
    weight: float
    rrf_k: int
    candidates: int

    @classmethod
    def from_settings(cls, settings: Settings) -> Fusion | None:
        """The fusion of ``search.semantic*``, or ``None`` when the semantic part is off."""
        if not settings.get_bool("search.semantic"):
            return None
        return cls(settings.get_str("search.semantic.fusion"), settings.get_float("search.semantic.weight"),
                   settings.get_int("search.semantic.rrf.k"), settings.get_int("search.semantic.candidates"))

    def rankings(self, pages: dict[int, SearchPage]) -> tuple[list[tuple[Key, Candidate]], list[tuple[Key, Candidate]]]:
        """The text and the semantic ranking over every backend, each cut at ``candidates``."""
        def ranked(pick: str) -> list[tuple[Key, Candidate]]:
            tagged = [((i, c.shard, c.segment, c.doc), c) for i, page in pages.items() for c in getattr(page, pick)]
            tagged.sort(key=lambda item: (-item[1].score, item[0]))
            return tagged[:self.candidates]

        return ranked("candidates"), ranked("neighbours")

    def fuse(self, pages: dict[int, SearchPage]) -> list[tuple[int, Candidate, dict[str, Any]]]:
        """(backend, candidate with the fused score, its parts) of the fused ranking, best first."""
        text, semantic = self.rankings(pages)
        parts: dict[Key, dict[str, Any]] = {}
        best_text = text[0][1].score if text and text[0][1].score > 0 else 1.0
        for rank, (key, candidate) in enumerate(text, start=1):
            parts[key] = {"text_rank": rank, "text_score": candidate.score, "candidate": candidate}
        for rank, (key, candidate) in enumerate(semantic, start=1):
            entry = parts.setdefault(key, {"candidate": candidate})
            entry.update(semantic_rank=rank, similarity=candidate.score)
        fused = []
        for key, entry in parts.items():
            if self.method == "linear":
                score = entry.get("text_score", 0.0) / best_text + self.weight * entry.get("similarity", 0.0)
            else:
                score = (1.0 / (self.rrf_k + entry["text_rank"]) if "text_rank" in entry else 0.0) \
                    + (self.weight / (self.rrf_k + entry["semantic_rank"]) if "semantic_rank" in entry else 0.0)
            original: Candidate = entry.pop("candidate")
            entry["score"] = score
            fused.append((key, Candidate(score, original.shard, original.segment, original.doc, original.site),
                          entry))
        fused.sort(key=lambda item: (-item[1].score, item[0]))
        return [(key[0], candidate, entry) for key, candidate, entry in fused]

    def describe(self) -> str:
        """The formula, for ``--explain``."""
        if self.method == "linear":
            return f"text_score / best_text_score + {self.weight:g} × cosine"
        return f"1 / ({self.rrf_k} + text_rank) + {self.weight:g} / ({self.rrf_k} + semantic_rank)"


__all__ = ["Fusion", "SemanticIndex", "neighbour_candidates", "query_vector"]
