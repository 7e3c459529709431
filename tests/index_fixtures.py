"""Build small crawls with an index for the index and search tests.

``make_crawl`` writes a real crawl directory: seeds injected into a crawldb, one
segment whose crawl_fetch / parse_data / parse_text hold the given pages, the
crawldb updated from it, the linkdb inverted from its outlinks, and the index
built with ``index.shards`` shards — every step through the library API the
commands use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from gossamer.core import CrawlDatum, CrawlStatus, now_millis
from gossamer.core.settings import Settings, load_settings
from gossamer.store.crawldb_schema import datums_to_batch
from gossamer.store.parse_schemas import PARSE_DATA_SCHEMA, PARSE_TEXT_SCHEMA
from gossamer.store.segments import SegmentWriter, partition_key_function


@dataclass
class Page:
    url: str
    title: str
    text: str
    outlinks: list[tuple[str, str]] = field(default_factory=list)
    status: int = CrawlStatus.FETCH_SUCCESS
    meta: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})


def settings_for_test(root: Path, **values: object) -> Settings:
    base = {"http.agent.name": "test", "db.ignore.external.links": False, "engine.local.workers": 1,
            "linkdb.ignore.internal.links": False}
    base.update(values)
    return load_settings(root).with_values(list(base.items()), "test")


def write_segment(segments: Path, name: str, pages: list[Page]) -> Path:
    writer = SegmentWriter(segments, name)
    key = partition_key_function("byHost")
    now = now_millis()
    fetch = [(p.url, CrawlDatum(status=p.status, fetch_time=now, score=1.0)) for p in pages]
    fetched = [p for p in pages if p.status == CrawlStatus.FETCH_SUCCESS]
    data = pa.Table.from_pylist([{
        "url": p.url, "status": 1, "status_message": None, "title": p.title,
        "outlinks": [{"url": u, "anchor": a} for u, a in p.outlinks],
        "content_metadata": list(p.headers.items()), "parse_metadata": list(p.meta.items()) or None,
    } for p in fetched], schema=PARSE_DATA_SCHEMA)
    text = pa.Table.from_pylist([{"url": p.url, "text": p.text} for p in fetched], schema=PARSE_TEXT_SCHEMA)
    writer.write_table("crawl_fetch", pa.Table.from_batches([datums_to_batch(fetch)]), 2, key, 1024, "zstd",
                       "crawl_fetch")
    writer.write_table("parse_data", data, 2, key, 1024, "zstd", "parse_data", schema=PARSE_DATA_SCHEMA)
    writer.write_table("parse_text", text, 2, key, 1024, "zstd", "parse_text", schema=PARSE_TEXT_SCHEMA)
    writer.write_table("crawl_parse", pa.Table.from_batches([datums_to_batch([])]), 2, key, 1024, "zstd",
                       "crawl_parse")
    return writer.commit()


def make_crawl(root: Path, pages: list[Page], shards: int = 1, index: bool = True,
               **settings: object) -> tuple[Path, Settings]:
    """A crawl directory with crawldb, one segment, linkdb and (``index``) an index of ``shards`` shards."""
    from gossamer.crawl.inject.injector import inject
    from gossamer.crawl.linkdb.jobs import invert_links
    from gossamer.crawl.updatedb.updater import updatedb
    from gossamer.index.documents import IndexOptions
    from gossamer.index.indexer import index as run_index

    root.mkdir(parents=True, exist_ok=True)
    conf = settings_for_test(root, **{"index.shards": shards, **settings})
    seeds = root / "seeds.txt"
    seeds.write_text("".join(p.url + "\n" for p in pages), encoding="utf-8")
    inject(root / "crawldb", seeds, conf)
    segment = write_segment(root / "segments", "20260101000000", pages)
    updatedb(root / "crawldb", [segment], conf)
    invert_links(root / "linkdb", [segment], conf)
    if index:
        run_index(root / "index", root / "crawldb", root / "linkdb", [segment], conf, IndexOptions(delete_gone=True))
    return root, conf
