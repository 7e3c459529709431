"""``scoring-link``: Nutch's LinkAnalysisScoringFilter, the crawl side of LinkRank (reference §7.5).

The ``linkrank`` and ``scoreupdater`` jobs compute the link-analysis score and write it
into the crawldb ``score``; this filter only keeps that score where the crawl needs it:

* injected pages keep their injected score (``db.score.injected``); new link targets
  start at 0 until the next ``scoreupdater`` run;
* nothing is passed along outlinks and updatedb leaves the score alone, so the value
  ``scoreupdater`` wrote stays until it writes the next one;
* the generator sort value is score × ``init_sort``;
* the page's score is carried into the content and parse metadata (``nutch.crawl.score``);
* the index boost is ``link.analyze.normalize.score`` × the crawldb score.  As in Nutch it
  *replaces* the boost the filters before it computed (it does not multiply it), so in a
  chain with ``scoring-opic`` the filter that runs last sets the boost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gossamer.core import CrawlDatum, Inlink, LinkTargets, Settings
from gossamer.plugins.api import ParseResult
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.scorecarry import ScoreCarrier


class LinkAnalysisScoringFilter(ScoreCarrier):
    """Keeps the LinkRank score of the crawldb; boosts documents by it."""

    reads_inlink_sources = False

    def __init__(self, settings: Settings) -> None:
        self.normalize = settings.get_float("link.analyze.normalize.score")

    def initial_score(self, url: str, datum: CrawlDatum) -> None:
        """New link targets start at 0 (``scoreupdater`` gives them their rank)."""
        datum.score = 0.0

    def initial_scores(self, targets: LinkTargets) -> None:
        """New link targets start at 0 (batch form)."""
        targets.set_scores(0.0)

    def generator_sort_value(self, url: str, datum: CrawlDatum, init_sort: float) -> float:
        """Score × init_sort."""
        return datum.score * init_sort

    def indexer_score(
        self, url: str, doc: Mapping[str, Any], db: CrawlDatum, fetch: CrawlDatum | None,
        parse: ParseResult | None, inlinks: Sequence[Inlink], init_score: float,
    ) -> float:
        """``link.analyze.normalize.score`` × the crawldb score (``init_score`` when there is no datum)."""
        if db is None:
            return init_score
        return self.normalize * db.score

    def indexer_scores(self, docs: list[dict[str, Any] | None], batch: IndexBatch, scores: list[float]) -> None:
        """Batch form of :meth:`indexer_score` (the job always passes a datum: the crawldb's, else the fetch's)."""
        for i, (doc, score) in enumerate(zip(docs, batch.scores, strict=True)):
            if doc is not None:
                scores[i] = self.normalize * score


PLUGIN = PluginInfo(
    id="scoring-link",
    point="ScoringFilter",
    factory=LinkAnalysisScoringFilter,
    description="link-analysis scoring: keeps the LinkRank score scoreupdater writes; boost = normalize × score",
    aliases=("org.apache.nutch.scoring.link.LinkAnalysisScoringFilter",),
)
