"""``scoring-depth``: Nutch's DepthScoringFilter — follow links at most so many hops from a seed.

Every crawldb record carries its depth ``_depth_`` (a seed is 1) and the depth limit
``_maxdepth_`` of the seed it came from, both as decimal text (exported to Nutch as
IntWritable).  A page whose depth has reached its limit gets no outlinks at all: they
never reach the crawldb, so the crawl stops there.  The rules, hook by hook:

* **inject** (``injected_score``): depth 1; the limit is the seed line's ``_maxdepth_``
  (``url<TAB>_maxdepth_=3``), else ``scoring.depth.max``.  A ``_maxdepth_`` that is not a
  whole number raises :class:`ValueError` (inject reports the line as bad).
* **before / after parsing**: both keys go crawldb → content metadata → parse metadata.
* **outlinks** (``distribute_score_to_outlinks``): with the page's depth ``d`` and limit
  ``m`` (the parse metadata's ``_maxdepth_``, else ``scoring.depth.max``; a URL matching
  ``scoring.depth.override.pattern`` gets ``scoring.depth.max.override`` instead): when
  ``d ≥ m`` every target is dropped; otherwise each target gets depth ``d + 1`` and limit
  ``m``.  A page without a readable depth loses its outlinks too (logged), as in Nutch.
* **updatedb** (``update_db_score``): the record keeps the smallest depth among its old
  record, its new datum and this round's inlinks, with that candidate's limit (ties: the
  larger limit).  When none of them has a depth the record gets depth = limit =
  ``scoring.depth.max``: a page of unknown depth is treated as at the limit.
* new link targets (``initial_score``), the generator sort value and the index boost are
  left alone.

Where this differs from Nutch (1.x): Nutch's updateDbScore keeps only the smallest depth
(the limit is whatever metadata won the merge) and gives a record without any depth the
constant 1000; its initialScore puts depth 1 on targets without one (which updateDbScore
then overrides); its generatorSortValue multiplies by ``1 + limit − depth`` — Gossamer's
generate sorts by the crawldb score and calls no sort-value hook, so nothing is done
there; and a URL that does not match ``scoring.depth.override.pattern`` keeps its
seed's ``_maxdepth_`` (Nutch resets it to ``scoring.depth.max``).  HTTP redirect targets
inherit the source's metadata in the fetcher (as in Nutch), so they keep its depth;
meta-refresh targets carry none (as in Nutch), so they end up at the limit.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from gossamer.core import Content, CrawlDatum, LinkTargets, Settings
from gossamer.plugins.api import ParseResult, ScoringFilter
from gossamer.plugins.registry import PluginInfo
from gossamer.plugins.support.javaregex import compile_java

LOG = logging.getLogger(__name__)

DEPTH_KEY = "_depth_"
"""Crawldb, content and parse metadata key: hops from the seed (seeds are 1)."""
MAX_DEPTH_KEY = "_maxdepth_"
"""Crawldb, content and parse metadata key: the depth at which the page's outlinks are dropped."""
_KEYS = (DEPTH_KEY, MAX_DEPTH_KEY)


def _whole(value: str | None) -> int | None:
    """The whole number ``value`` spells (surrounding blanks allowed), else ``None``."""
    if value is None:
        return None
    try:
        return int(value.strip())
    except ValueError:
        return None


class DepthScoringFilter(ScoringFilter):
    """Limits the link distance from the seeds (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.default_max = settings.get_int("scoring.depth.max")  # ≥ 1: the setting's check
        pattern = settings.get_str("scoring.depth.override.pattern")
        self.override: re.Pattern[str] | None = compile_java(pattern) if pattern else None
        self.override_max = settings.get_int("scoring.depth.max.override")

    def injected_score(self, url: str, datum: CrawlDatum) -> None:
        """Seeds: depth 1, limit from the seed's ``_maxdepth_`` or ``scoring.depth.max``."""
        raw = datum.metadata.get(MAX_DEPTH_KEY)
        limit = self.default_max if raw is None else _whole(raw)
        if limit is None:
            raise ValueError(f"seed metadata {MAX_DEPTH_KEY}={raw!r} is not a whole number")
        datum.metadata[MAX_DEPTH_KEY] = str(limit)
        datum.metadata[DEPTH_KEY] = "1"

    def pass_score_before_parsing(self, url: str, datum: CrawlDatum, content: Content) -> None:
        """Copy depth and limit from the crawldb datum into the content metadata."""
        for key in _KEYS:
            if key in datum.metadata:
                content.metadata[key] = datum.metadata[key]

    def pass_score_after_parsing(self, url: str, content: Content, parse: ParseResult) -> None:
        """Copy depth and limit from the content metadata into the parse metadata."""
        for key in _KEYS:
            if key in content.metadata:
                parse.data.parse_metadata[key] = content.metadata[key]

    def _target_metadata(self, from_url: str, parse: ParseResult) -> dict[str, str] | None:
        """Depth and limit for every target of ``from_url``, or ``None`` when its targets are dropped."""
        meta = parse.data.parse_metadata
        depth = _whole(meta.get(DEPTH_KEY))
        if depth is None:
            LOG.warning("%s: no depth known (%s), its outlinks are dropped", from_url, DEPTH_KEY)
            return None
        limit = self._limit(from_url, meta)
        if depth >= limit:
            LOG.info("%s: depth limit %d reached, its outlinks are dropped", from_url, limit)
            return None
        return {DEPTH_KEY: str(depth + 1), MAX_DEPTH_KEY: str(limit)}

    def distribute_score_to_outlinks(
        self, from_url: str, parse: ParseResult, targets: list[tuple[str, CrawlDatum]],
        adjust: CrawlDatum | None, all_count: int,
    ) -> CrawlDatum | None:
        """Give targets depth + 1 and the page's limit, or drop them all once the limit is reached."""
        if not targets:
            return adjust
        values = self._target_metadata(from_url, parse)
        if values is None:
            targets.clear()
            return adjust
        for _, datum in targets:
            datum.metadata.update(values)
        return adjust

    def distribute_score_to_targets(
        self, from_url: str, parse: ParseResult, targets: LinkTargets, adjust: CrawlDatum | None, all_count: int,
    ) -> CrawlDatum | None:
        """:meth:`distribute_score_to_outlinks` over the targets' columns."""
        if not len(targets):
            return adjust
        values = self._target_metadata(from_url, parse)
        if values is None:
            targets.clear()
        else:
            targets.update_metadata(values)
        return adjust

    def _limit(self, url: str, meta: dict[str, str]) -> int:
        if self.override is not None and self.override.search(url):
            return self.override_max
        limit = _whole(meta.get(MAX_DEPTH_KEY))
        return self.default_max if limit is None else limit

    def update_db_score(
        self, url: str, old: CrawlDatum | None, datum: CrawlDatum, inlinks: Sequence[CrawlDatum]
    ) -> None:
        """Keep the smallest depth known for the URL, with its limit (unknown: at the default limit)."""
        found = [(depth, self._own_limit(source)) for source in (old, datum, *inlinks)
                 if source is not None and (depth := _whole(source.metadata.get(DEPTH_KEY))) is not None]
        if found:
            depth, limit = min(found, key=lambda pair: (pair[0], -pair[1]))
        else:
            depth = limit = self.default_max
        datum.metadata[DEPTH_KEY] = str(depth)
        datum.metadata[MAX_DEPTH_KEY] = str(limit)

    def _own_limit(self, datum: CrawlDatum) -> int:
        limit = _whole(datum.metadata.get(MAX_DEPTH_KEY))
        return self.default_max if limit is None else limit


PLUGIN = PluginInfo(
    id="scoring-depth",
    point="ScoringFilter",
    factory=DepthScoringFilter,
    description="limits the link depth from the seeds (_depth_, _maxdepth_, scoring.depth.max)",
    aliases=("org.apache.nutch.scoring.depth.DepthScoringFilter",),
)
