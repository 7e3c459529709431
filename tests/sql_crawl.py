"""A small crawl written straight through gossamer.store, on a local path or any place (S3 …).

Two hosts, a crawldb in every status the queries ask about, a linkdb and two segments with all
five sub-tables (one fetch failed with its protocol status), so every view has rows.
"""

from __future__ import annotations

import zlib

import pyarrow as pa

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.store import (
    CRAWLDB_SCHEMA,
    LINKDB_SCHEMA,
    PARSE_DATA_SCHEMA,
    PARSE_TEXT_SCHEMA,
    PartWriter,
    Place,
    SegmentWriter,
    TableDescription,
    datums_to_batch,
    finish_version,
    install,
    new_staging_dir,
    part_of_url,
)

A, B = "http://a.example", "http://b.example"
PST_404 = "notfound(14), lastModified=0: Http code=404"
SEGMENTS = ("20260101000000", "20260102000000")
DB_ROWS = [  # url, status, _pst_
    (f"{A}/", CrawlStatus.DB_FETCHED, "success(1), lastModified=0"),
    (f"{A}/one", CrawlStatus.DB_FETCHED, "success(1), lastModified=0"),
    (f"{A}/missing", CrawlStatus.DB_GONE, PST_404),
    (f"{A}/later", CrawlStatus.DB_UNFETCHED, None),
    (f"{B}/", CrawlStatus.DB_FETCHED, "success(1), lastModified=0"),
    (f"{B}/x", CrawlStatus.DB_UNFETCHED, None),
    (f"{B}/y", CrawlStatus.DB_UNFETCHED, None),
    (f"{B}/z", CrawlStatus.DB_UNFETCHED, None),
]
FETCHES = {  # segment -> url, fetch status, _pst_
    SEGMENTS[0]: [(f"{A}/", CrawlStatus.FETCH_SUCCESS, "success(1), lastModified=0"),
                  (f"{B}/", CrawlStatus.FETCH_SUCCESS, "success(1), lastModified=0")],
    SEGMENTS[1]: [(f"{A}/one", CrawlStatus.FETCH_SUCCESS, "success(1), lastModified=0"),
                  (f"{A}/missing", CrawlStatus.FETCH_GONE, PST_404)],
}
LINKS = {f"{A}/one": [(f"{A}/", "one"), (f"{B}/", "the first")], f"{B}/x": [(f"{B}/", "x")]}
PARTS = 2


def datum(status: int, pst: str | None) -> CrawlDatum:
    return CrawlDatum(status=status, fetch_time=1_767_225_600_000, metadata={"_pst_": pst} if pst else {})


def write_table(table: Place, rows: pa.Table, kind: str) -> None:
    """Install ``rows`` as the table's next live version (host-hash parts sorted by URL)."""
    staging = new_staging_dir(table)
    parts = [part_of_url(url, PARTS) for url in rows.column("url").to_pylist()]
    for part in range(PARTS):
        mine = rows.filter(pa.array([p == part for p in parts])).sort_by("url")
        writer = PartWriter(staging / f"part-{part:05d}.parquet", rows.schema, 1024, "zstd")
        for batch in mine.to_batches():
            writer.write(batch)
        writer.close()
    finish_version(staging, TableDescription(kind=kind, parts=PARTS, rows=rows.num_rows))
    install(table, staging)


def crawldb_rows(rows: list[tuple[str, int, str | None]]) -> pa.Table:
    return pa.Table.from_batches([datums_to_batch([(url, datum(s, pst)) for url, s, pst in rows])])


def write_crawldb(root: Place, rows: list[tuple[str, int, str | None]] = DB_ROWS) -> None:
    write_table(root / "crawldb", crawldb_rows(rows), "crawldb")


def build_crawl(root: Place) -> Place:
    """Write the crawl under ``root`` (a local path or a Location); ``root``."""
    write_crawldb(root)
    links = [{"url": url, "inlinks": [{"from_url": f, "anchor": a} for f, a in inlinks]}
             for url, inlinks in LINKS.items()]
    write_table(root / "linkdb", pa.Table.from_pylist(links, schema=LINKDB_SCHEMA), "linkdb")
    for name, fetched in FETCHES.items():
        writer = SegmentWriter(root / "segments", name)
        generated = crawldb_rows([(url, CrawlStatus.DB_UNFETCHED, None) for url, _, _ in fetched])
        pages = [(url, status == CrawlStatus.FETCH_SUCCESS) for url, status, _ in fetched]
        parse_data = pa.Table.from_pylist(
            [{"url": url, "status": 1, "title": f"title of {url}", "outlinks": [], "content_metadata": {},
              "parse_metadata": {}} for url, ok in pages if ok], schema=PARSE_DATA_SCHEMA)
        parse_text = pa.Table.from_pylist([{"url": url, "text": f"text of {url}"} for url, ok in pages if ok],
                                          schema=PARSE_TEXT_SCHEMA)
        crawl_parse = crawldb_rows([(url, CrawlStatus.LINKED, None) for url in LINKS])
        # crawl_generate's _SUCCESS last: on S3 it makes the segment exist
        tables = [("crawl_fetch", crawldb_rows(fetched), CRAWLDB_SCHEMA),
                  ("parse_data", parse_data, PARSE_DATA_SCHEMA), ("parse_text", parse_text, PARSE_TEXT_SCHEMA),
                  ("crawl_parse", crawl_parse, CRAWLDB_SCHEMA), ("crawl_generate", generated, CRAWLDB_SCHEMA)]
        for sub, rows, schema in tables:
            writer.write_table(sub, rows, PARTS, lambda url: zlib.crc32(url.encode()), 1024, "zstd", sub,
                               schema=schema)
        writer.commit()
    return root
