"""A WebDB version directory: four sorted Parquet files, a summary, a completion marker.

Layout of ``<webdb>/current/`` (and of a ``tmp-*`` version being written)::

    pages_by_url.parquet   Pages sorted by url
    pages_by_md5.parquet   Pages sorted by (md5, url)
    links_by_md5.parquet   Links sorted by (from_md5, to_url)
    links_by_url.parquet   Links sorted by (to_url, from_md5)
    _webdb.json            row counts
    _SUCCESS               written last: the version is complete

The first column of every file is its primary sort key, so a lookup reads only the row
groups whose min/max statistics can hold the key.  Files are read front to back
(:meth:`SortedFile.rows`) or by key (:meth:`SortedFile.find`), never rewritten.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from gossamer.store import SUCCESS_MARKER, PartWriter, TableError, fsync_path
from gossamer.webdb.records import (
    LINKS_BY_MD5_SCHEMA,
    LINKS_BY_URL_SCHEMA,
    PAGES_BY_MD5_SCHEMA,
    PAGES_BY_URL_SCHEMA,
)

PAGES_BY_URL = "pages_by_url"
PAGES_BY_MD5 = "pages_by_md5"
LINKS_BY_MD5 = "links_by_md5"
LINKS_BY_URL = "links_by_url"
SCHEMAS = {
    PAGES_BY_URL: PAGES_BY_URL_SCHEMA,
    PAGES_BY_MD5: PAGES_BY_MD5_SCHEMA,
    LINKS_BY_MD5: LINKS_BY_MD5_SCHEMA,
    LINKS_BY_URL: LINKS_BY_URL_SCHEMA,
}
"""The four tables in merge order, with their schemas."""
SUMMARY_FILE = "_webdb.json"
ROW_GROUP_ROWS = 4096
_READ_ROWS = 8192


def table_file(version: Path, table: str) -> Path:
    """The Parquet file of ``table`` in a version directory."""
    return version / f"{table}.parquet"


class RowSink:
    """Writes rows (dicts, already in the file's key order) to one table file."""

    def __init__(self, path: Path, schema: pa.Schema) -> None:
        self.schema = schema
        self.rows = 0
        self._pending: list[dict[str, object]] = []
        self._writer = PartWriter(path, schema, ROW_GROUP_ROWS, "zstd")

    def add(self, row: dict[str, object]) -> None:
        """Append one row."""
        self._pending.append(row)
        self.rows += 1
        if len(self._pending) >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._pending:
            self._writer.write(pa.RecordBatch.from_pylist(self._pending, schema=self.schema))
            self._pending = []

    def close(self) -> None:
        """Write what is left and the footer."""
        self._flush()
        self._writer.close()


def write_empty(version: Path) -> None:
    """Fill ``version`` with four empty tables and mark it complete."""
    for table, schema in SCHEMAS.items():
        RowSink(table_file(version, table), schema).close()
    finish(version, {PAGES_BY_URL: 0, PAGES_BY_MD5: 0, LINKS_BY_MD5: 0, LINKS_BY_URL: 0})


def finish(version: Path, counts: dict[str, int]) -> None:
    """Write the summary and ``_SUCCESS`` (after every table file is closed)."""
    (version / SUMMARY_FILE).write_text(json.dumps({"rows": counts}, indent=1, sort_keys=True) + "\n")
    fsync_path(version / SUMMARY_FILE)
    (version / SUCCESS_MARKER).write_bytes(b"")
    fsync_path(version)


def verify(version: Path) -> None:
    """TableError unless ``version`` is a complete WebDB version (for :func:`gossamer.store.install`)."""
    if not (version / SUCCESS_MARKER).is_file():
        raise TableError(f"{version} is not a complete WebDB (no {SUCCESS_MARKER})")
    missing = [t for t in SCHEMAS if not table_file(version, t).is_file()]
    if missing:
        raise TableError(f"{version}: tables {missing} are missing")


def summary(version: Path) -> dict[str, int]:
    """Row counts of each table, as the version's summary records them."""
    return dict(json.loads((version / SUMMARY_FILE).read_text())["rows"])


class SortedFile:
    """One open table file (the handle pins it against a later install); read in key order or by key."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = pq.ParquetFile(path)

    def close(self) -> None:
        """Release the file."""
        self._file.close()

    @property
    def num_rows(self) -> int:
        """Rows, from the footer."""
        return self._file.metadata.num_rows

    def rows(self, columns: list[str] | None = None) -> Iterator[dict[str, object]]:
        """Every row (of ``columns``, default all), front to back, as dicts."""
        for batch in self._file.iter_batches(batch_size=_READ_ROWS, columns=columns):
            yield from batch.to_pylist()

    def find(self, value: str | bytes) -> Iterator[dict[str, object]]:
        """Rows whose first (primary key) column equals ``value``, in file order."""
        meta = self._file.metadata
        column = self._file.schema_arrow.names[0]
        for group in range(meta.num_row_groups):
            stats = meta.row_group(group).column(0).statistics
            if stats is not None and stats.has_min_max:
                if value < stats.min:
                    return
                if value > stats.max:
                    continue
            table = self._file.read_row_group(group)
            mask = pc.equal(table.column(column), pa.scalar(value, table.schema.field(column).type))
            yield from table.filter(mask).to_pylist()
