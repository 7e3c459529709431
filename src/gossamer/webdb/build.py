"""Fill a crawl's WebDB (``<crawl>/webdb``) from its crawldb and its segments' parse_data.

* every crawldb entry becomes a :class:`Page` through ``add_page`` (so a rebuild keeps the
  link-analysis scores the WebDB already holds): ``md5`` is the entry's signature (16 zero
  bytes while the page has none, i.e. is not fetched yet; the MD5 of a signature of another
  length), ``fetch_time``, ``retries``, ``interval`` (the fetch interval in whole days) and
  ``score`` (also the first ``next_score``);
* every outlink of every parse_data row becomes a :class:`Link` from the parsed content's
  signature (the ``nutch.content.digest`` the parser recorded) to the outlink URL, with its
  anchor.  Segments are read oldest first; a link from content that no page holds any more
  (the page changed since) is refused by the WebDB's own rule and counted.

Everything goes through one writer, so the whole build is one sort-merge and one install.
The crawl loop calls it with a round's segments when ``webdb.update`` is on: an incremental update.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import DIGEST_KEY, Report, Settings
from gossamer.store import (
    CrawlLayout,
    Place,
    TableVersion,
    batch_to_datums,
    list_segments,
    open_live,
    table_present,
)
from gossamer.webdb.db import WebDB
from gossamer.webdb.records import MD5_BYTES, Link, Page

NO_CONTENT = bytes(MD5_BYTES)
"""The ``md5`` of a page the crawl has not fetched (no signature yet)."""
_DAY_SECONDS = 86_400


@dataclass
class BuildReport(Report):
    """What ``gossamer webdb build`` read and what the WebDB holds afterwards."""

    crawldb_pages: int = 0
    segments: int = 0
    parsed_pages: int = 0
    outlinks: int = 0
    without_digest: int = 0
    counters: dict[str, int] = field(default_factory=dict)
    pages: int = 0
    links: int = 0


def content_md5(signature: bytes | None) -> bytes:
    """The WebDB ``md5`` of a crawldb signature."""
    if not signature:
        return NO_CONTENT
    return signature if len(signature) == MD5_BYTES else hashlib.md5(signature).digest()


def _digest(metadata: list[tuple[str, str]] | None) -> bytes | None:
    for key, value in metadata or ():
        if key == DIGEST_KEY:
            try:
                return content_md5(bytes.fromhex(value))
            except ValueError:
                return None
    return None


def _touched_urls(segments: Sequence[Place]) -> pa.Array:
    """The URLs the segments' crawl_fetch and crawl_parse hold (fetched or tried; link targets), as one array."""
    chunks = []
    for segment in segments:
        for table in ("crawl_fetch", "crawl_parse"):
            if table_present(segment / table):
                with TableVersion(segment / table) as version:
                    chunks += [batch.column("url") for batch in version.iter_batches(columns=["url"])]
    return pc.unique(pa.concat_arrays(chunks)) if chunks else pa.array([], pa.string())


def build_webdb(crawl_dir: Path, settings: Settings, segments: Sequence[Place] | None = None) -> BuildReport:
    """Add the crawl's pages and links to ``<crawl_dir>/webdb`` (created when absent).

    With ``segments`` (the crawl loop's ``webdb.update``), only what those segments changed:
    the crawldb entries of the URLs their crawl_fetch and crawl_parse hold (fetched pages, new
    link targets) and the links of their parse_data;
    the crawldb is still scanned once, but filtered in Arrow, so only those rows become pages.
    """
    layout = CrawlLayout(Path(crawl_dir))
    report = BuildReport()
    db = WebDB.open(layout.root / "webdb", settings)
    chosen = sorted(list_segments(layout.segments) if segments is None else segments, key=lambda s: s.name)
    wanted = None if segments is None else _touched_urls(chosen)
    with open_live(layout.crawldb) as crawldb, db.writer() as writer:
        for batch in crawldb.iter_batches():
            if wanted is not None:
                batch = batch.filter(pc.is_in(batch.column("url"), value_set=wanted))
            for url, datum in batch_to_datums(batch):
                writer.add_page(Page(url=url, md5=content_md5(datum.signature), fetch_time=datum.fetch_time,
                                     retries=min(datum.retries, 32767),
                                     interval=round(datum.fetch_interval / _DAY_SECONDS),
                                     score=datum.score, next_score=datum.score))
                report.crawldb_pages += 1
        for segment in chosen:
            parse_data = segment / "parse_data"
            if not table_present(parse_data):
                continue
            report.segments += 1
            with TableVersion(parse_data) as version:
                for batch in version.iter_batches(columns=["url", "outlinks", "content_metadata"]):
                    for row in batch.to_pylist():
                        report.parsed_pages += 1
                        source = _digest(row["content_metadata"])
                        if source is None:
                            report.without_digest += 1
                            continue
                        for outlink in row["outlinks"] or ():
                            writer.add_link(Link(from_md5=source, to_url=outlink["url"],
                                                 anchor=outlink["anchor"] or ""))
                            report.outlinks += 1
    report.counters = dict(writer.report.counters)
    report.pages, report.links = writer.report.pages, writer.report.links
    return report
