"""Table versions as DuckDB relations, wherever they live (the sources of :mod:`gossamer.store.sql.views`).

* a local version is read by DuckDB itself (``read_parquet`` over its part files);
* a version on another filesystem (``s3://``, ``hdfs://``, ``gs://``) is scanned as a
  pyarrow dataset registered on the connection: DuckDB reaches object stores only
  through its httpfs extension, which is never downloaded;
* the same sub-table of many segments is one relation with a ``segment`` column (the
  segment's name): locally one ``read_parquet`` whose file names give the segment, else
  one pyarrow dataset whose directory partitioning does.

Each function returns SQL text naming the relation (a table function call or a registered
name); the connection must stay open as long as it is used.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import duckdb
import pyarrow as pa
import pyarrow.dataset as ds

from gossamer.store.location import Location
from gossamer.store.place import Place
from gossamer.store.table import TableVersion, part_name

SEGMENT_COLUMN = "segment"
_SEGMENT_OF_FILE = r"/([0-9]+)/[A-Za-z_]+/part-[0-9]+\.parquet$"
"""A local part file's segment: the numbered directory above its sub-table directory."""


def quote_literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def quote_name(name: str) -> str:
    """``name`` as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def register(con: duckdb.DuckDBPyConnection, data: ds.Dataset | pa.Table, hint: str) -> str:
    """Register an Arrow dataset or table on ``con`` under a fresh name (returned, quoted)."""
    name = f"_{hint}_{uuid.uuid4().hex[:8]}"
    con.register(name, data)
    return quote_name(name)


def _read_parquet(paths: Sequence[str], filename: bool = False) -> str:
    files = ", ".join(quote_literal(path) for path in paths)
    extra = ", filename=true" if filename else ""
    return f"read_parquet([{files}], union_by_name=true{extra})"


def version_relation(con: duckdb.DuckDBPyConnection, version: TableVersion, hint: str) -> str:
    """SQL naming every row of an open table ``version``.

    Local parts are read through the descriptors the version pinned, so the relation keeps
    showing this version even after a writer installs another: keep ``version`` open while
    the relation is used.
    """
    if isinstance(version.directory, Location):
        return register(con, version.dataset(), hint)
    return _read_parquet([version.part_locator(i) for i in range(version.parts)])


def segments_relation(con: duckdb.DuckDBPyConnection, tables: Sequence[tuple[Place, TableVersion]],
                      hint: str) -> str:
    """SQL naming the rows of one sub-table across segments, with a leading ``segment`` column.

    ``tables`` are ``(segment, its open sub-table version)`` pairs, all local or all on one
    other filesystem, at least one.  Files are named by path (segments are written once, so
    nothing needs pinning): the versions may be closed once this returns.
    """
    segment, first = tables[0]
    if isinstance(first.directory, Location):
        base = segment.parent
        assert isinstance(base, Location)
        paths = [(version.location / part_name(i)).path for _, version in tables for i in range(version.parts)]
        partitioning = ds.DirectoryPartitioning(pa.schema([(SEGMENT_COLUMN, pa.string())]))
        dataset = ds.dataset(paths, format="parquet", filesystem=base.fs, partitioning=partitioning,
                             partition_base_dir=base.path)
        name = register(con, dataset, hint)
        return f"(SELECT {SEGMENT_COLUMN}, * EXCLUDE ({SEGMENT_COLUMN}) FROM {name})"
    paths = [str(version.directory / part_name(i)) for _, version in tables for i in range(version.parts)]
    source = _read_parquet(paths, filename=True)
    return (f"(SELECT regexp_extract(filename, {quote_literal(_SEGMENT_OF_FILE)}, 1) AS {SEGMENT_COLUMN}, "
            f"* EXCLUDE (filename) FROM {source})")


def empty_relation(con: duckdb.DuckDBPyConnection, schema: pa.Schema, hint: str, segment: bool = False) -> str:
    """SQL naming no rows with ``schema`` (a table that is not there yet), ``segment`` first if asked."""
    if segment:
        schema = pa.schema([pa.field(SEGMENT_COLUMN, pa.string()), *schema])
    return register(con, schema.empty_table(), hint)
