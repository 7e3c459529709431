"""``scoring-opic``: Nutch's OPIC scoring filter (reference §7.4).

Injected pages keep their injected score; new link targets start at 0; each page
passes its score, divided by its number of outlinks, to its link targets
(× ``db.score.link.internal`` / ``db.score.link.external``); updatedb adds the
scores of a page's inlinks to its own; the index boost is score^``indexer.score.power``.
As in Nutch, the source page keeps its score (no cash is removed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gossamer.core import CrawlDatum, Inlink, LinkTargets, Settings
from gossamer.plugins.api import ParseResult
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.scorecarry import ScoreCarrier, carried_score
from gossamer.store import host_of


class OPICScoringFilter(ScoreCarrier):
    """Online Page Importance Computation, as Nutch implements it."""

    reads_inlink_sources = False

    def __init__(self, settings: Settings) -> None:
        self.score_power = settings.get_float("indexer.score.power")
        self.internal = settings.get_float("db.score.link.internal")
        self.external = settings.get_float("db.score.link.external")
        self.count_filtered = settings.get_bool("db.score.count.filtered")

    def initial_score(self, url: str, datum: CrawlDatum) -> None:
        """New link targets start with nothing."""
        datum.score = 0.0

    def initial_scores(self, targets: LinkTargets) -> None:
        """New link targets start with nothing (batch form)."""
        targets.set_scores(0.0)

    def generator_sort_value(self, url: str, datum: CrawlDatum, init_sort: float) -> float:
        """Score × init_sort."""
        return datum.score * init_sort

    def _shares(self, from_url: str, parse: ParseResult, urls: list[str], all_count: int) -> float | list[float] | None:
        """Each target's score: one value for all, one per target, or ``None`` (nothing to give)."""
        score = carried_score(parse)
        count = all_count if self.count_filtered else len(urls)
        if count <= 0:
            return None
        share = score / count
        if self.internal == self.external:  # Nutch's defaults (1.0 and 1.0): no host to compare
            return share * self.internal
        source_host = host_of(from_url)
        internal, external = share * self.internal, share * self.external
        return [internal if host_of(url) == source_host else external for url in urls]

    def distribute_score_to_outlinks(
        self, from_url: str, parse: ParseResult, targets: list[tuple[str, CrawlDatum]],
        adjust: CrawlDatum | None, all_count: int,
    ) -> CrawlDatum | None:
        """Give each target score / outlinks, weighted by internal or external factor."""
        shares = self._shares(from_url, parse, [url for url, _ in targets], all_count)
        if shares is None:
            return adjust
        values = [shares] * len(targets) if isinstance(shares, float) else shares
        for (_url, datum), value in zip(targets, values, strict=True):
            datum.score = value
        return adjust

    def distribute_score_to_targets(
        self, from_url: str, parse: ParseResult, targets: LinkTargets, adjust: CrawlDatum | None, all_count: int,
    ) -> CrawlDatum | None:
        """:meth:`distribute_score_to_outlinks` over the targets' columns."""
        shares = self._shares(from_url, parse, targets.target_urls(), all_count)
        if shares is not None:
            targets.set_scores(shares)
        return adjust

    def update_db_score(
        self, url: str, old: CrawlDatum | None, datum: CrawlDatum, inlinks: Sequence[CrawlDatum]
    ) -> None:
        """New score = previous score + the scores carried by this round's inlinks."""
        base = old if old is not None else datum
        datum.score = base.score + sum(link.score for link in inlinks)

    def indexer_score(
        self, url: str, doc: Mapping[str, Any], db: CrawlDatum, fetch: CrawlDatum | None,
        parse: ParseResult | None, inlinks: Sequence[Inlink], init_score: float,
    ) -> float:
        """Score ^ indexer.score.power × init_score."""
        return (max(db.score, 0.0) ** self.score_power) * init_score

    def indexer_scores(self, docs: list[dict[str, Any] | None], batch: IndexBatch, scores: list[float]) -> None:
        """Batch form of :meth:`indexer_score` (``batch.scores``: the crawldb datum's score, else the fetch's)."""
        power = self.score_power
        for i, (doc, score) in enumerate(zip(docs, batch.scores, strict=True)):
            if doc is not None:
                scores[i] = (max(score, 0.0) ** power) * scores[i]


PLUGIN = PluginInfo(
    id="scoring-opic",
    point="ScoringFilter",
    factory=OPICScoringFilter,
    description="OPIC link scoring (score passed along outlinks, summed in updatedb)",
    aliases=("org.apache.nutch.scoring.opic.OPICScoringFilter",),
)
