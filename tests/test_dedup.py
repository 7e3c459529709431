"""``dedup``: Nutch's DeduplicationJob over the crawldb (reference §7.3)."""

import hashlib
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from gossamer.core import CrawlDatum, CrawlStatus, now_millis
from gossamer.core.settings import load_settings
from gossamer.crawl.dedup.deduplicator import MarkDuplicates, dedup
from gossamer.crawl.dedup.duplicates import Members, fold_group, java_decoded_length, parse_compare_order
from gossamer.store import TableDescription, TableLock, finish_version, install, new_staging_dir, open_live
from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA, datums_to_batch
from gossamer.store.partitioning import part_of_url
from gossamer.store.table import PartWriter, part_name

from .conftest import ENV_KEEP, write_lines
from .test_updatedb import status_of, write_segment

FETCHED, NOTMODIFIED, DUP = CrawlStatus.DB_FETCHED, CrawlStatus.DB_NOTMODIFIED, CrawlStatus.DB_DUPLICATE
SIG_A, SIG_B = hashlib.md5(b"a").digest(), hashlib.md5(b"b").digest()
T0 = 1_700_000_000_000


def page(score: float = 1.0, fetch_time: int = T0, signature: bytes | None = SIG_A,
         status: int = FETCHED) -> CrawlDatum:
    return CrawlDatum(status, fetch_time, 0, 2592000, score, signature)


def write_crawldb(crawldb: Path, rows: list[tuple[str, CrawlDatum]], parts: int = 3) -> Path:
    """Install ``rows`` as the crawldb's new version (parts sorted by URL, small row groups)."""
    with TableLock(crawldb):
        staging = new_staging_dir(crawldb)
        by_part: list[list[tuple[str, CrawlDatum]]] = [[] for _ in range(parts)]
        for row in rows:
            by_part[part_of_url(row[0], parts)].append(row)
        for part, items in enumerate(by_part):
            writer = PartWriter(staging / part_name(part), CRAWLDB_SCHEMA, 1024, "zstd")
            items.sort(key=lambda r: r[0])
            if items:
                writer.write(datums_to_batch(items))
            writer.close()
        finish_version(staging, TableDescription(kind="crawldb", parts=parts, rows=len(rows)))
        install(crawldb, staging)
    return crawldb


def statuses(crawldb: Path) -> dict[str, int]:
    with open_live(crawldb) as version:
        return {row["url"]: row["status"] for batch in version.iter_batches(columns=["url", "status"])
                for row in batch.to_pylist()}


def duplicates(crawldb: Path) -> set[str]:
    return {url for url, status in statuses(crawldb).items() if status == DUP}


def run(tmp_path: Path, rows: list[tuple[str, CrawlDatum]], *defines: str, **kwargs: object) -> set[str]:
    crawldb = write_crawldb(tmp_path / "crawl" / "crawldb", rows)
    dedup(crawldb, load_settings(overrides=list(defines)), **kwargs)  # type: ignore[arg-type]
    return duplicates(crawldb)


def test_lower_score_is_the_duplicate(tmp_path: Path) -> None:
    rows = [("http://a.example/1", page(2.0)), ("http://b.example/2", page(1.0, T0 + 9)),
            ("http://c.example/x", page(0.5, signature=SIG_B))]
    assert run(tmp_path, rows) == {"http://b.example/2"}


def test_older_fetch_is_the_duplicate_when_scores_tie(tmp_path: Path) -> None:
    rows = [("http://a.example/1", page(1.0, T0)), ("http://b.example/2", page(1.0, T0 + 1))]
    assert run(tmp_path, rows) == {"http://a.example/1"}
    order = ("fetchTime", "score", "urlLength")  # the first criterion that differs decides
    rows = [("http://a.example/1", page(5.0, T0)), ("http://b.example/2", page(1.0, T0 + 1))]
    assert run(tmp_path / "o", rows, compare_order=order) == {"http://a.example/1"}


def test_longer_decoded_url_is_the_duplicate(tmp_path: Path) -> None:
    rows = [("http://a.example/1", page()), ("http://a.example/12", page())]
    assert run(tmp_path, rows) == {"http://a.example/12"}
    # 25 characters as stored, 21 once decoded ("café"): the plain 23-character URL is the longer one
    encoded, plain = "http://a.example/caf%C3%A9", "http://a.example/abcdef"
    assert len(encoded) > len(plain) and java_decoded_length(encoded) < len(plain)
    assert run(tmp_path / "pct", [(encoded, page()), (plain, page())]) == {plain}


def test_java_decoded_length() -> None:
    assert java_decoded_length("http://a/%7Euser") == len("http://a/~user")
    assert java_decoded_length("http://a/a+b") == 12  # '+' becomes a space: same length
    assert java_decoded_length("http://a/%F0%9F%98%80") == len("http://a/") + 2  # one UTF-16 surrogate pair
    assert java_decoded_length("http://a/%zz%4") == len("http://a/%zz%4")  # bad escapes stay as they are
    assert java_decoded_length("http://a/%C3") == len("http://a/") + 1  # broken UTF-8: one U+FFFD


def test_all_criteria_equal_marks_nothing(tmp_path: Path) -> None:
    rows = [("http://a.example/1", page()), ("http://b.example/2", page()), ("http://c.example/3", page())]
    assert run(tmp_path, rows) == set()


def test_group_none_host_and_domain(tmp_path: Path) -> None:
    rows = [("http://www.shop.co.uk/a", page(3.0)), ("http://img.shop.co.uk/b", page(2.0)),
            ("http://www.shop.co.uk/c", page(1.0)), ("http://other.example/d", page(0.5))]
    assert run(tmp_path / "n", rows) == {"http://img.shop.co.uk/b", "http://www.shop.co.uk/c",
                                         "http://other.example/d"}
    assert run(tmp_path / "h", rows, group="host") == {"http://www.shop.co.uk/c"}
    assert run(tmp_path / "d", rows, group="domain") == {"http://img.shop.co.uk/b", "http://www.shop.co.uk/c"}


def test_https_over_http(tmp_path: Path) -> None:
    rows = [("http://a.example/p", page()), ("https://a.example/p", page())]
    assert run(tmp_path / "default", rows) == {"https://a.example/p"}  # urlLength: https is longer
    order = ("score", "fetchTime", "httpsOverHttp", "urlLength")
    assert run(tmp_path / "https", rows, compare_order=order) == {"http://a.example/p"}
    # only twins count: a different path is judged by the criteria after httpsOverHttp
    rows = [("http://a.example/p", page()), ("https://a.example/pp", page())]
    assert run(tmp_path / "other", rows, compare_order=order) == {"https://a.example/pp"}


def test_only_fetched_and_notmodified_rows_with_a_signature_take_part(tmp_path: Path) -> None:
    rows = [("http://a.example/1", page(1.0)), ("http://a.example/2", page(0.1, status=NOTMODIFIED))]
    rows += [(f"http://b.example/{status}", page(0.01, status=status))
             for status in (CrawlStatus.DB_UNFETCHED, CrawlStatus.DB_GONE, CrawlStatus.DB_REDIR_PERM,
                            CrawlStatus.DB_PARSE_FAILED, CrawlStatus.DB_ORPHAN)]
    rows += [("http://c.example/none", page(0.01, signature=None)),
             ("http://c.example/empty", page(0.01, signature=b""))]
    crawldb = write_crawldb(tmp_path / "crawldb", rows)
    before = statuses(crawldb)
    report = dedup(crawldb, load_settings())
    after = statuses(crawldb)
    assert {u for u in after if after[u] != before[u]} == {"http://a.example/2"}
    assert after["http://a.example/2"] == DUP
    assert (report.candidates, report.groups, report.duplicates, report.total_urls) == (2, 1, 1, len(rows))


def test_earlier_duplicates_stay_and_a_clean_crawldb_is_not_rewritten(tmp_path: Path) -> None:
    rows = [("http://a.example/1", page(1.0)), ("http://a.example/2", page(0.5, status=DUP)),
            ("http://a.example/3", page(0.1, signature=SIG_B))]
    crawldb = write_crawldb(tmp_path / "crawldb", rows)
    version_before = (crawldb / "current" / "_table.json").read_text()
    report = dedup(crawldb, load_settings())
    assert not report.installed and report.duplicates == 0 and report.previous_duplicates == 1
    assert (crawldb / "current" / "_table.json").read_text() == version_before
    assert duplicates(crawldb) == {"http://a.example/2"}


def test_nutch_reducer_keeps_members_tied_with_the_existing_one() -> None:
    # a and b tie; c beats a. Nutch compares c with the existing a only, so b stays unmarked.
    members = Members(["http://a/1", "http://b/1", "http://c/1"], [1.0, 1.0, 2.0], [T0] * 3, [10] * 3)
    assert fold_group(members, ("score", "fetchTime", "urlLength")) == [0]
    members = Members(["http://a/1", "http://b/1", "http://c/1"], [3.0, 1.0, 2.0], [T0] * 3, [10] * 3)
    assert fold_group(members, ("score", "fetchTime", "urlLength")) == [1, 2]


def nutch_reducer(urls: list[str], scores: list[float], times: list[int], order: list[str]) -> set[str]:
    """DeduplicationJob.DedupReducer, transcribed from the Java source."""
    def get_duplicate(e: int, n: int) -> int | None:
        for name in order:
            if name == "score" and scores[e] != scores[n]:
                return e if scores[e] < scores[n] else n
            if name == "fetchTime" and times[e] != times[n]:
                return n if times[e] > times[n] else e
            if name == "httpsOverHttp":
                u1, u2 = urls[e], urls[n]
                if u1.startswith("https://") and u2.startswith("http://") and u1[8:] == u2[7:]:
                    return n
                if u2.startswith("https://") and u1.startswith("http://") and u2[8:] == u1[7:]:
                    return e
            if name == "urlLength":
                le, ln = len(unquote(urls[e])), len(unquote(urls[n]))
                if le != ln:
                    return n if le < ln else e
        return None

    marked, existing = set(), 0
    for new in range(1, len(urls)):
        duplicate = get_duplicate(existing, new)
        if duplicate is not None:
            marked.add(urls[duplicate])
            if duplicate == existing:
                existing = new
    return marked


def test_fold_matches_a_transcription_of_nutchs_reducer() -> None:
    rng = random.Random(7)
    orders = [list(parse_compare_order(o)) for o in ("score,fetchTime,urlLength", "urlLength,fetchTime,score",
                                                      "httpsOverHttp,score,fetchTime,urlLength",
                                                      "score,httpsOverHttp,urlLength,fetchTime",
                                                      "fetchTime,score,urlLength,httpsOverHttp")]
    for _ in range(3000):
        size = rng.randint(2, 7)
        urls = sorted({f"{rng.choice(['http', 'https'])}://a.example/{rng.choice(['x', 'yy', 'x%41'])}{i % 3}"
                       for i in range(size)})
        scores = [rng.choice([0.5, 1.0, 2.0]) for _ in urls]
        times = [T0 + rng.choice([0, 1]) for _ in urls]
        order = rng.choice(orders)
        members = Members(urls, scores, times, [java_decoded_length(u) for u in urls])
        assert {urls[i] for i in fold_group(members, order)} == nutch_reducer(urls, scores, times, order)


def test_result_does_not_depend_on_input_order_parts_or_batches(tmp_path: Path) -> None:
    rng = random.Random(1)
    sigs = [hashlib.md5(str(i).encode()).digest() for i in range(40)]
    rows = [(f"http{rng.choice(['', 's'])}://h{rng.randint(0, 9)}.example/{i % 200}",
             page(rng.choice([1.0, 2.0]), T0 + rng.randint(0, 1), rng.choice(sigs))) for i in range(400)]
    rows = list(dict(rows).items())
    order = ["score", "httpsOverHttp", "fetchTime", "urlLength"]
    expected: set[str] = set()
    for sig in sigs:
        members = sorted((url, d) for url, d in rows if d.signature == sig)
        expected |= nutch_reducer([u for u, _ in members], [d.score for _, d in members],
                                  [d.fetch_time for _, d in members], order)
    for attempt, parts in enumerate((1, 3, 8)):
        rng.shuffle(rows)
        crawldb = write_crawldb(tmp_path / str(attempt) / "crawldb", rows, parts)
        report = dedup(crawldb, load_settings(overrides=["engine.batch.rows=5"]), compare_order=order)
        assert duplicates(crawldb) == expected
        assert (report.duplicates, report.groups, report.candidates) == (len(expected), 40, len(rows))


def test_mark_duplicates_matches_each_batch_against_its_slice_of_the_list(tmp_path: Path) -> None:
    from gossamer.crawl.dedup.deduplicator import write_duplicate_lists
    from gossamer.engine import TaskContext

    urls = sorted(f"http://h{i % 3}.example/{i:03d}" for i in range(60))
    marked = urls[1::4] + [urls[-1]]
    write_duplicate_lists(pa.array(marked, pa.string()), 4, tmp_path)
    reducer = MarkDuplicates(str(tmp_path), 4)
    ctx = TaskContext(load_settings())
    seen: dict[str, int] = {}
    for part in range(4):
        rows = [(u, page()) for u in urls if part_of_url(u, 4) == part]
        batch = datums_to_batch(rows)
        for start in range(0, len(rows), 4):
            for out in reducer(batch.slice(start, 4), ctx):
                assert out.schema == CRAWLDB_SCHEMA
                seen.update(zip(out.column("url").to_pylist(), out.column("status").to_pylist(), strict=True))
    assert seen == {u: DUP if u in marked else FETCHED for u in urls}
    assert ctx.counters["duplicates_marked"] == len(marked)


def test_failure_during_the_job_keeps_the_previous_version(tmp_path: Path, monkeypatch) -> None:
    rows = [(f"http://h{i % 4}.example/{i}", page(float(i))) for i in range(40)]
    crawldb = write_crawldb(tmp_path / "crawldb", rows)
    before = statuses(crawldb)

    def broken(self: MarkDuplicates, batch: object, ctx: object) -> object:
        raise OSError("disk full")

    monkeypatch.setattr(MarkDuplicates, "__call__", broken)
    with pytest.raises(OSError, match="disk full"):
        dedup(crawldb, load_settings())
    assert statuses(crawldb) == before
    assert not list(crawldb.glob("tmp-*")) and not (crawldb / "old").exists()
    monkeypatch.undo()
    assert dedup(crawldb, load_settings()).duplicates == 39  # the lock was released
    assert len(duplicates(crawldb)) == 39


def test_dedup_command(cli, tmp_path: Path) -> None:
    rows = [("http://a.example/1", page(2.0)), ("http://b.example/22", page(1.0)), ("http://b.example/3", page(1.0))]
    crawldb = write_crawldb(tmp_path / "crawl" / "crawldb", rows)
    result = cli("dedup", crawldb, "-group", "host", "-compareOrder", "score,fetchTime,httpsOverHttp,urlLength")
    assert result.code == 0, result.err
    assert "3 candidates" in result.out and "1 groups" in result.out
    assert "1 documents marked as duplicates" in result.out and "new version installed" in result.out
    assert duplicates(crawldb) == {"http://b.example/22"}
    again = cli("dedup", crawldb, "--group", "none", "--compare-order", "urlLength,score,fetchTime")
    assert again.code == 0 and "1 already db_duplicate" in again.out
    assert duplicates(crawldb) == {"http://b.example/22", "http://b.example/3"}  # same length: score decides


@pytest.mark.parametrize(("args", "message"), [
    (["-group", "site"], "-group must be one of none, host, domain"),
    (["-compareOrder", "score,fetchTime"], "must contain score, fetchTime and urlLength"),
    (["-compareOrder", "score,fetchTime,urlLength,age"], "unknown criterion 'age'"),
    (["-compareOrder", "score,fetchTime,urlLength,score"], "listed twice"),
])
def test_dedup_usage_errors(cli, tmp_path: Path, args: list[str], message: str) -> None:
    crawldb = write_crawldb(tmp_path / "crawldb", [("http://a.example/", page())])
    result = cli("dedup", crawldb, *args)
    assert result.code == 2 and message in result.err


def test_dedup_of_a_missing_or_locked_crawldb(cli, tmp_path: Path) -> None:
    missing = cli("dedup", tmp_path / "none")
    assert missing.code == 2 and "no table" in missing.err and not (tmp_path / "none").exists()
    crawldb = write_crawldb(tmp_path / "crawldb", [("http://a.example/", page())])
    with TableLock(crawldb):
        locked = cli("dedup", crawldb)
    assert locked.code == 2 and "locked" in locked.err


def test_inject_updatedb_dedup(cli, tmp_path: Path) -> None:
    crawldb = tmp_path / "crawl" / "crawldb"
    seeds = ["http://a.example/\tnutch.score=2", "http://mirror.example/\tnutch.score=1", "http://c.example/"]
    assert cli("inject", crawldb, write_lines(tmp_path / "s.txt", seeds)).code == 0
    now = now_millis()
    fetch = [(url.split("\t")[0], CrawlDatum(CrawlStatus.FETCH_SUCCESS, now, 0, 2592000, 1.0)) for url in seeds]
    parse = [(url.split("\t")[0], CrawlDatum(CrawlStatus.SIGNATURE, now, signature=SIG_A if "c." not in url
                                             else SIG_B)) for url in seeds]
    segment = write_segment(tmp_path / "crawl" / "segments", "20261122000000", fetch, parse)
    assert cli("updatedb", crawldb, segment).code == 0
    result = cli("dedup", crawldb)
    assert result.code == 0, result.err
    assert status_of(cli, crawldb, "http://mirror.example/") == "Status: 7 (db_duplicate)"
    assert status_of(cli, crawldb, "http://a.example/") == "Status: 2 (db_fetched)"
    assert status_of(cli, crawldb, "http://c.example/") == "Status: 2 (db_fetched)"


KILL_ROWS = 120_000


def start_dedup(crawldb: Path) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    return subprocess.Popen(
        [str(exe), "dedup", str(crawldb), "-D", "engine.local.workers=2", "-D", "engine.local.inline.mb=0",
         "-D", "engine.memory.budget.mb=16", "-D", "store.row.group.rows=1024"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)


def test_killed_dedup_leaves_the_previous_crawldb(tmp_path: Path) -> None:
    sigs = [hashlib.md5(str(i).encode()).digest() for i in range(KILL_ROWS // 3)]
    rows = [(f"http://h{i % 300}.example/page/{i}", page(float(i % 3), T0 + i % 5, sigs[i % len(sigs)]))
            for i in range(KILL_ROWS)]
    pristine = write_crawldb(tmp_path / "pristine" / "crawldb", rows, parts=4)
    timing = shutil.copytree(pristine, tmp_path / "timing" / "crawldb")
    started = time.monotonic()
    assert start_dedup(timing).wait() == 0
    duration = time.monotonic() - started
    expected = duplicates(timing)
    assert len(expected) > KILL_ROWS // 2

    caught_mid_write = 0
    for fraction in (0.0, 0.05, 0.2):
        crawldb = shutil.copytree(pristine, tmp_path / f"kill-{fraction}" / "crawldb")
        writer = start_dedup(crawldb)
        deadline = time.monotonic() + 10 * duration
        while not list(crawldb.glob("tmp-*")) and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)  # the new version is being staged: dedup is writing
        time.sleep(duration * fraction)
        caught_mid_write += bool(list(crawldb.glob("tmp-*")))
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
        found = duplicates(crawldb)
        assert found in (set(), expected), f"partial dedup after kill at {fraction:.0%}: {len(found)} marked"
        live = crawldb / ("current" if (crawldb / "current").exists() else "old")
        for part in live.glob("*.parquet"):
            pq.read_table(part)  # every part of the live version is a complete Parquet file
    # at least one kill must land while the new version is being written
    assert caught_mid_write >= 1, "the kills did not land while dedup was running"
    assert start_dedup(crawldb).wait() == 0  # the next run recovers and finishes
    assert duplicates(crawldb) == expected and not list(crawldb.glob("tmp-*"))
