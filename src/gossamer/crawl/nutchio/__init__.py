"""``import-nutch`` / ``export-nutch``: move a whole crawl between Nutch's Hadoop files and Gossamer's tables.

Nutch 1.x crawldb, linkdb and segments (and Nutch 0.4/0.5 segments) are read with
``gossamer.store.hadoop`` and converted by engine work: table jobs for the crawldb and the
linkdb (SequenceFile splits cut at sync markers), task sets for segment parts; export writes
Nutch 1.x MapFiles and SequenceFiles partitioned as Nutch's readers expect.  Layout and
mapping: ``docs/nutch-formats.md`` ("Migrating a Nutch crawl").
"""

from gossamer.crawl.nutchio.hadoop_hash import hash_bytes, partitions
from gossamer.crawl.nutchio.migrate import MigrationReport, export_nutch, import_nutch
from gossamer.crawl.nutchio.nutch_layout import NotANutchCrawl, scan

__all__ = ["MigrationReport", "NotANutchCrawl", "export_nutch", "hash_bytes", "import_nutch", "partitions", "scan"]
