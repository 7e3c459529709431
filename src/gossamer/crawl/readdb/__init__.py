"""``readdb``: dump, look up, rank and count crawldb entries (Nutch's CrawlDbReader).

* :mod:`.reader` — dumps (normal, csv, json), one-URL lookups, top-N by score;
* :mod:`.stats` — ``-stats`` computed by DuckDB straight from the Parquet parts.
"""

from gossamer.crawl.readdb.reader import DumpFilter, dump, lookup, prepare_output_dir, top_n, write_top_n
from gossamer.crawl.readdb.stats import CrawlDbStats, connect, crawldb_stats, parquet_relation, parts_relation

__all__ = [
    "CrawlDbStats",
    "DumpFilter",
    "connect",
    "crawldb_stats",
    "dump",
    "lookup",
    "parquet_relation",
    "parts_relation",
    "prepare_output_dir",
    "top_n",
    "write_top_n",
]
