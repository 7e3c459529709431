"""``inject``: add seed URLs to a crawldb (Nutch's Injector).

* :mod:`.seeds` — the seed-line format;
* :mod:`.seed_merge` — the job's map (seeds, existing crawldb) and reduce (the merge);
* :mod:`.injector` — :func:`inject`: lock, run, install, report.
"""

from gossamer.crawl.inject.injector import InjectReport, inject
from gossamer.crawl.inject.seed_merge import InjectOptions
from gossamer.crawl.inject.seeds import SeedError, SeedLine, parse_seed_line

__all__ = [
    "InjectOptions",
    "InjectReport",
    "SeedError",
    "SeedLine",
    "inject",
    "parse_seed_line",
]
