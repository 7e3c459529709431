"""``dedup``: mark duplicate pages in the crawldb (Nutch's DeduplicationJob).

* :mod:`.duplicates` — finding them: an engine job grouping by signature (+ host/domain);
* :mod:`.deduplicator` — :func:`dedup`: find, then mark ``db_duplicate`` under the crawldb lock.
"""

from gossamer.crawl.dedup.deduplicator import DedupReport, dedup
from gossamer.crawl.dedup.duplicates import check_group, parse_compare_order

__all__ = [
    "DedupReport",
    "check_group",
    "dedup",
    "parse_compare_order",
]
