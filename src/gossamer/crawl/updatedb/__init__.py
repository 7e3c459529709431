"""``updatedb``: merge segments' fetch and parse results into the crawldb (Nutch's CrawlDb job).

* :mod:`.state_machine` — the per-URL state machine (Nutch's CrawlDbReducer), pure functions;
* :mod:`.updater` — :func:`updatedb`: the engine job around it, lock, install, report.
"""

from gossamer.crawl.updatedb.updater import UpdateOptions, UpdateReport, rewrite_urls, updatedb

__all__ = [
    "UpdateOptions",
    "UpdateReport",
    "rewrite_urls",
    "updatedb",
]
