"""A set of index shards opened in this process: the search backend every searcher is built on.

:class:`ShardSet` answers the three calls of the search protocol (see
:mod:`gossamer.search.backend`): ``stats`` (collection statistics for a query,
summed over its shards), ``search`` (each shard's best candidates, scored with
the global statistics the caller passes, at most ``per_site`` per site) and
``details`` (title, URL, snippet … of chosen candidates).  A search node serves
one ShardSet over HTTP; a local searcher uses one directly.

It reopens the index when a new version has been installed (checked at most
once a second), and keeps serving the version it has when the index directory
is briefly missing its ``current`` (an install in progress).

An index on another filesystem (a :class:`~gossamer.store.location.Location`:
``s3://``, ``hdfs://`` …) is searched through a local copy of its live version
(:mod:`gossamer.index.cache`): the version ``CURRENT`` names is downloaded into
the cache (unless a verified copy is there) and opened; every
``index.remote.check.seconds`` the pointer is read again, and a newer version is
downloaded and switched to (the old one keeps answering meanwhile) and the
copies no longer used are deleted from the cache.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tantivy

from gossamer.core import Query, Settings
from gossamer.index import (
    IndexCache,
    IndexDescription,
    engine_stats,
    live_index,
    local_live_version,
    open_shard,
    shard_name,
)
from gossamer.search.backend import Candidate, HitDetails, SearchPage, group_by_site, refill
from gossamer.search.details import hit_details
from gossamer.search.name_match import name_factor, name_match
from gossamer.search.opening_match import OpeningRule
from gossamer.search.query_build import BuiltQuery, PreparedQueries, QueryBuilder
from gossamer.search.query_parse import parse_query
from gossamer.search.scoring import (
    Stats,
    coordination,
    explain,
    idf_scale,
    leaves_of,
    ratio_bound,
)
from gossamer.search.semantic import SemanticIndex, neighbour_candidates, query_vector
from gossamer.search.shard_search import Shard, TierScorer, plan_tiers, search_shard
from gossamer.store import Place, TableError, as_place

LOG = logging.getLogger(__name__)

TEXT_KINDS = ("text",)
RELOAD_CHECK_SECONDS = 1.0
MAX_ROUNDS = 4
"""Rounds of asking shards for more after the per-site merge (see :func:`~gossamer.search.backend.refill`)."""


class ShardSet:
    """Some (default: all) shards of a crawl's index, opened for searching."""

    def __init__(self, index_dir: Place | str, settings: Settings, shards: Sequence[int] | None = None,
                 crawl_dir: Path | None = None) -> None:
        self.index_dir = as_place(index_dir, settings)
        self.crawl_dir = crawl_dir if crawl_dir is not None else self.index_dir.parent
        self.settings = settings
        self.wanted = tuple(shards) if shards is not None else None
        self.cache = None if self.index_dir.is_local else IndexCache(self.index_dir, settings)
        self._check_seconds = settings.get_float("index.remote.check.seconds") if self.cache else RELOAD_CHECK_SECONDS
        self._lock = threading.Lock()
        self._checked = 0.0
        self._version: tuple[str, int] | None = None
        self._key = ""
        self._open()

    def _live(self) -> Path | None:
        """The local directory of the live version (for a remote index: its cached copy, fetched if needed)."""
        found = local_live_version(self.index_dir, self.cache)
        if found is None:
            return None
        live, self._key, _ = found
        return live

    def _open(self) -> None:
        live = self._live()
        if live is None:
            raise TableError(f"no index at {self.index_dir.display()} (run `gossamer index` or `crawl --index`)")
        description = IndexDescription.read(live)
        numbers = self.wanted if self.wanted is not None else tuple(range(description.shards))
        bad = [n for n in numbers if not 0 <= n < description.shards]
        if bad:
            raise TableError(f"{self.index_dir}: no shard {bad[0]} (the index has {description.shards})")
        self.description = description
        self.field_names = tuple(f.name for f in description.fields)
        text_fields = [f.name for f in description.fields if f.kind in TEXT_KINDS]
        shards = []
        for number in numbers:
            index = open_shard(live / shard_name(number))
            searcher = index.searcher()
            engine = engine_stats(index, searcher, text_fields)
            ballast = description.ballast_of(number)
            shards.append(Shard(number, index, searcher, engine, engine.minus(ballast), bool(ballast)))
        self.shards = shards
        self.schema = shards[0].index.schema if shards else None
        self.builder = QueryBuilder(self.settings, self.schema, self.field_names) if self.schema else None
        self._prepared_memo = PreparedQueries(self.builder) if self.builder else None
        self._semantic: SemanticIndex | None = None
        self._semantic_source: tuple[Path, tuple[int, ...]] | None = (live, tuple(numbers))
        self.generation = f"{live.stat().st_ino}-{description.created}"
        self._version = (str(live), description.created)
        if self.cache is not None:
            self.cache.prune({self._key})

    @property
    def semantic(self) -> SemanticIndex | None:
        """The page vectors of these shards, loaded on first use (``None``: the index has none)."""
        source = self._semantic_source
        if source is not None:
            with self._lock:
                if self._semantic_source is not None:
                    self._semantic = SemanticIndex.open(*source, self.settings.get_str("search.semantic.model"))
                    self._semantic_source = None
        return self._semantic

    def refresh(self) -> None:
        """Reopen the index if a newer version was installed (cheap).

        Checked at most once a second, or once every ``index.remote.check.seconds`` for a remote index.
        """
        now = time.monotonic()
        if now - self._checked < self._check_seconds:
            return
        self._checked = now
        if self.cache is not None:
            self._refresh_remote()
            return
        live = live_index(self.index_dir)
        if live is None:
            return
        try:
            created = IndexDescription.read(live).created
        except TableError:
            return
        if self._version != (str(live), created) or f"{live.stat().st_ino}-{created}" != self.generation:
            with self._lock:
                self._open()

    def _refresh_remote(self) -> None:
        """Switch to the remote index's live version when it is not the one open; keep serving on failure."""
        assert self.cache is not None
        try:
            live = self.cache.live()
            if live is None or live[1] == self._key:
                return
            with self._lock:
                self._open()
        except (TableError, OSError) as exc:
            LOG.warning("%s: keeping index version %s (%s)", self.index_dir.display(), self._key, exc)

    def _prepared(self, text: str) -> tuple[Query, BuiltQuery]:
        """The parsed and built query (kept for the last few texts: a search needs them three times)."""
        memo = self._prepared_memo
        assert memo is not None
        return memo.get(text, lambda: parse_query(text, fields=memo.builder.query_fields | {"date"}))

    def _build(self, text: str) -> BuiltQuery:
        return self._prepared(text)[1]

    def stats(self, text: str) -> Stats:
        """Statistics of the query's terms summed over these shards."""
        self.refresh()
        built = self._build(text)
        total = Stats()
        for shard in self.shards:
            total = total + self._shard_stats(shard, built)
        return total

    @staticmethod
    def _shard_stats(shard: Shard, built: BuiltQuery, engine: bool = False) -> Stats:
        """The shard's statistics for the query's terms.

        Real ones (summed into global statistics), or tantivy's own (``engine``:
        what its local scores are made of).
        """
        df = {key: shard.searcher.doc_freq(key[0], key[1]) for key in dict.fromkeys(built.leaves)}
        base = shard.engine if engine else shard.real
        return Stats(base.docs, dict(base.tokens), df)

    def search(self, text: str, want: int, per_site: int, stats: Stats, semantic: int = 0) -> SearchPage:
        """The best ``want`` candidates of these shards (≤ ``per_site`` per site; 0 = no limit), by global score.

        With ``semantic > 0`` and page vectors in the index, the page also carries
        the ``semantic`` pages nearest to the query (:mod:`gossamer.search.semantic`).

        Each shard searches with its own engine query — leaf boosts scaled to the
        global idf — first the all-words tier, then the soft second tier (if the
        query has one), and the shards' lists are merged like the broker merges
        backends (asking a shard again when the per-site merge emptied its list).
        """
        assert self.builder is not None
        parsed, built = self._prepared(text)
        page = SearchPage(generation=self.generation)
        opening = OpeningRule.from_settings(self.settings)
        scorer = TierScorer(built, stats, self.settings.get_float("query.coord.power"), opening)
        named = name_match(parsed, text, self.settings, self.builder.field_names)
        plans = {}
        for shard in self.shards:
            local = self._shard_stats(shard, built, engine=True)
            scaled = self.builder.build(parsed, idf_scale(local, stats))
            tiers = plan_tiers(shard, scaled, ratio_bound(local, stats, built.leaves), scorer, named,
                               self.schema, self.field_names)
            plans[shard.number] = (shard, tiers)
        wants = dict.fromkeys(plans, want)
        lists: dict[int, list[Candidate]] = {}
        totals: dict[int, int] = {}
        for _ in range(MAX_ROUNDS):
            for number, (shard, tiers) in plans.items():
                if number not in lists or wants[number] > len(lists[number]):
                    lists[number], totals[number] = search_shard(shard, tiers, scorer, wants[number], per_site,
                                                                 self.schema, self.field_names)
            merged = group_by_site([c for found in lists.values() for c in found], per_site)
            more = refill(lists, merged, want, per_site)
            if not more:
                break
            for number, extra in more.items():
                wants[number] += extra
        page.candidates = merged[:want]
        page.total = sum(totals.values())
        if semantic > 0:
            page.neighbours = self._neighbours(parsed, semantic)
        return page

    def _neighbours(self, parsed: Query, k: int) -> list[Candidate]:
        """The ``k`` pages nearest to a plain query's embedding ([] without vectors or for other queries)."""
        vector = query_vector(parsed, self.semantic.model) if self.semantic is not None else None
        if vector is None or self.semantic is None:
            return []
        return neighbour_candidates(self.semantic.nearest(vector, k), {s.number: s for s in self.shards},
                                    self.schema)

    def details(self, candidates: Sequence[Candidate], text: str) -> list[HitDetails]:
        """Stored fields and a highlighted snippet of each candidate (same order)."""
        built = self._build(text)
        by_number = {shard.number: shard for shard in self.shards}
        found: dict[int, HitDetails] = {}
        groups: dict[int, list[int]] = {}
        for i, candidate in enumerate(candidates):
            groups.setdefault(candidate.shard, []).append(i)
        for number, positions in groups.items():
            shard = by_number.get(number)
            if shard is None:
                raise TableError(f"shard {number} is not served here")
            for i, details in zip(positions, hit_details(shard, [candidates[i] for i in positions], built,
                                                         self.settings), strict=True):
                found[i] = details
        return [found[i] for i in range(len(candidates))]

    def explain(self, url: str, text: str, stats: Stats) -> dict[str, Any] | None:
        """The score explanation of ``url``'s document for the query, or ``None`` when it is not here.

        ``matches`` tells whether the document is a hit of the query (either tier).
        """
        assert self.schema is not None
        parsed, built = self._prepared(text)
        for shard in self.shards:
            by_id = tantivy.Query.term_query(self.schema, "id", url)
            hits = shard.searcher.search(by_id, 1).hits
            if not hits:
                continue
            address = hits[0][1]
            tiers = [built.query] + ([built.soft] if built.soft is not None else [])
            matched = any(shard.searcher.search(tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, tier), (tantivy.Occur.Must, by_id)]), 1, count=True).count for tier in tiers)
            boost = float(shard.searcher.fast_field_values("boost", [address])[0] or 0.0)
            leaves = leaves_of(built.scoring.explain(shard.searcher, address).to_json(), self.field_names) \
                if matched and built.scoring is not None else []
            power = self.settings.get_float("query.coord.power")
            named = name_match(parsed, text, self.settings, self.builder.field_names) \
                if matched and self.builder is not None else None
            factor = name_factor(shard.searcher, self.schema, named, by_id)
            opening = OpeningRule.from_settings(self.settings)
            result = explain(leaves, stats, boost, coordination(leaves, built.groups, stats, power), factor,
                             opening.opening_factor(leaves, built.words))
            result["matches"] = bool(matched)
            vector = query_vector(parsed, self.semantic.model) if self.semantic is not None else None
            if vector is not None and self.semantic is not None:
                result["similarity"] = self.semantic.similarity(vector, url)
            return result
        return None
