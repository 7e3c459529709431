"""Per-segment (per-round) statistics for the dashboard, read-only, from a segment's Parquet tables.

One :class:`SegmentRow` per complete segment (``segments/<yyyyMMddHHmmss>``, oldest first):

* ``generated`` / ``parsed``: rows of ``crawl_generate`` / ``parse_data`` (their ``_table.json``);
  ``None`` when the table is missing or incomplete (no ``_SUCCESS``).
* ``fetched``: ``fetch_*`` rows of ``crawl_fetch`` (every fetch result, as ``readseg -list``
  counts them; ``linked`` redirect targets are not fetches); ``ok`` = fetch_success +
  fetch_notmodified; ``gone``, ``retry``, ``redirects`` (temp + perm) the other fetch results;
  ``fetch_start`` / ``fetch_end`` the least and greatest fetch time of those rows (epoch ms).
* ``parse_failed``: ``parse_failed`` rows of ``crawl_parse``.
* ``new_urls``: distinct outlink targets (``linked`` rows of ``crawl_parse``) seen in no earlier
  segment — neither generated, fetched nor linked there.  Seeds are not counted (they enter by
  injection, not as links), and URLs of segments that were deleted or merged away count again.
* ``size_bytes``: apparent size of every file under the segment directory.

Every function here is pure over the directory: it reads, never writes.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from gossamer.core import CrawlStatus
from gossamer.crawl.readdb import connect
from gossamer.store import DESCRIPTION_FILE, SUCCESS_MARKER, TableDescription, part_name

TABLES = ("crawl_generate", "crawl_fetch", "crawl_parse", "parse_data")
"""The tables a segment row is computed from (their ``_table.json`` mtimes key the cache)."""
_OK = (int(CrawlStatus.FETCH_SUCCESS), int(CrawlStatus.FETCH_NOTMODIFIED))
_REDIRECTS = (int(CrawlStatus.FETCH_REDIR_TEMP), int(CrawlStatus.FETCH_REDIR_PERM))
_FETCH_CODES = tuple(int(s) for s in CrawlStatus if s.name.startswith("FETCH_"))


@dataclass(frozen=True)
class SegmentRow:
    """What one segment (one crawl round) holds; see the module docstring for each field."""

    name: str
    generated: int | None
    fetched: int | None
    ok: int
    gone: int
    retry: int
    redirects: int
    parse_failed: int
    parsed: int | None
    fetch_start: int | None
    fetch_end: int | None
    size_bytes: int
    new_urls: int | None = None

    @property
    def pages_per_second(self) -> float | None:
        """``fetched`` ÷ (fetch end − fetch start) in seconds; ``None`` without a time span."""
        if not self.fetched or self.fetch_start is None or self.fetch_end is None:
            return None
        span = (self.fetch_end - self.fetch_start) / 1000
        return self.fetched / span if span > 0 else None

    @property
    def errors(self) -> int:
        """Fetches that did not give a page (gone, retry, redirect) plus parse failures."""
        return self.gone + self.retry + self.redirects + self.parse_failed

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (every field, plus ``pages_per_second`` and ``errors``)."""
        return {**asdict(self), "pages_per_second": self.pages_per_second, "errors": self.errors}


def complete_tables(segment: Path) -> dict[str, Path]:
    """The segment's complete tables among :data:`TABLES` (those with ``_SUCCESS``), by name."""
    return {t: segment / t for t in TABLES if (segment / t / SUCCESS_MARKER).is_file()}


def segment_key(segment: Path) -> tuple[object, ...]:
    """Cache key of a segment: name and each complete table's ``_table.json`` mtime (ns)."""
    key: list[object] = [segment.name]
    for table, path in complete_tables(segment).items():
        try:
            key.append((table, os.stat(path / DESCRIPTION_FILE).st_mtime_ns))
        except OSError:
            key.append((table, None))
    return tuple(key)


def _description(table: Path) -> TableDescription:
    return TableDescription.from_json((table / DESCRIPTION_FILE).read_text(encoding="utf-8"))


def _files(table: Path) -> list[str]:
    """The Parquet parts of a complete segment table (as ``_table.json`` lists them)."""
    parts = _description(table).parts
    return [str(table / part_name(i)) for i in range(parts) if (table / part_name(i)).is_file()]


def _sql_list(files: list[str]) -> str:
    return "[" + ", ".join("'" + f.replace("'", "''") + "'" for f in files) + "]"


def tree_size(path: Path) -> int:
    """Apparent size (bytes) of every file under ``path``."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def segment_row(segment: Path, memory_mb: int = 512) -> SegmentRow:
    """Statistics of one segment, without ``new_urls`` (see :func:`new_urls_per_segment`)."""
    tables = complete_tables(segment)
    generated = _description(tables["crawl_generate"]).rows if "crawl_generate" in tables else None
    parsed = _description(tables["parse_data"]).rows if "parse_data" in tables else None
    fetched: int | None = None
    counts: dict[int, int] = {}
    start = end = None
    con = connect(memory_mb)
    try:
        if "crawl_fetch" in tables and (files := _files(tables["crawl_fetch"])):
            rows = con.execute(
                f"SELECT status, count(*), epoch_ms(min(fetch_time)), epoch_ms(max(fetch_time)) "
                f"FROM read_parquet({_sql_list(files)}) WHERE status IN {_FETCH_CODES} GROUP BY 1").fetchall()
            counts = {int(s): int(n) for s, n, _, _ in rows}
            fetched = sum(counts.values())
            if rows:
                start = min(int(r[2]) for r in rows)
                end = max(int(r[3]) for r in rows)
        elif "crawl_fetch" in tables:
            fetched = 0
        parse_failed = 0
        if "crawl_parse" in tables and (files := _files(tables["crawl_parse"])):
            row = con.execute(f"SELECT count(*) FROM read_parquet({_sql_list(files)}) WHERE status = ?",
                              [int(CrawlStatus.PARSE_FAILED)]).fetchone()
            parse_failed = int(row[0]) if row else 0
    finally:
        con.close()
    return SegmentRow(
        name=segment.name, generated=generated, fetched=fetched,
        ok=sum(counts.get(c, 0) for c in _OK), gone=counts.get(int(CrawlStatus.FETCH_GONE), 0),
        retry=counts.get(int(CrawlStatus.FETCH_RETRY), 0),
        redirects=sum(counts.get(c, 0) for c in _REDIRECTS), parse_failed=parse_failed,
        parsed=parsed, fetch_start=start, fetch_end=end, size_bytes=tree_size(segment))


def new_urls_per_segment(segments: list[Path], memory_mb: int = 512) -> dict[str, int]:
    """Segment name → distinct ``linked`` targets first seen in it (module docstring); one DuckDB query.

    URLs are grouped by their 64-bit hash (collisions are negligible for a statistic).
    Segments without a complete ``crawl_parse`` map to 0.
    """
    selects: list[str] = []
    for index, segment in enumerate(segments):
        tables = complete_tables(segment)
        for table in ("crawl_generate", "crawl_fetch", "crawl_parse"):
            if table not in tables or not (files := _files(tables[table])):
                continue
            linked = table == "crawl_parse"
            where = f" WHERE status = {int(CrawlStatus.LINKED)}" if linked else ""
            selects.append(f"SELECT hash(url) AS h, {index} AS seg, {str(linked).lower()} AS linked "
                           f"FROM read_parquet({_sql_list(files)}){where}")
    found = {segment.name: 0 for segment in segments}
    if not selects:
        return found
    query = ("SELECT first, count(*) FROM (SELECT min(seg) AS first, min(CASE WHEN linked THEN seg END) AS "
             f"first_linked FROM ({' UNION ALL '.join(selects)}) GROUP BY h) WHERE first = first_linked GROUP BY 1")
    con = connect(memory_mb)
    try:
        for index, count in con.execute(query).fetchall():
            found[segments[int(index)].name] = int(count)
    finally:
        con.close()
    return found
