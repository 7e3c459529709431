"""``gossamer webdb``: build from a crawl's crawldb and parse_data, then every read action."""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path

import pyarrow as pa
import pytest

from gossamer.core import DIGEST_KEY, CrawlDatum, CrawlStatus
from gossamer.store import PARSE_DATA_SCHEMA, SegmentWriter, datums_to_batch
from gossamer.webdb import Link, Page, WebDB
from tests.sql_crawl import write_table

A, B = "http://a.example/", "http://b.example/"
SIG_A, SIG_B = hashlib.md5(b"page a").digest(), hashlib.md5(b"page b").digest()
OLD_SIG_A = hashlib.md5(b"page a, an older version").digest()


def parse_row(url: str, signature: bytes, outlinks: list[tuple[str, str]]) -> dict[str, object]:
    return {"url": url, "status": 1, "title": url, "content_metadata": {DIGEST_KEY: signature.hex()},
            "parse_metadata": {}, "outlinks": [{"url": u, "anchor": a} for u, a in outlinks]}


def write_segment(root: Path, name: str, rows: list[dict[str, object]]) -> None:
    writer = SegmentWriter(root / "segments", name)
    writer.write_table("parse_data", pa.Table.from_pylist(rows, schema=PARSE_DATA_SCHEMA), 2,
                       lambda url: zlib.crc32(url.encode()), 1024, "zstd", "parse_data", schema=PARSE_DATA_SCHEMA)
    writer.commit()


@pytest.fixture
def crawl(tmp_path: Path) -> Path:
    root = tmp_path / "crawl"
    datums = [
        (A, CrawlDatum(status=CrawlStatus.DB_FETCHED, fetch_time=1000, retries=1, fetch_interval=2 * 86400,
                       score=2.5, signature=SIG_A)),
        (B, CrawlDatum(status=CrawlStatus.DB_FETCHED, fetch_time=2000, fetch_interval=86400, score=1.5,
                       signature=SIG_B)),
        ("http://c.example/", CrawlDatum(status=CrawlStatus.DB_UNFETCHED, fetch_time=3000, fetch_interval=86400)),
    ]
    write_table(root / "crawldb", pa.Table.from_batches([datums_to_batch(datums)]), "crawldb")
    write_segment(root, "20260101000000", [parse_row(A, OLD_SIG_A, [("http://gone.example/", "old")])])
    write_segment(root, "20260102000000", [parse_row(A, SIG_A, [(B, "to b"), ("http://c.example/", "to c")]),
                                           parse_row(B, SIG_B, [(A, "back to a")])])
    return root


def test_build_fills_pages_and_links(crawl: Path, cli) -> None:
    result = cli("webdb", "-d", crawl, "build", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert (report["pages"], report["links"], report["segments"], report["outlinks"]) == (3, 3, 2, 4)
    assert report["counters"]["links_refused"] == 1  # the older content of A no page holds
    with WebDB.open(crawl / "webdb").reader() as r:
        assert r.get_page(A) == Page(url=A, md5=SIG_A, fetch_time=1000, retries=1, interval=2,
                                     score=2.5, next_score=2.5)
        assert r.get_page("http://c.example/").md5 == bytes(16)  # type: ignore[union-attr]
        assert list(r.get_links(SIG_A)) == [Link(from_md5=SIG_A, to_url=B, anchor="to b"),
                                            Link(from_md5=SIG_A, to_url="http://c.example/", anchor="to c")]
        assert list(r.get_links(A)) == [Link(from_md5=SIG_B, to_url=A, anchor="back to a")]
    assert cli("webdb", "-d", crawl, "build").code == 0  # again: the same WebDB
    with WebDB.open(crawl / "webdb").reader() as r:
        assert (r.num_pages(), r.num_links()) == (3, 3)


def test_read_actions(crawl: Path, cli) -> None:
    assert cli("webdb", "-d", crawl, "stats").code == 2  # no WebDB yet
    assert cli("webdb", "-d", crawl, "build").code == 0
    assert cli("webdb", "-d", crawl, "stats").out.split() == ["pages", "3", "links", "3"]
    page = cli("webdb", "-d", crawl, "page", A)
    assert page.code == 0 and page.out.startswith(f"{A}\tmd5={SIG_A.hex()}\t")
    assert cli("webdb", "-d", crawl, "page", "http://nowhere/").code == 1
    assert cli("webdb", "-d", crawl, "pages", SIG_B.hex()).out.startswith(B)
    assert cli("webdb", "-d", crawl, "links", A).out.strip() == f"{SIG_B.hex()}\t{A}\tback to a"
    assert cli("webdb", "-d", crawl, "links-from", SIG_A.hex()).out.splitlines() == [
        f"{SIG_A.hex()}\t{B}\tto b", f"{SIG_A.hex()}\thttp://c.example/\tto c"]
    assert cli("webdb", "-d", crawl, "links-from", "xyz").code == 2
    assert cli("webdb", "-d", crawl, "page").code == 2
    assert cli("webdb", "-d", crawl, "frobnicate").code == 2
