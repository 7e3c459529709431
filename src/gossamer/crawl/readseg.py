"""``readseg``: list segments, dump them, or show everything a segment holds about one URL.

A segment's tables are read as they are (Parquet parts, WARC content); the
text layout follows Nutch's SegmentReader: per URL a ``Recno::`` / ``URL::``
header, then one section per table (``CrawlDatum::`` for crawl_generate,
crawl_fetch and crawl_parse, ``Content::``, ``ParseData::``, ``ParseText::``).
Rows of datum tables print as :meth:`~gossamer.core.datum.CrawlDatum.to_text`
does; parse_data and parse_text as Nutch's ``ParseData`` / ``ParseText`` print
(``Status: success(1)``, ``outlink: toUrl: … anchor: …``, the text alone); other
tables print ``name: value`` lines, so new columns show up without changes here.
The dump groups records by URL in URL order with a streaming k-way merge of the
sorted tables; WARC content is found through an in-memory index of record
offsets (a few dozen bytes per record).

A segment may be a local path or a :class:`~gossamer.store.location.Location`
(``s3://`` …): tables are read through its filesystem, a table without ``_SUCCESS``
counts as absent, and WARC files are read from temporary local copies (kept while
the command runs).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from fastwarc.warc import ArchiveIterator, WarcRecordType

from gossamer.core import CrawlStatus
from gossamer.store import (
    SUCCESS_MARKER,
    Place,
    TableVersion,
    as_place,
    batch_to_datums,
    local_copy,
    read_parquet_file,
    table_present,
    warc_files,
)

DATUM_TABLES = ("crawl_generate", "crawl_fetch", "crawl_parse")
ROW_TABLES = ("parse_data", "parse_text")
SECTIONS = ("crawl_generate", "crawl_fetch", "content", "crawl_parse", "parse_data", "parse_text")
"""Every part of a segment, in the order sections are printed."""
FETCH_STATUS_CODES = pa.array([int(s) for s in CrawlStatus if s.name.startswith("FETCH_")], pa.uint8())
SECTION_TITLES = {"crawl_generate": "CrawlDatum", "crawl_fetch": "CrawlDatum", "crawl_parse": "CrawlDatum",
                  "content": "Content", "parse_data": "ParseData", "parse_text": "ParseText"}


@dataclass
class SegmentInfo:
    """One line of ``readseg -list``."""

    name: str
    generated: int | None
    fetcher_start: int | None
    fetcher_end: int | None
    fetched: int | None
    parsed: int | None


def _complete(segment: Place, table: str) -> bool:
    return table_present(segment / table) and (segment / table / SUCCESS_MARKER).is_file()


def segment_info(segment: Place) -> SegmentInfo:
    """Counts and fetch time range of a segment (None for parts it does not have)."""
    generated = TableVersion(segment / "crawl_generate").num_rows() if _complete(segment, "crawl_generate") else None
    start = end = fetched = parsed = None
    if _complete(segment, "crawl_fetch"):
        with TableVersion(segment / "crawl_fetch") as version:
            times = [read_parquet_file(p, columns=["fetch_time", "status"]) for p in version.part_paths()]
            table = pa.concat_tables(times) if times else None
            fetched = 0
            if table is not None and table.num_rows:  # fetch_* rows only (not linked redirect targets)
                table = table.filter(pc.is_in(table.column("status"), value_set=FETCH_STATUS_CODES))
                fetched = table.num_rows
            if table is not None and table.num_rows:
                stamps = table.column("fetch_time").cast(pa.int64())
                start, end = pc.min(stamps).as_py(), pc.max(stamps).as_py()
    if _complete(segment, "parse_data"):
        parsed = TableVersion(segment / "parse_data").num_rows()
    return SegmentInfo(segment.name, generated, start, end, fetched, parsed)


def _text_value(value: object) -> str:
    """A cell as plain text (never a Python repr): ``k=v`` pairs for maps and structs, ``""`` for null."""
    if value is None:
        return ""
    if isinstance(value, list) and value and isinstance(value[0], tuple):  # Arrow map
        return " ".join(f"{k}={_text_value(v)}" for k, v in value)  # type: ignore[misc]
    if isinstance(value, dict):
        return " ".join(f"{k}: {_text_value(v)}" for k, v in value.items())
    return str(value)


def _format_row(row: dict[str, object]) -> str:
    """``name: value`` lines of a row of any table (lists as a count and one indented line per item)."""
    lines = []
    for name, value in row.items():
        if name == "url":
            continue
        if isinstance(value, list) and not (value and isinstance(value[0], tuple)):
            lines.append(f"{name}: {len(value)}")
            lines.extend(f"  {_text_value(item)}" for item in value)
        else:
            lines.append(f"{name}: {_text_value(value)}")
    return "\n".join(lines) + "\n"


def _metadata_text(value: object) -> str:
    """Nutch's ``Metadata.toString``: ``name=value `` for every value."""
    pairs = value if isinstance(value, list) else list(value.items()) if isinstance(value, dict) else []
    return "".join(f"{k}={v} " for k, v in pairs)


def format_parse_data(row: dict[str, object]) -> str:
    """A parse_data row as Nutch's ``ParseData.toString`` prints it (``Status: success(1)``, ``outlink: toUrl: …``).

    Columns Nutch does not have are added as ``name: value`` lines, so new columns still show.
    """
    from gossamer.core import ParseStatusCode

    code = row.get("status")
    try:
        status = f"{ParseStatusCode(int(code)).name.lower()}({code})"  # type: ignore[arg-type]
    except (TypeError, ValueError):
        status = str(code)
    if row.get("status_message"):
        status += f": {row['status_message']}"
    outlinks = row.get("outlinks") or []
    lines = ["Version: 5", f"Status: {status}", f"Title: {row.get('title') or ''}",
             f"Outlinks: {len(outlinks)}"]  # type: ignore[arg-type]
    for link in outlinks:  # type: ignore[attr-defined]
        lines.append(f"  outlink: toUrl: {link.get('url')} anchor: {link.get('anchor') or ''}")
    lines.append(f"Content Metadata: {_metadata_text(row.get('content_metadata'))}")
    lines.append(f"Parse Metadata: {_metadata_text(row.get('parse_metadata'))}")
    known = {"url", "status", "status_message", "title", "outlinks", "content_metadata", "parse_metadata"}
    extra = {k: v for k, v in row.items() if k not in known}
    return "\n".join(lines) + "\n" + (_format_row(extra) if extra else "")


def format_parse_text(row: dict[str, object]) -> str:
    """A parse_text row as Nutch prints it: the text alone."""
    return f"{row.get('text') or ''}\n"


ROW_FORMATS = {"parse_data": format_parse_data, "parse_text": format_parse_text}


def _texts(table: str, data: pa.Table | pa.RecordBatch) -> Iterator[tuple[str, str]]:
    """``(url, text)`` for every row of ``data``, a piece of ``table``."""
    if table in DATUM_TABLES:
        for key, datum in batch_to_datums(data):
            yield key, datum.to_text()
    else:
        render = ROW_FORMATS.get(table, _format_row)
        for row in data.to_pylist():
            yield str(row["url"]), render(row)


def _table_rows(segment: Place, table: str, url: str) -> Iterator[tuple[str, str]]:
    """``(url, text)`` of the rows of ``url`` in a table (row groups skipped by their statistics)."""
    if not _complete(segment, table):
        return
    with TableVersion(segment / table) as version:
        for path in version.part_paths():
            yield from _texts(table, read_parquet_file(path, filters=[("url", "=", url)]))


def _sorted_table(segment: Place, table: str) -> Iterator[tuple[str, str]]:
    """All rows of a table in URL order across parts (a streaming merge of the sorted parts)."""
    if not _complete(segment, table):
        return iter(())
    with TableVersion(segment / table) as version:
        parts = version.parts
    return heapq.merge(*(_part_rows(segment, table, i) for i in range(parts)), key=lambda pair: pair[0])


def _part_rows(segment: Place, table: str, index: int) -> Iterator[tuple[str, str]]:
    with TableVersion(segment / table) as version:
        if table == "crawl_generate":  # stored in fetch order: sort it (fetch lists are bounded by -topN)
            data = read_parquet_file(version.part_path(index))
            yield from _texts(table, data.take(pc.sort_indices(data, [("url", "ascending")])))
            return
        for batch in version.iter_part(index, 1024):
            yield from _texts(table, batch)


@contextmanager
def content_records(segment: Place, wanted: bool = True) -> Iterator[dict[str, list[tuple[Path, int]]]]:
    """URL → (local WARC file, offset) of its response records, valid inside the ``with`` block.

    A remote segment's WARC files are downloaded into temporary directories removed at
    the end of the block, and count only once its fetch is committed
    (``crawl_fetch/_SUCCESS``).  ``wanted=False`` yields an empty index.
    """
    segment = as_place(segment)
    files = [p for p in warc_files(segment / "content") if p.name.endswith(".warc.gz")] if wanted else []
    if not segment.is_local and not table_present(segment / "crawl_fetch"):
        files = []
    with ExitStack() as copies:
        yield content_index([copies.enter_context(local_copy(path)) for path in files])


def content_index(files: list[Path]) -> dict[str, list[tuple[Path, int]]]:
    """URL → (WARC file, offset) of the response records of local WARC files."""
    index: dict[str, list[tuple[Path, int]]] = {}
    for path in files:
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=False):
                target = record.headers.get("WARC-Target-URI", "")
                index.setdefault(target, []).append((path, record.stream_pos))
    return index


def content_text(path: Path, offset: int, limit: int = 1 << 20) -> str:
    """The HTTP response of the WARC record at ``offset``: status line, headers and body (decoded as text)."""
    with open(path, "rb") as stream:
        stream.seek(offset)
        for record in ArchiveIterator(stream, parse_http=True):
            http = record.http_headers
            head = [http.status_line] + [f"{k}: {v}" for k, v in http.items()] if http is not None else []
            body = record.reader.read(limit)
            lines = [f"Version: {record.headers.get('WARC-Type', '')}", f"url: {record.headers.get('WARC-Target-URI')}",
                     f"date: {record.headers.get('WARC-Date', '')}", *head, "Content:",
                     body.decode("utf-8", errors="replace")]
            return "\n".join(lines) + "\n"
    return ""


def records_for(segment: Place, url: str, sections: tuple[str, ...] = SECTIONS) -> dict[str, list[str]]:
    """Every record of ``url`` per section (``readseg -get``)."""
    found: dict[str, list[str]] = {}
    for section in sections:
        if section == "content":
            with content_records(segment) as content:
                texts = [content_text(p, o) for p, o in content.get(url, [])]
        else:
            texts = [text for _, text in _table_rows(segment, section, url)]
        if texts:
            found[section] = texts
    return found


def format_records(url: str, records: dict[str, list[str]], recno: int | None = None) -> str:
    """Nutch's per-URL text block."""
    out = [] if recno is None else [f"Recno:: {recno}"]
    out.append(f"URL:: {url}\n")
    for section in SECTIONS:
        for text in records.get(section, []):
            out.append(f"{SECTION_TITLES[section]}::\n{text}")
    return "\n".join(out) + "\n"


def _ranked(rows: Iterator[tuple[str, str]], rank: int) -> Iterator[tuple[str, int, str]]:
    for url, text in rows:
        yield url, rank, text


def dump_segment(segment: Place, output: Path, sections: tuple[str, ...] = SECTIONS) -> int:
    """Write every URL's records to ``output/dump`` in URL order; returns the number of URLs."""
    output.mkdir(parents=True, exist_ok=True)
    streams = [_ranked(_sorted_table(segment, section), rank)
               for rank, section in enumerate(SECTIONS) if section in sections and section != "content"]
    count = 0
    with content_records(segment, "content" in sections) as content, \
            open(output / "dump", "w", encoding="utf-8") as handle:
        current: str | None = None
        records: dict[str, list[str]] = {}

        def flush() -> None:
            nonlocal count
            if current is None:
                return
            for path, offset in content.pop(current, []):
                records.setdefault("content", []).append(content_text(path, offset))
            handle.write(format_records(current, records, count))
            count += 1

        for url, rank, text in heapq.merge(*streams):
            if url != current:
                flush()
                current, records = url, {}
            records.setdefault(SECTIONS[rank], []).append(text)
        flush()
        for url in sorted(content):  # content without any table row (should not happen)
            current, records = url, {}
            flush()
    return count
