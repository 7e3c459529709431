"""Crawl storage: directory layout, partitioned sorted Parquet tables, atomic install, locks."""

from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA, batch_to_datums, datums_to_batch, iter_datums
from gossamer.store.install import (
    CURRENT,
    OLD,
    discard,
    install,
    live_version_dir,
    new_staging_dir,
    open_live,
    recover,
)
from gossamer.store.layout import CrawlLayout
from gossamer.store.lock import LockedError, TableLock
from gossamer.store.partitioning import host_of, part_of_url
from gossamer.store.table import TableDescription, TableError, TableVersion, finish_version
from gossamer.store.transfer import copy_tree

__all__ = [
    "CRAWLDB_SCHEMA",
    "CURRENT",
    "OLD",
    "CrawlLayout",
    "LockedError",
    "TableDescription",
    "TableError",
    "TableLock",
    "TableVersion",
    "batch_to_datums",
    "copy_tree",
    "datums_to_batch",
    "discard",
    "finish_version",
    "host_of",
    "install",
    "iter_datums",
    "live_version_dir",
    "new_staging_dir",
    "open_live",
    "part_of_url",
    "recover",
]
