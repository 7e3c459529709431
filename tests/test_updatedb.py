import hashlib
from pathlib import Path

import pyarrow as pa

from gossamer.core import CrawlDatum, CrawlStatus, now_millis
from gossamer.store.crawldb_schema import datums_to_batch
from gossamer.store.segments import SegmentWriter, partition_key_function

from .conftest import stats_value, write_lines


def write_segment(segments: Path, name: str, fetch: list, parse: list) -> Path:
    writer = SegmentWriter(segments, name)
    key = partition_key_function("byHost")
    for sub, rows in (("crawl_fetch", fetch), ("crawl_parse", parse)):
        writer.write_table(sub, pa.Table.from_batches([datums_to_batch(rows)]), 2, key, 1024, "zstd", sub)
    return writer.commit()


def status_of(cli, crawldb: Path, url: str) -> str:
    out = cli("readdb", crawldb, "-url", url).out
    return next(line for line in out.splitlines() if line.startswith("Status:"))


def test_updatedb_applies_fetch_and_parse_results(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawl" / "crawldb"
    seeds = ["http://a.example/", "http://b.example/", "http://c.example/"]
    assert cli("inject", crawldb, write_lines(tmp_path / "s.txt", seeds)).code == 0
    now = now_millis()
    sig = hashlib.md5(b"page a").digest()
    fetch = [("http://a.example/", CrawlDatum(CrawlStatus.FETCH_SUCCESS, now, 0, 2592000, 1.0)),
             ("http://b.example/", CrawlDatum(CrawlStatus.FETCH_GONE, now, 0, 2592000, 1.0))]
    parse = [("http://a.example/", CrawlDatum(CrawlStatus.SIGNATURE, now, signature=sig)),
             ("http://new.example/x", CrawlDatum(CrawlStatus.LINKED, now, 0, 2592000, 0.5))]
    segment = write_segment(tmp_path / "crawl" / "segments", "20261122000000", fetch, parse)
    result = cli("updatedb", crawldb, segment)
    assert result.code == 0, result.err
    assert status_of(cli, crawldb, "http://a.example/") == "Status: 2 (db_fetched)"
    assert "Signature: " + sig.hex() in cli("readdb", crawldb, "-url", "http://a.example/").out
    assert status_of(cli, crawldb, "http://b.example/") == "Status: 3 (db_gone)"
    assert status_of(cli, crawldb, "http://c.example/") == "Status: 1 (db_unfetched)"
    new = cli("readdb", crawldb, "-url", "http://new.example/x").out
    assert "Status: 1 (db_unfetched)" in new and "Score: 0.5" in new  # OPIC: 0 + the inlink's score
    assert stats_value(cli("readdb", crawldb, "-stats").out, "TOTAL urls") == "4"
    assert "unchanged: 1" in result.out
    assert "CrawlDb update: 1 segment(s);" in result.out and "recovered" not in result.out


def test_no_additions_purge_404_and_dir(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawl" / "crawldb"
    cli("inject", crawldb, write_lines(tmp_path / "s.txt", ["http://a.example/", "http://b.example/"]))
    now = now_millis()
    segments = tmp_path / "crawl" / "segments"
    write_segment(segments, "20261122000000",
                  [("http://b.example/", CrawlDatum(CrawlStatus.FETCH_GONE, now, 0, 2592000, 1.0))],
                  [("http://new.example/", CrawlDatum(CrawlStatus.LINKED, now, 0, 2592000, 0.5))])
    assert cli("updatedb", crawldb, "-dir", segments, "-noAdditions").code == 0
    assert cli("readdb", crawldb, "-url", "http://new.example/").code == 1
    assert status_of(cli, crawldb, "http://b.example/") == "Status: 3 (db_gone)"
    write_segment(segments, "20261122000001",
                  [("http://a.example/", CrawlDatum(CrawlStatus.FETCH_RETRY, now, 0, 2592000, 1.0))], [])
    assert cli("updatedb", crawldb, segments / "20261122000001", "-D", "db.update.purge.404=true").code == 0
    assert cli("readdb", crawldb, "-url", "http://b.example/").code == 1  # purged
    out = cli("readdb", crawldb, "-url", "http://a.example/").out
    assert "Status: 1 (db_unfetched)" in out and "Retries since fetch: 1" in out
    assert cli("updatedb", crawldb).code == 2
