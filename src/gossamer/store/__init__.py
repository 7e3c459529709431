"""Crawl storage: places, directory and segment layout, partitioned sorted Parquet tables, atomic install, locks.

* :class:`Place` (:mod:`.place`) — the one type for where a table, segment or index lives;
  :class:`LocalPlace` (the local filesystem, a ``Path``) and :class:`Location` (pyarrow
  filesystems: S3, GCS, HDFS) implement it; :func:`as_place` parses what a user typed.
* tables (:mod:`.table`), their atomic install (:mod:`.install`, :mod:`.install_remote`),
  writer locks (:mod:`.lock`, :mod:`.lock_remote`), copying between filesystems (:mod:`.transfer`);
* the crawl directory (:mod:`.layout`), segments and their files (:mod:`.segments`,
  :mod:`.segment_files`) and the schemas (:mod:`.crawldb_schema`, :mod:`.linkdb_schema`,
  :mod:`.parse_schemas`); the host-hash partitioner (:mod:`.partitioning`).
"""

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
from gossamer.store.location import Location, as_place, is_uri
from gossamer.store.lock import LockedError, TableLock
from gossamer.store.partitioning import host_of, part_of_url
from gossamer.store.place import Place
from gossamer.store.place_local import LocalPlace
from gossamer.store.table import TableDescription, TableError, TableVersion, finish_version
from gossamer.store.transfer import copy_tree

__all__ = [
    "CRAWLDB_SCHEMA",
    "CURRENT",
    "OLD",
    "Place",
    "CrawlLayout",
    "LocalPlace",
    "Location",
    "LockedError",
    "TableDescription",
    "TableError",
    "TableLock",
    "TableVersion",
    "as_place",
    "batch_to_datums",
    "copy_tree",
    "datums_to_batch",
    "discard",
    "finish_version",
    "host_of",
    "install",
    "is_uri",
    "iter_datums",
    "live_version_dir",
    "new_staging_dir",
    "open_live",
    "part_of_url",
    "recover",
]
