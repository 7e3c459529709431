"""A crawl as SQL: an in-memory DuckDB connection with one view per table, over its live version.

:func:`open_crawl_views` finds the tables of a crawl directory (local, ``s3://``, ``hdfs://`` …),
resolves each table's live version (``current/``, ``old/`` after a crash, or the ``CURRENT``
pointer of an object store) and creates these views:

=================  ==================================================================================
view               columns
=================  ==================================================================================
``crawldb``        the crawldb's columns, ``status_name`` after ``status``, ``protocol_status`` last
``linkdb``         ``url``, ``inlinks`` (list of ``{from_url, anchor}``)
``crawl_generate``, ``segment`` first, then as ``crawldb`` (one row per URL and segment)
``crawl_fetch``,
``crawl_parse``
``parse_data``     ``segment``, the parse_data columns, ``status_name`` (notparsed, success, failed)
``parse_text``     ``segment``, ``url``, ``text``
``crawl_status``   ``code``, ``name``: every CrawlDatum status (to join or to look names up)
=================  ==================================================================================

``status_name`` is Nutch's name of the status byte (``db_unfetched``, ``fetch_gone`` …, from
:func:`gossamer.core.status_name`); ``protocol_status`` the text of the ``_pst_`` metadata
(``notfound(14), lastModified=0: …``) or NULL.  A segment's sub-table counts once it is complete
(see :func:`gossamer.store.table_present`); one that cannot be opened is left out and named in
:attr:`CrawlViews.skipped`.  A table that is not there yet is an empty view with its schema, so
every query runs on every crawl.  Local crawldb and linkdb versions stay pinned (open
descriptors) until :meth:`CrawlViews.close`, so a long session keeps reading the versions it
opened while jobs install new ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb
import pyarrow as pa

from gossamer.core import CrawlStatus, ParseStatusCode, status_name
from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA
from gossamer.store.install import live_version_dir
from gossamer.store.layout import CrawlLayout
from gossamer.store.linkdb_schema import LINKDB_SCHEMA
from gossamer.store.location import as_place
from gossamer.store.parse_schemas import PARSE_DATA_SCHEMA, PARSE_TEXT_SCHEMA
from gossamer.store.place import Place
from gossamer.store.segment_files import place_text, table_present
from gossamer.store.segments import list_segments
from gossamer.store.sql.sources import (
    empty_relation,
    quote_literal,
    quote_name,
    segments_relation,
    version_relation,
)
from gossamer.store.table import TableError, TableVersion

DB_TABLES = {"crawldb": CRAWLDB_SCHEMA, "linkdb": LINKDB_SCHEMA}
SEGMENT_TABLES = {"crawl_generate": CRAWLDB_SCHEMA, "crawl_fetch": CRAWLDB_SCHEMA, "crawl_parse": CRAWLDB_SCHEMA,
                  "parse_data": PARSE_DATA_SCHEMA, "parse_text": PARSE_TEXT_SCHEMA}
"""Every view over a table, with the schema of its empty view (segment views add ``segment``)."""
DATUM_TABLES = frozenset({"crawldb", "crawl_generate", "crawl_fetch", "crawl_parse"})
"""Views of CrawlDatum rows: ``status_name`` from the CrawlDatum statuses, and ``protocol_status``."""
PARSE_STATUS_NAMES = {int(code): code.name.lower() for code in ParseStatusCode}
CRAWL_STATUS_NAMES = {int(code): status_name(int(code)) for code in CrawlStatus}
STATUS_VIEW = "crawl_status"


@dataclass(frozen=True)
class View:
    """One view: its name and how many table versions (or segments) it reads; 0 = the table is absent."""

    name: str
    sources: int


@dataclass
class CrawlViews:
    """An open DuckDB connection (:attr:`con`) with the views of one crawl; close it when done."""

    con: duckdb.DuckDBPyConnection
    views: list[View] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Sub-tables left out, each ``<place>: <reason>``."""
    _pinned: list[TableVersion] = field(default_factory=list, repr=False)

    def close(self) -> None:
        """Close the connection and release the pinned versions (idempotent)."""
        for version in self._pinned:
            version.close()
        self._pinned.clear()
        self.con.close()

    def __enter__(self) -> CrawlViews:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(memory_mb: int = 1024, threads: int = 0) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a memory limit that never downloads extensions."""
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.execute(f"SET memory_limit='{int(memory_mb)}MB'")
    if threads > 0:
        con.execute(f"SET threads={int(threads)}")
    return con


def status_case(column: str, names: dict[int, str]) -> str:
    """SQL mapping a status code ``column`` to its name (``'unknown'`` for any other value)."""
    whens = " ".join(f"WHEN {code} THEN {quote_literal(name)}" for code, name in sorted(names.items()))
    return f"CASE {quote_name(column)} {whens} ELSE 'unknown' END"


def open_crawl_views(crawl_dir: Place | str, memory_mb: int = 1024, threads: int = 0) -> CrawlViews:
    """Open DuckDB with the views of the crawl at ``crawl_dir`` (a path, URI or place).

    Raises :class:`~gossamer.store.TableError` when the directory holds no crawldb, linkdb
    or segments directory at all (not a crawl directory).
    """
    root = as_place(crawl_dir)
    shown = place_text(root)
    if root.is_local:
        root = root.absolute()
    layout = CrawlLayout(root)  # type: ignore[type-var]
    present = [layout.crawldb.exists(), layout.linkdb.exists(), layout.segments.exists()]
    if not any(present):
        hint = ""
        if (root / "current").exists() or (root / "CURRENT").exists() or (root / "crawl_generate").exists():
            hint = f"; that is a table or segment: give its crawl directory ({place_text(_crawl_above(root))})"
        raise TableError(f"no crawl at {shown} (no crawldb, linkdb or segments in it){hint}")
    views = CrawlViews(connect(memory_mb, threads))
    try:
        for name, schema in DB_TABLES.items():
            _db_view(views, name, root / name, schema)
        segments = list_segments(layout.segments) if present[2] else []
        for name, schema in SEGMENT_TABLES.items():
            _segment_view(views, name, segments, schema)
        rows = ", ".join(f"({code}, {quote_literal(name)})" for code, name in sorted(CRAWL_STATUS_NAMES.items()))
        views.con.execute(f"CREATE VIEW {STATUS_VIEW} AS SELECT * FROM (VALUES {rows}) AS t(code, name)")
    except BaseException:
        views.close()
        raise
    return views


def _crawl_above(place: Place) -> Place:
    """The crawl directory holding a table (``crawl/crawldb``) or a segment (``crawl/segments/<name>``)."""
    return place.parent.parent if (place / "crawl_generate").exists() else place.parent


def _db_view(views: CrawlViews, name: str, table: Place, schema: pa.Schema) -> None:
    live = live_version_dir(table) if table.exists() else None
    if live is None:
        relation, sources = empty_relation(views.con, schema, name), 0
    else:
        version = TableVersion(live)
        views._pinned.append(version)
        relation, sources = version_relation(views.con, version, name), 1
    _create(views, name, relation, sources)


def _segment_view(views: CrawlViews, name: str, segments: list[Place], schema: pa.Schema) -> None:
    opened: list[tuple[Place, TableVersion]] = []
    for segment in segments:
        table = segment / name
        if not table_present(table):
            continue
        try:
            with TableVersion(table) as version:
                opened.append((segment, version))
        except (TableError, OSError) as exc:
            views.skipped.append(f"{place_text(table)}: {exc}")
    if opened:
        relation = segments_relation(views.con, opened, name)
    else:
        relation = empty_relation(views.con, schema, name, segment=True)
    _create(views, name, relation, len(opened))


def _create(views: CrawlViews, name: str, relation: str, sources: int) -> None:
    columns = [row[0] for row in views.con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
    items: list[str] = []
    for column in columns:
        items.append(quote_name(column))
        if column == "status" and name != "linkdb":
            names = CRAWL_STATUS_NAMES if name in DATUM_TABLES else PARSE_STATUS_NAMES
            items.append(f"{status_case(column, names)} AS status_name")
    if name in DATUM_TABLES and "metadata" in columns:
        items.append("map_extract(metadata, '_pst_')[1] AS protocol_status")
    views.con.execute(f"CREATE VIEW {quote_name(name)} AS SELECT {', '.join(items)} FROM {relation}")
    views.views.append(View(name, sources))

