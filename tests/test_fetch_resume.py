"""A killed fetch resumes: the pages it had checkpointed are kept and only the rest is requested.

The fetch runs as a real command in a child process against a slow loopback site and is
killed (SIGKILL, the parent only: its task processes die with it) once the site has served
some pages.  The next ``fetch`` of the segment must request only the pages the killed run
had not checkpointed, and the segment must then hold every page exactly once: in
crawl_fetch, in the inline parse tables and in the WARC files (warcio reads them whole).
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from warcio.archiveiterator import ArchiveIterator

from tests.conftest import ENV_KEEP, stats_value, write_lines
from tests.fetch_server import ThreadedSite

PAGES = 30
DELAY = 0.08
FAST = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0", "-D", "fetcher.parse=true",
        "-D", "fetcher.checkpoint.seconds=0.2", "-D", "fetcher.threads.fetch=1")


@pytest.fixture(scope="module")
def site():  # noqa: ANN201
    with ThreadedSite() as running:
        for i in range(PAGES):
            body = f"<html><title>page {i}</title><a href='/p{(i + 1) % PAGES}'>next</a> page {i}</html>"
            running.route(f"/p{i}", body=body.encode(), delay=DELAY)
        yield running


def _segment(cli, root: Path, site) -> tuple[Path, Path]:  # noqa: ANN001
    crawldb, segments = root / "crawldb", root / "segments"
    root.mkdir(parents=True)
    seeds = write_lines(root / "seeds.txt", [site.url(f"/p{i}") for i in range(PAGES)])
    assert cli("inject", crawldb, seeds).code == 0
    assert cli("generate", crawldb, segments).code == 0
    return crawldb, next(p for p in segments.iterdir() if p.name.isdigit())


def _kill_fetch_after(segment: Path, site, hits: int) -> int:  # noqa: ANN001
    """Start ``gossamer fetch`` in a child process, SIGKILL it once the site served ``hits`` pages."""
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    before = len(site.page_hits())
    child = subprocess.Popen([str(exe), "fetch", str(segment), "-processes", "1", *FAST], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(site.page_hits()) - before < hits and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    time.sleep(0.3)  # its task process dies with it (PR_SET_PDEATHSIG); let the last request end
    return len(site.page_hits()) - before


def _urls(table: Path) -> list[str]:
    return [row[0] for row in duckdb.sql(f"select url from '{table}/*.parquet' order by url").fetchall()]


def _warc_responses(content: Path) -> list[str]:
    urls = []
    for path in sorted(content.glob("*.warc.gz")):
        with gzip.open(path, "rb") as check:
            check.read()  # every file is whole gzip members: no torn tail
        with path.open("rb") as stream:
            urls += [r.rec_headers.get_header("WARC-Target-URI") for r in ArchiveIterator(stream)
                     if r.rec_type == "response"]
    return sorted(urls)


@pytest.mark.parametrize("kill_after", [4, 17])
def test_a_killed_fetch_resumes_with_the_pages_it_had_finished(cli, site, tmp_path: Path, kill_after: int) -> None:
    crawldb, segment = _segment(cli, tmp_path / "crawl", site)
    first = _kill_fetch_after(segment, site, kill_after)
    assert 0 < first < PAGES
    assert not (segment / "crawl_fetch").exists()
    before = len(site.page_hits())
    resumed = cli("fetch", segment, *FAST)
    assert resumed.code == 0, resumed.err
    second = len(site.page_hits()) - before
    kept = int(resumed.out.split("resumed: ")[1].split()[0]) if "resumed: " in resumed.out else 0
    # the pages the killed run checkpointed are not requested again; at most the last
    # checkpoint interval's pages (and the request in flight) are
    assert kept > 0 or kill_after < 10, resumed.out
    assert second == PAGES - kept, (first, kept, second)
    assert first + second - PAGES <= 0.2 / DELAY + 2
    expected = sorted(site.url(f"/p{i}") for i in range(PAGES))
    assert _urls(segment / "crawl_fetch") == expected  # each page once (no redirects here)
    assert _urls(segment / "parse_data") == expected
    assert _urls(segment / "parse_text") == expected
    assert _warc_responses(segment / "content") == expected
    assert not (segment / ".fetch-staging").exists()
    assert cli("updatedb", crawldb, segment).code == 0
    stats = cli("readdb", crawldb, "-stats").out
    assert stats_value(stats, "status 2 (db_fetched)") == str(PAGES)


def test_a_fetch_killed_twice_still_ends_with_every_page_once(cli, site, tmp_path: Path) -> None:
    crawldb, segment = _segment(cli, tmp_path / "crawl", site)
    _kill_fetch_after(segment, site, 6)
    _kill_fetch_after(segment, site, 6)
    assert cli("fetch", segment, *FAST).code == 0
    expected = sorted(site.url(f"/p{i}") for i in range(PAGES))
    assert _urls(segment / "crawl_fetch") == expected
    assert _urls(segment / "crawl_parse").count(expected[0]) >= 1
    assert _warc_responses(segment / "content") == expected


def test_a_resume_with_another_parse_setting_starts_over(cli, site, tmp_path: Path) -> None:
    crawldb, segment = _segment(cli, tmp_path / "crawl", site)
    _kill_fetch_after(segment, site, 8)
    before = len(site.page_hits())
    again = cli("fetch", segment, *FAST, "-D", "fetcher.parse=false")
    assert again.code == 0, again.err
    assert "resumed" not in again.out
    assert len(site.page_hits()) - before == PAGES
    assert not (segment / "parse_data").exists()
    assert _warc_responses(segment / "content") == sorted(site.url(f"/p{i}") for i in range(PAGES))


def test_clean_tmp_keeps_the_checkpointed_pages_of_a_killed_fetch(cli, site, tmp_path: Path) -> None:
    crawldb, segment = _segment(cli, tmp_path / "crawl", site)
    _kill_fetch_after(segment, site, 12)
    (segment / ".fetch-staging" / "crawl_fetch" / "part-00000.parquet.tmp").write_bytes(b"half a part")
    swept = cli("clean-tmp", "-d", tmp_path / "crawl")
    assert swept.code == 0, swept.err
    assert "kept: " in swept.out and "interrupted fetch" in swept.out, swept.out
    assert not (segment / ".fetch-staging" / "crawl_fetch").exists()  # the unfinished part went
    resumed = cli("fetch", segment, *FAST)
    assert resumed.code == 0 and "resumed: " in resumed.out, resumed.out
    assert _urls(segment / "crawl_fetch") == sorted(site.url(f"/p{i}") for i in range(PAGES))
