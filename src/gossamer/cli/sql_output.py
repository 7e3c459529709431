"""Results of ``gossamer sql`` on stdout: an aligned table, CSV or JSON Lines.

* ``table`` — a header, a rule and one line per row; columns aligned (numbers to the right),
  NULL as ``NULL``, line breaks and tabs as spaces, cells cut to ``max_width`` characters
  (``…``; 0 = never). Reads the whole result first (to size the columns): for reading.
* ``csv`` — RFC 4180 with a header line; NULL is an empty field; lists, structs and maps are
  JSON text; every value whole. Streams.
* ``json`` — JSON Lines: one object per row, column name → value; timestamps in ISO 8601,
  binary as hex, maps as objects. Streams.

Every format writes binary values as hex and timestamps in ISO 8601.
"""

from __future__ import annotations

import csv
import datetime as dt
import decimal
import json
import math
import uuid
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # duckdb is imported when a query runs: every other command's start-up skips it (~0.1 s)
    import duckdb

FORMATS = ("table", "csv", "json")
BATCH_ROWS = 2048
SILENT_STATEMENTS = frozenset({"CREATE", "CREATE_FUNC", "DROP", "ALTER", "SET", "VARIABLE_SET", "TRANSACTION",
                               "ATTACH", "DETACH", "LOAD", "EXTENSION", "PREPARE", "EXPORT", "COPY_DATABASE",
                               "ANALYZE", "VACUUM"})
"""Statements whose result is no data (DuckDB answers some of them with a ``Success`` column): nothing printed."""


def execute(con: duckdb.DuckDBPyConnection, sql: str, fmt: str, out: TextIO, max_width: int = 80) -> int | None:
    """Run ``sql`` (one or more statements) and write the last one's result; its number of rows.

    ``None`` when the last statement yields no data (``CREATE``, ``SET`` …): nothing is written.
    Raises :class:`duckdb.Error` for bad SQL or a failing query.
    """
    import duckdb

    statements = duckdb.extract_statements(sql)
    con.execute(sql)
    if statements and statements[-1].type.name in SILENT_STATEMENTS:
        return None
    return write_result(con, fmt, out, max_width)


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data (recursively): ISO 8601 times, hex binary, NaN as None."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, decimal.Decimal | uuid.UUID | dt.timedelta):
        return str(value)
    return str(value)


def text(value: Any) -> str:
    """One value as text: strings as they are, nested values as JSON, NULL as ``""``."""
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _batches(con: duckdb.DuckDBPyConnection) -> Iterator[list[tuple[Any, ...]]]:
    while batch := con.fetchmany(BATCH_ROWS):
        yield batch


def _cell(value: Any, max_width: int) -> str:
    shown = "NULL" if value is None else " ".join(text(value).split("\n")).replace("\t", " ").replace("\r", " ")
    if max_width > 0 and len(shown) > max_width:
        shown = shown[: max(max_width - 1, 0)] + "…"
    return shown


def _numeric(values: list[Any]) -> bool:
    """Whether a column's non-NULL values are all numbers (and there is one): aligned right."""
    return bool(values) and all(isinstance(v, int | float | decimal.Decimal) and not isinstance(v, bool)
                                for v in values)


def _write_table(con: duckdb.DuckDBPyConnection, names: Sequence[str], out: TextIO, max_width: int) -> int:
    rows = [row for batch in _batches(con) for row in batch]
    cells = [[_cell(value, max_width) for value in row] for row in rows]
    numeric = [_numeric([row[i] for row in rows if row[i] is not None]) for i in range(len(names))]
    widths = [max([len(name), *(len(line[i]) for line in cells)]) for i, name in enumerate(names)]
    out.write("  ".join(name.ljust(width) for name, width in zip(names, widths, strict=True)).rstrip() + "\n")
    out.write("  ".join("-" * width for width in widths) + "\n")
    for line in cells:
        out.write("  ".join(cell.rjust(width) if right else cell.ljust(width)
                            for cell, width, right in zip(line, widths, numeric, strict=True)).rstrip() + "\n")
    return len(rows)


def write_result(con: duckdb.DuckDBPyConnection, fmt: str, out: TextIO, max_width: int = 80) -> int | None:
    """Write the result of the statement ``con`` just executed; the number of rows.

    ``None`` when the statement has no result set (``SET``, ``CREATE VIEW`` …): nothing is written.
    """
    if con.description is None:
        return None
    names = [column[0] for column in con.description]
    if fmt == "table":
        return _write_table(con, names, out, max_width)
    count = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(names)
        for batch in _batches(con):
            writer.writerows([text(value) if value is not None else "" for value in row] for row in batch)
            count += len(batch)
        return count
    for batch in _batches(con):
        for row in batch:
            out.write(json.dumps({name: plain(value) for name, value in zip(names, row, strict=True)},
                                 ensure_ascii=False) + "\n")
        count += len(batch)
    return count
