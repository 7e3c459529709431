"""Small segments and readers for the web graph tests (parse_data with fetch times, crawl_fetch)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from gossamer.core import CrawlDatum, CrawlStatus
from gossamer.core.settings import Settings
from gossamer.store import SegmentWriter, TableVersion, datums_to_batch, open_live, partition_key_function
from gossamer.store.parse_schemas import PARSE_DATA_SCHEMA

T0 = 1_790_000_000_000
"""A fetch time (ms) for the first segment; later segments add hours."""


@dataclass
class Page:
    """One fetched page of a test segment: its links (target, anchor) and how it went."""

    url: str
    links: list[tuple[str, str]] = field(default_factory=list)
    fetch_time: int = T0
    status: CrawlStatus = CrawlStatus.FETCH_SUCCESS
    parsed: bool = True
    meta: dict[str, str] | None = None


def write_segment(segments: Path, name: str, pages: list[Page], parts: int = 2) -> Path:
    """A committed segment with crawl_fetch (every page) and parse_data (pages fetched and parsed)."""
    writer = SegmentWriter(segments, name)
    key = partition_key_function("byHost")
    fetched = [(p.url, CrawlDatum(p.status, p.fetch_time, 0, 2592000, 1.0)) for p in pages]
    writer.write_table("crawl_fetch", pa.Table.from_batches([datums_to_batch(fetched)]), parts, key, 1024,
                       "zstd", "crawl_fetch")
    rows = [{"url": p.url, "status": 1 if p.parsed else 2, "title": "", "outlinks": [
        {"url": to, "anchor": anchor} for to, anchor in p.links],
        "content_metadata": list((p.meta if p.meta is not None else {"_ftk_": str(p.fetch_time)}).items())}
        for p in pages if p.status == CrawlStatus.FETCH_SUCCESS]
    writer.write_table("parse_data", pa.Table.from_pylist(rows, schema=PARSE_DATA_SCHEMA), parts, key, 1024,
                       "zstd", "parse_data", schema=PARSE_DATA_SCHEMA)
    return Path(writer.commit())


def conf(**values: object) -> Settings:
    """Settings with ``link_ignore_internal_host=False`` style keyword overrides (``_`` → ``.``)."""
    return Settings().with_values(((k.replace("_", "."), v) for k, v in values.items()), "test")


def read_table(directory: Path) -> list[dict]:
    """Every row of a live table, part after part, with ``_part`` and ``_row`` (its place)."""
    rows = []
    with open_live(directory) as version:
        for part in range(version.parts):
            row = 0
            for batch in version.iter_part(part):
                for item in batch.to_pylist():
                    rows.append({**item, "_part": part, "_row": row})
                    row += 1
    return rows


def links_of(webgraph: Path) -> set[tuple[str, str]]:
    """The (source, target) pairs of the outlinks table."""
    return {(r["url"], r["to_url"]) for r in read_table(webgraph / "outlinks")}


def description(directory: Path):
    """The live version's description."""
    with open_live(directory) as version:
        return version.description


__all__ = ["T0", "Page", "TableVersion", "conf", "description", "links_of", "read_table", "write_segment"]
