"""``fetch``: fetch a segment's fetch list politely (Nutch's Fetcher).

* :mod:`.queues` — politeness queues per host/domain/IP with Nutch's delays, limits and back-off;
* :mod:`.fetcher` — :func:`fetch_all`, the async fetch loop of one process;
* :mod:`.loop_helpers` — status mapping, robots.txt access and redirect targets of the loop;
* :mod:`.segment_sink` and :mod:`.warc` — crawl_fetch rows, WARC records, inline parsing;
* :mod:`.install` — staging and installing a fetch's tables into the segment;
* :mod:`.resume` — the journal of checkpoints that lets a killed fetch resume;
* :mod:`.job` — :func:`fetch_segment`: shares of hosts over processes or Spark tasks.

The HTTP protocol is a plugin (``protocol-http``, :mod:`gossamer.plugins.builtin.protocol_http`).
See ``docs/fetching.md``.
"""

from gossamer.crawl.fetch.install import STAGING as FETCH_STAGING
from gossamer.crawl.fetch.install import fetch_leftovers
from gossamer.crawl.fetch.job import FetchOptions, FetchProgress, FetchReport, fetch_segment, process_count
from gossamer.crawl.fetch.resume import recover_journals

__all__ = [
    "FETCH_STAGING",
    "FetchOptions",
    "FetchProgress",
    "FetchReport",
    "fetch_leftovers",
    "fetch_segment",
    "process_count",
    "recover_journals",
]
