"""A crawl as SQL: DuckDB views over the live version of every table, wherever the crawl lives.

* :mod:`.views` — :func:`open_crawl_views` (the views and their columns: see there) and
  :class:`CrawlViews` (the open connection, closed when done);
* :mod:`.sources` — a table version, or one sub-table across segments, as a DuckDB relation
  (``read_parquet`` locally, a registered pyarrow dataset on every other filesystem).

Imported as such (``from gossamer.store.sql import open_crawl_views``), like
:mod:`gossamer.store.hadoop`: the store's own face does not pull DuckDB in.
"""

from gossamer.store.sql.sources import SEGMENT_COLUMN
from gossamer.store.sql.views import (
    CRAWL_STATUS_NAMES,
    DB_TABLES,
    PARSE_STATUS_NAMES,
    SEGMENT_TABLES,
    STATUS_VIEW,
    CrawlViews,
    View,
    open_crawl_views,
)

__all__ = [
    "CRAWL_STATUS_NAMES",
    "CrawlViews",
    "DB_TABLES",
    "PARSE_STATUS_NAMES",
    "SEGMENT_COLUMN",
    "SEGMENT_TABLES",
    "STATUS_VIEW",
    "View",
    "open_crawl_views",
]
