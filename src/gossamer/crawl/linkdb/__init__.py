"""The linkdb: ``invertlinks``, ``mergelinkdb`` and ``readlinkdb`` (Nutch's LinkDb, LinkDbMerger, LinkDbReader).

* :mod:`.inversion` — the jobs' map and reduce functions;
* :mod:`.jobs` — :func:`invert_links`, :func:`merge_linkdbs` and one-URL reads (:func:`read_inlinks`);
* :mod:`.dump` — text and JSON dumps.
"""

from gossamer.crawl.linkdb.dump import NOT_FOUND, dump_linkdb, format_inlink
from gossamer.crawl.linkdb.jobs import LINKDB_SCHEMA, InvertReport, invert_links, merge_linkdbs, read_inlinks

__all__ = [
    "InvertReport",
    "LINKDB_SCHEMA",
    "NOT_FOUND",
    "dump_linkdb",
    "format_inlink",
    "invert_links",
    "merge_linkdbs",
    "read_inlinks",
]
