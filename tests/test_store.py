import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gossamer.core import CrawlDatum
from gossamer.store import (
    CRAWLDB_SCHEMA,
    LockedError,
    TableDescription,
    TableError,
    TableLock,
    TableVersion,
    datums_to_batch,
    finish_version,
    host_of,
    install,
    live_version_dir,
    new_staging_dir,
    open_live,
    part_of_url,
    recover,
)
from gossamer.store.crawldb_schema import batch_to_datums
from gossamer.store.partitioning import hosts_of, parts_of_urls
from gossamer.store.table import PartWriter, part_name


@pytest.mark.parametrize(
    ("url", "host"),
    [("http://Example.COM/a", "example.com"), ("https://user:pw@h.example:8443/x?y#z", "h.example"),
     ("http://[::1]:8080/x", "[::1]"), ("file:///etc/passwd", ""), ("ftp://ftp.x.org", "ftp.x.org"),
     ("not a url", ""), ("http://h.example?q", "h.example")],
)
def test_host_of_scalar_and_vectorized_agree(url: str, host: str) -> None:
    assert host_of(url) == host
    assert hosts_of(pa.array([url])).to_pylist() == [host]


def test_partitioning_is_stable_and_by_host() -> None:
    urls = [f"http://host{i % 50}.example/page{i}" for i in range(1000)]
    parts = parts_of_urls(pa.array(urls), 8).to_pylist()
    assert parts == [part_of_url(u, 8) for u in urls]
    by_host: dict[str, set[int]] = {}
    for url, part in zip(urls, parts, strict=True):
        by_host.setdefault(host_of(url), set()).add(part)
    assert all(len(p) == 1 for p in by_host.values())
    assert len(set(parts)) > 4
    # crc32 of the host: a fixed value guards against accidental changes of the partitioner
    assert zlib.crc32(b"example.com") == 3069857465
    assert part_of_url("http://example.com/", 8) == 3069857465 % 8


def write_version(table_dir: Path, urls: list[str], parts: int = 4, row_group_rows: int = 16) -> Path:
    staging = new_staging_dir(table_dir)
    by_part: dict[int, list[str]] = {p: [] for p in range(parts)}
    for url in urls:
        by_part[part_of_url(url, parts)].append(url)
    for part, items in by_part.items():
        writer = PartWriter(staging / part_name(part), CRAWLDB_SCHEMA, row_group_rows, "zstd")
        rows = [(u, CrawlDatum(fetch_time=1000, score=float(i))) for i, u in enumerate(sorted(items))]
        if rows:
            writer.write(datums_to_batch(rows))
        writer.close()
    finish_version(staging, TableDescription(kind="crawldb", parts=parts, rows=len(urls)))
    return staging


def test_parts_are_sorted_parquet_with_small_row_groups_and_lookup(tmp_path: Path) -> None:
    urls = [f"http://h{i % 7}.example/p/{i:05d}" for i in range(2000)]
    table_dir = tmp_path / "crawldb"
    with TableLock(table_dir):
        install(table_dir, write_version(table_dir, urls))
    version = open_live(table_dir)
    assert version.num_rows() == 2000
    for path in version.part_paths():
        pf = pq.ParquetFile(path)
        keys = pf.read(columns=["url"]).column("url").to_pylist()
        assert keys == sorted(keys)
        if pf.metadata.num_rows > 16:
            assert pf.metadata.num_row_groups > 1
            assert pf.metadata.row_group(0).num_rows == 16
    for url in urls[::97] + [urls[-1]]:
        found = version.lookup(url)
        assert found.column("url").to_pylist() == [url]
    assert version.lookup("http://h1.example/p/99999").num_rows == 0
    assert version.lookup("http://nowhere.example/").num_rows == 0


def test_incomplete_version_is_not_readable(tmp_path: Path) -> None:
    staging = new_staging_dir(tmp_path / "t")
    with pytest.raises(TableError, match="not a complete table"):
        TableVersion(staging)
    with pytest.raises(TableError, match="no table"):
        open_live(tmp_path / "nothing")


def test_install_keeps_old_and_recover_repairs_a_crash_between_renames(tmp_path: Path) -> None:
    table_dir = tmp_path / "crawldb"
    with TableLock(table_dir):
        install(table_dir, write_version(table_dir, ["http://a.example/1"]))
        install(table_dir, write_version(table_dir, ["http://a.example/1", "http://a.example/2"]))
    assert open_live(table_dir).num_rows() == 2
    assert TableVersion(table_dir / "old").num_rows() == 1
    # Simulate a crash after "current -> old" and before "staging -> current".
    os.rename(table_dir / "current", table_dir / "tmp-crashed")
    os.rename(table_dir / "old", table_dir / "current")
    os.rename(table_dir / "current", table_dir / "old")
    assert live_version_dir(table_dir) == table_dir / "old"  # readers still find the last good version
    assert open_live(table_dir).num_rows() == 1
    with TableLock(table_dir):
        actions = recover(table_dir)
    assert any("restored" in a for a in actions) and any("tmp-crashed" in a for a in actions)
    assert open_live(table_dir).num_rows() == 1
    assert not list(table_dir.glob("tmp-*"))


def test_install_without_backup(tmp_path: Path) -> None:
    table_dir = tmp_path / "crawldb"
    install(table_dir, write_version(table_dir, ["http://a.example/1"]), keep_backup=False)
    install(table_dir, write_version(table_dir, ["http://a.example/2"]), keep_backup=False)
    assert not (table_dir / "old").exists()


HOLDER = """
import sys, time
from pathlib import Path
from gossamer.store import TableLock
lock = TableLock(Path(sys.argv[1]), command="holder")
lock.acquire()
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
"""


def start_holder(table_dir: Path, seconds: float) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(table_dir), str(seconds)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


def test_second_writer_refuses_with_the_holder_named(tmp_path: Path) -> None:
    holder = start_holder(tmp_path / "db", 30)
    try:
        with pytest.raises(LockedError, match=rf"pid {holder.pid} .*holder"):
            TableLock(tmp_path / "db").acquire()
    finally:
        holder.kill()
        holder.wait()


def test_second_writer_waits_when_told_to(tmp_path: Path) -> None:
    holder = start_holder(tmp_path / "db", 0.5)
    started = time.monotonic()
    with TableLock(tmp_path / "db", wait_seconds=20) as lock:
        assert time.monotonic() - started >= 0.2
        assert lock.stale is not None and lock.stale.pid == holder.pid  # it exited without releasing
    holder.wait()


def test_stale_lock_of_a_killed_process_is_detected(tmp_path: Path) -> None:
    holder = start_holder(tmp_path / "db", 30)
    holder.kill()
    holder.wait()
    with TableLock(tmp_path / "db") as lock:
        assert lock.stale is not None
        assert lock.stale.pid == holder.pid
        assert "holder" in lock.stale.describe()
    with TableLock(tmp_path / "db") as lock:
        assert lock.stale is None  # a clean release leaves no record


TRICKY_URLS = [
    "http://ΟΔΟΣ/", "http://ΑΣ:8080/", "http://u@v@other.example/", "HTTP://MiXeD.Example:80/",
    "not a url://x.example/", "http://[::1]/", "http://[::1/", "http://h.example\\path", "mailto:a@b.example",
    "https://user:p@ss@h.example/?q=@x", "http://İstanbul.example/", "file://host/path", "http://ẞ.example/",
    "://nohost", "", "h://", "http://a.example#frag@x", "http://a.example?@b",
]


@pytest.mark.parametrize("url", TRICKY_URLS)
def test_scalar_and_vectorized_host_rules_agree(url: str) -> None:
    assert host_of(url) == hosts_of(pa.array([url])).to_pylist()[0]
    assert part_of_url(url, 7) == parts_of_urls(pa.array([url]), 7).to_pylist()[0]


def test_lookup_finds_every_tricky_url(tmp_path: Path) -> None:
    urls = sorted(set(u for u in TRICKY_URLS if u))
    table_dir = tmp_path / "crawldb"
    install(table_dir, write_version(table_dir, urls, parts=7, row_group_rows=2))
    version = open_live(table_dir)
    for url in urls:
        assert version.lookup(url).column("url").to_pylist() == [url], url


def test_reader_keeps_one_version_while_a_writer_installs(tmp_path: Path) -> None:
    table_dir = tmp_path / "crawldb"
    install(table_dir, write_version(table_dir, [f"http://a{i}.example/" for i in range(20)]),
            keep_backup=False)
    with open_live(table_dir) as reader:
        first_part = next(reader.iter_part(0))
        install(table_dir, write_version(table_dir, [f"http://b{i}.example/" for i in range(30)]),
                keep_backup=False)  # the version being read is renamed away and deleted
        assert not (table_dir / "old").exists()
        assert reader.num_rows() == 20
        urls = [u for b in reader.iter_batches() for u in b.column("url").to_pylist()]
        assert len(urls) == 20 and all(u.startswith("http://a") for u in urls)
        assert first_part.num_rows <= 20
        assert reader.lookup("http://a3.example/").num_rows == 1
    with open_live(table_dir) as fresh:
        assert fresh.num_rows() == 30


def test_batch_to_datums_reads_timestamps_of_any_unit() -> None:
    """DuckDB hands Parquet timestamps back in microseconds: datums still get epoch milliseconds."""
    datum = CrawlDatum(status=2, fetch_time=1_798_030_149_776, modified_time=1_793_700_000_000)
    batch = datums_to_batch([("http://a.example/", datum)])
    as_micros = pa.schema([pa.field(f.name, pa.timestamp("us", tz="UTC")) if pa.types.is_timestamp(f.type) else f
                           for f in batch.schema])
    ((_, back),) = batch_to_datums(batch.cast(as_micros))
    assert (back.fetch_time, back.modified_time) == (datum.fetch_time, datum.modified_time)


def test_hosts_of_equals_host_of_on_random_urls() -> None:
    from .test_urlscreen import URLS

    urls = URLS + [None, "", "http://a@b:c@d/x", "http://[::1]x/", "x://", "http://h:1@x", "http://x:y/a://b"]
    expected = [host_of(url) if url is not None else "" for url in urls]
    for array in (pa.array(urls, pa.string()), pa.array(urls, pa.large_string())):
        assert hosts_of(array).to_pylist() == expected
        assert hosts_of(array.slice(5, 3000)).to_pylist() == expected[5:3005]
    assert hosts_of(pa.chunked_array([pa.array(urls[:9]), pa.array(urls[9:])])).to_pylist() == expected
    assert hosts_of(pa.array(["http://A.b/x"] * 3)).to_pylist() == ["a.b"] * 3


@pytest.mark.parametrize(("parts", "hosts"), [(3, 13), (8, 5)])  # (8, 5): some parts are empty
def test_interleaved_reading_keeps_each_parts_order_and_reads_them_at_one_pace(tmp_path: Path, parts: int,
                                                                               hosts: int) -> None:
    urls = [f"http://h{i % hosts}.example/p/{i:05d}" for i in range(3000)]
    version = TableVersion(write_version(tmp_path / "t", urls, parts=parts))
    per_part = [[u for b in version.iter_part(i, 100) for u in b.column("url").to_pylist()] for i in range(parts)]
    part_of = {u: i for i, rows in enumerate(per_part) for u in rows}
    sizes = [len(rows) for rows in per_part]
    read = [0] * parts
    out: list[str] = []
    for batch in version.iter_interleaved(100):
        rows = batch.column("url").to_pylist()
        index = part_of[rows[0]]
        # the batch comes from the part least read so far (by share of its rows)
        assert all(read[index] / sizes[index] <= read[j] / sizes[j] for j in range(parts) if read[j] < sizes[j])
        read[index] += len(rows)
        out += rows
    assert sorted(out) == sorted(urls)
    for index, rows in enumerate(per_part):
        assert [u for u in out if part_of[u] == index] == rows
