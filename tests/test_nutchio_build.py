"""A small Nutch 1.x crawl directory built with ``gossamer.store.hadoop``'s writers (used by tests/test_nutchio*.py).

:func:`build_nutch_crawl` writes crawldb (2 parts, every db status, metadata, one damaged
value), linkdb (2 parts, the second truncated in its last record) and one segment with
every table (crawl_parse with a damaged record between sync markers).  The tests here check
the builder itself: the partitioning helper against Hadoop's hash on known values.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from gossamer.core import CrawlDatum, Inlink, Outlink, ParseData, ParseStatusCode
from gossamer.crawl.nutchio import hash_bytes, partitions
from gossamer.store.hadoop import (
    NONE,
    RECORD,
    TEXT,
    MapFileWriter,
    SequenceFileWriter,
    from_core_datum,
    from_core_inlinks,
    from_core_parse_data,
)
from gossamer.store.hadoop.nutch_segment_records import NutchContent

DATUM = "org.apache.nutch.crawl.CrawlDatum"
INLINKS = "org.apache.nutch.crawl.Inlinks"
CONTENT = "org.apache.nutch.protocol.Content"
PARSE_DATA = "org.apache.nutch.parse.ParseData"
PARSE_TEXT = "org.apache.nutch.parse.ParseText"
SEGMENT = "20240102030405"
T0 = 1_700_000_000_000
FUTURE = (int(time.time()) + 20 * 86_400) * 1000  # not due for 20 days (< db.fetch.interval.max)


@dataclass
class NutchCrawl:
    """What the builder wrote: the directory and the records it holds (good ones), by table."""

    root: Path
    crawldb: dict[str, CrawlDatum] = field(default_factory=dict)
    linkdb: dict[str, list[Inlink]] = field(default_factory=dict)
    bad_crawldb: int = 0
    bad_linkdb: int = 0
    bad_crawl_parse: int = 0


def _map_parts(directory: Path, value_class: str, records: dict[str, object], parts: int,
               compression: str = NONE) -> list[Path]:
    """Records as hash-partitioned, sorted MapFile parts ``part-r-NNNNN``; the part directories."""
    import pyarrow as pa

    urls = sorted(records, key=lambda u: u.encode())
    targets = partitions(pa.array(urls, pa.string()), parts).tolist() if urls else []
    made = []
    for part in range(parts):
        place = directory / f"part-r-{part:05d}"
        with MapFileWriter(place, TEXT.java_class, value_class, compression=compression) as writer:
            for url, target in zip(urls, targets, strict=True):
                if target == part:
                    writer.append(url, records[url])
        made.append(place)
    (directory / "_SUCCESS").write_bytes(b"")
    return made


def _damage_value(data_file: Path, marker: bytes, replacement: bytes) -> None:
    """Replace the first ``marker`` bytes (inside a value) so that record no longer decodes."""
    raw = data_file.read_bytes()
    at = raw.index(marker)
    data_file.write_bytes(raw[:at] + replacement + raw[at + len(replacement):])


def build_nutch_crawl(root: Path, base: str) -> NutchCrawl:
    """A Nutch 1.x crawl under ``root`` whose URLs are on ``base`` (``http://127.0.0.1:port``)."""
    crawl = NutchCrawl(root)
    home, old, new = f"{base}/", f"{base}/old.html", f"{base}/new.html"
    crawl.crawldb[home] = CrawlDatum(2, T0, 0, 2_592_000, 1.5, hashlib.md5(b"home").digest(), T0 - 5,
                                     {"_pst_": "success(1), lastModified=0", "nutch.protocol.code": "200"})
    crawl.crawldb[old] = CrawlDatum(2, FUTURE, 0, 2_592_000, 0.75, hashlib.md5(b"old").digest(), T0,
                                    {"_ngt_": str(T0), "Content-Type": "text/html"})
    for status in range(1, 10):  # every db status, on hosts never due
        crawl.crawldb[f"http://status{status}.invalid/p?s={status}"] = CrawlDatum(
            status, FUTURE, status % 3, 86_400 * status, status / 4, None, 0,
            {"fixedInterval": "86400.0"} if status == 3 else {})
    damaged = "http://damaged.invalid/"
    records = {url: from_core_datum(datum) for url, datum in crawl.crawldb.items()}
    records[damaged] = from_core_datum(CrawlDatum(1, FUTURE, 0, 60, 0.5, b"\xde\xad\xbe\xef" * 4))
    parts = _map_parts(root / "crawldb" / "current", DATUM, records, 2)
    for part in parts:  # the damaged record's signature, then its version byte destroyed
        if b"\xde\xad\xbe\xef" in (part / "data").read_bytes():
            raw = (part / "data").read_bytes()
            at = raw.index(damaged.encode()) + len(damaged)
            (part / "data").write_bytes(raw[:at] + b"\x63" + raw[at + 1:])  # CrawlDatum version 99
    crawl.bad_crawldb = 1

    crawl.linkdb[home] = [Inlink(old, "home page")]
    crawl.linkdb[old] = [Inlink(home, "the old page"), Inlink("http://other.invalid/", "")]
    links = {url: from_core_inlinks(inlinks) for url, inlinks in crawl.linkdb.items()}
    tail = "http://zzz.invalid/last"
    links[tail] = from_core_inlinks([Inlink(home, "cut")])
    parts = _map_parts(root / "linkdb" / "current", INLINKS, links, 2)
    for part in parts:  # truncate the file holding the last key in its last record
        data = part / "data"
        raw = data.read_bytes()
        if tail.encode() in raw:
            data.write_bytes(raw[:-3])
    crawl.bad_linkdb = 1
    _segment(root / "segments" / SEGMENT, crawl, home, old, new)
    return crawl


def _segment(segment: Path, crawl: NutchCrawl, home: str, old: str, new: str) -> None:
    fetch_time = T0 + 1000
    generate = {url: from_core_datum(CrawlDatum(1, T0, 0, 2_592_000, 1.0, metadata={"_ngt_": str(T0)}))
                for url in (home, old)}
    (segment / "crawl_generate").mkdir(parents=True)
    with SequenceFileWriter(segment / "crawl_generate" / "part-r-00000", TEXT.java_class, DATUM) as writer:
        for url, datum in generate.items():
            writer.append(url, datum)
    fetch = {home: CrawlDatum(0x21, fetch_time, 0, 2_592_000, 1.0, None, 0,
                              {"_pst_": "success(1), lastModified=0", "Content-Type": "text/html"}),
             old: CrawlDatum(0x21, fetch_time, 0, 2_592_000, 1.0, None, 0, {"_pst_": "success(1), lastModified=0"})}
    _map_parts(segment / "crawl_fetch", DATUM, {u: from_core_datum(d) for u, d in fetch.items()}, 1, RECORD)
    bodies = {home: b"<html><head><title>Home</title></head><body>kiwi home <a href='old.html'>old</a></body></html>",
              old: b"<html><head><title>Old kiwi page</title></head><body>kiwi banana mango</body></html>"}
    contents = {url: NutchContent(url, url, body, "text/html",
                                  {"Content-Type": ["text/html; charset=utf-8"], "Content-Encoding": ["gzip"],
                                   "Set-Cookie": ["a=1", "b=2"], "nutch.segment.name": [SEGMENT],
                                   "_fst_": ["33"], "nutch.crawl.score": ["1.0"]})
                for url, body in bodies.items()}
    _map_parts(segment / "content", CONTENT, contents, 1, RECORD)
    parse = {home: ParseData(ParseStatusCode.SUCCESS, "Home", [Outlink(old, "old"), Outlink(new, "new page")],
                             {"Content-Type": "text/html", "nutch.segment.name": SEGMENT,
                              "nutch.content.digest": hashlib.md5(bodies[home]).hexdigest()}, {"lang": "en"}),
             old: ParseData(ParseStatusCode.SUCCESS, "Old kiwi page", [],
                            {"Content-Type": "text/html", "nutch.segment.name": SEGMENT,
                             "nutch.content.digest": hashlib.md5(bodies[old]).hexdigest()}, {})}
    _map_parts(segment / "parse_data", PARSE_DATA, {u: from_core_parse_data(p) for u, p in parse.items()}, 1, RECORD)
    texts = {home: "Home kiwi home old", old: "Old kiwi page kiwi banana mango"}
    _map_parts(segment / "parse_text", PARSE_TEXT, texts, 1, RECORD)
    (segment / "crawl_parse").mkdir()
    path = segment / "crawl_parse" / "part-r-00000"
    with SequenceFileWriter(path, TEXT.java_class, DATUM, compression=RECORD, sync_interval=100) as writer:
        for i in range(30):
            writer.append(f"{base_of(home)}/linked{i:02d}.html", from_core_datum(CrawlDatum(0x43, fetch_time,
                                                                                            0, 2_592_000, 0.1)))
    raw = bytearray(path.read_bytes())
    key = f"{base_of(home)}/linked10.html".encode()
    at = raw.index(key)
    raw[at - 9:at - 5] = b"\x7f\xff\xff\xf0"  # that record's length: absurd → resync at the next marker
    path.write_bytes(bytes(raw))
    crawl.bad_crawl_parse = 1


def base_of(url: str) -> str:
    """``http://host:port`` of a URL."""
    return url.split("/", 3)[0] + "//" + url.split("/", 3)[2]


def test_hadoop_hash_matches_java_values() -> None:
    import pyarrow as pa

    # Java: WritableComparator.hashBytes("abc".getBytes()) == 126145; a non-ASCII byte counts signed
    assert hash_bytes(b"abc") == 126145
    assert hash_bytes(b"") == 1
    assert hash_bytes("é".encode()) & 0xFFFFFFFF == (31 * (31 + (0xC3 - 256)) + (0xA9 - 256)) & 0xFFFFFFFF
    urls = ["", "abc", "http://example.com/é", "http://a/" + "x" * 5000]
    assert partitions(pa.array(urls), 7).tolist() == [(hash_bytes(u.encode()) & 0x7FFFFFFF) % 7 for u in urls]
