"""``generate``: pick due URLs from the crawldb into new segments (Nutch's Generator).

* :mod:`.candidates` — the engine job: due, accepted URLs, best first per host/domain;
* :mod:`.selection` — dealing candidates into fetch lists (Nutch's per-host limits, topN);
* :mod:`.generator` — :func:`generate`: lock, select, write segments, mark the crawldb.
"""

from gossamer.crawl.generate.generator import GenerateOptions, GenerateReport, generate

__all__ = [
    "GenerateOptions",
    "GenerateReport",
    "generate",
]
