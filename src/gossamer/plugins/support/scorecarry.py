"""The page score's trip from the crawldb to the parse, shared by the score-based filters.

Nutch's OPIC and link-analysis filters both put the page's crawldb score into the
content metadata before parsing (``nutch.crawl.score``) and copy it into the parse's
content metadata afterwards, where ``distribute_score_to_outlinks`` can read it.
"""

from __future__ import annotations

from gossamer.core import CRAWL_SCORE_KEY, Content, CrawlDatum
from gossamer.plugins.api import ParseResult, ScoringFilter


class ScoreCarrier(ScoringFilter):
    """A scoring filter whose pass-score hooks carry the datum's score to the parse."""

    def pass_score_before_parsing(self, url: str, datum: CrawlDatum, content: Content) -> None:
        """Carry the page's score in the content metadata."""
        content.metadata[CRAWL_SCORE_KEY] = repr(datum.score)

    def pass_score_after_parsing(self, url: str, content: Content, parse: ParseResult) -> None:
        """Carry the score on into the parse's content metadata (nothing when the content has none)."""
        if CRAWL_SCORE_KEY in content.metadata:
            parse.data.content_metadata[CRAWL_SCORE_KEY] = content.metadata[CRAWL_SCORE_KEY]


def carried_score(parse: ParseResult) -> float:
    """The score :class:`ScoreCarrier` put in the parse's content metadata; 0 when missing or unreadable."""
    try:
        return float(parse.data.content_metadata.get(CRAWL_SCORE_KEY, "0"))
    except ValueError:
        return 0.0
