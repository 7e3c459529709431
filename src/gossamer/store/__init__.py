"""Crawl storage: places, directory and segment layout, partitioned sorted Parquet tables, atomic install, locks.

* :class:`Place` (:mod:`.place`) — the one type for where a table, segment or index lives;
  :class:`LocalPlace` (the local filesystem, a ``Path``) and :class:`Location` (pyarrow
  filesystems: S3, GCS, HDFS) implement it; :func:`as_place` parses what a user typed.
* tables (:mod:`.table`; a job's staging parts as Arrow files, :mod:`.arrow_parts`), their atomic install
  (:mod:`.install`, :mod:`.install_remote`),
  writer locks (:mod:`.lock`, :mod:`.lock_remote`), copying between filesystems (:mod:`.transfer`);
* the crawl directory (:mod:`.layout`), segments and their files (:mod:`.segments`,
  :mod:`.segment_files`) and the schemas (:mod:`.crawldb_schema`, :mod:`.linkdb_schema`,
  :mod:`.parse_schemas`); the host-hash partitioner (:mod:`.partitioning`);
* Hadoop's and Nutch's own file formats: the subpackage :mod:`gossamer.store.hadoop` (imported as
  such: Writables, SequenceFile, MapFile, ArrayFile, Nutch's records).
"""

from gossamer.store.arrow_parts import ARROW_SUFFIX, ArrowPartWriter, iter_arrow_part
from gossamer.store.crawldb_schema import (
    CRAWLDB_SCHEMA,
    TIMESTAMP,
    batch_to_datums,
    columns_to_batch,
    datums_to_batch,
    iter_datums,
)
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
from gossamer.store.linkdb_schema import LINKDB_SCHEMA, batch_to_rows, flat_inlinks, inlinks_array, linkdb_batch
from gossamer.store.location import Location, as_place, is_uri
from gossamer.store.lock import LockedError, TableLock
from gossamer.store.parse_schemas import METADATA_TYPE, OUTLINK_TYPE, PARSE_DATA_SCHEMA, PARSE_TEXT_SCHEMA, SCHEMAS
from gossamer.store.partitioning import (
    KEY_PARTITIONER_NAME,
    PARTITIONER_NAME,
    host_of,
    hosts_of,
    part_of_url,
    parts_of_hosts,
    parts_of_keys,
    parts_of_urls,
)
from gossamer.store.place import Place
from gossamer.store.place_local import LocalPlace
from gossamer.store.segment_files import (
    ShareOutput,
    children,
    clear_tables,
    file_size,
    local_copy,
    make_dir,
    modified_time,
    place_text,
    remove_tree,
    sweep_unreported,
    table_present,
    warc_files,
)
from gossamer.store.segments import SegmentWriter, list_segments, new_segment_name, partition_key_function
from gossamer.store.table import (
    DESCRIPTION_FILE,
    SUCCESS_MARKER,
    PartWriter,
    TableDescription,
    TableError,
    TableVersion,
    finish_version,
    fsync_path,
    parquet_rows,
    part_name,
    parts_dataset,
    read_parquet_file,
)
from gossamer.store.transfer import Copied, copy_tree

__all__ = [
    "ARROW_SUFFIX",
    "ArrowPartWriter",
    "CRAWLDB_SCHEMA",
    "CURRENT",
    "Copied",
    "CrawlLayout",
    "DESCRIPTION_FILE",
    "KEY_PARTITIONER_NAME",
    "LINKDB_SCHEMA",
    "LocalPlace",
    "Location",
    "LockedError",
    "METADATA_TYPE",
    "OLD",
    "OUTLINK_TYPE",
    "PARSE_DATA_SCHEMA",
    "PARSE_TEXT_SCHEMA",
    "PARTITIONER_NAME",
    "PartWriter",
    "Place",
    "SCHEMAS",
    "SUCCESS_MARKER",
    "SegmentWriter",
    "ShareOutput",
    "TIMESTAMP",
    "TableDescription",
    "TableError",
    "TableLock",
    "TableVersion",
    "as_place",
    "batch_to_datums",
    "batch_to_rows",
    "children",
    "clear_tables",
    "copy_tree",
    "columns_to_batch",
    "datums_to_batch",
    "discard",
    "file_size",
    "finish_version",
    "flat_inlinks",
    "fsync_path",
    "host_of",
    "hosts_of",
    "inlinks_array",
    "install",
    "is_uri",
    "iter_arrow_part",
    "iter_datums",
    "linkdb_batch",
    "list_segments",
    "live_version_dir",
    "local_copy",
    "make_dir",
    "modified_time",
    "new_segment_name",
    "new_staging_dir",
    "open_live",
    "parquet_rows",
    "part_name",
    "part_of_url",
    "partition_key_function",
    "parts_dataset",
    "parts_of_keys",
    "parts_of_hosts",
    "parts_of_urls",
    "place_text",
    "read_parquet_file",
    "recover",
    "remove_tree",
    "sweep_unreported",
    "table_present",
    "warc_files",
]
