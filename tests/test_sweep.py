"""``clean-tmp`` removes what killed jobs left, and never what a live job holds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import write_lines
from tests.fetch_server import ThreadedSite

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")
HOLD = """
import sys, time
from gossamer.store import TableLock
lock = TableLock(sys.argv[1]); lock.acquire(); print("held", flush=True); time.sleep(60)
"""


def _segments(segments: Path) -> list[Path]:
    return sorted(p for p in segments.iterdir() if p.name.isdigit())


def test_clean_tmp_removes_leftovers_and_skips_what_a_live_job_holds(cli, tmp_path: Path) -> None:
    crawl = tmp_path / "crawl"
    crawldb, segments = crawl / "crawldb", crawl / "segments"
    with ThreadedSite() as site:
        site.route("/", body=b"<html>home</html>")
        assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", [site.url("/")])).code == 0
        assert cli("generate", crawldb, segments).code == 0
        [fetched] = _segments(segments)
        assert cli("fetch", fetched, *AGENT).code == 0
        assert cli("inject", crawldb, write_lines(tmp_path / "more.txt", ["http://other.test/"])).code == 0
        time.sleep(1.1)  # a new segment name
        assert cli("generate", crawldb, segments).code == 0
    unfetched = _segments(segments)[-1]
    # what killed jobs leave
    (crawldb / "tmp-0123abcd").mkdir()
    shutil.rmtree(crawldb / "old")
    (crawldb / "current").rename(crawldb / "old")  # killed between the two renames of an install
    (segments / ".tmp-20990101000000" / "crawl_generate").mkdir(parents=True)
    (fetched / ".fetch-staging" / "content").mkdir(parents=True)
    (unfetched / "content").mkdir()  # an install cut short before crawl_fetch
    (unfetched / ".parse-staging").mkdir()

    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(unfetched)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ})
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = cli("clean-tmp", "-d", crawl)
        assert result.code == 0, result.err
        assert f"busy (left alone): {unfetched} is locked by pid {holder.pid}" in result.out, result.out
        assert (unfetched / "content").exists() and (unfetched / ".parse-staging").exists()
    finally:
        holder.kill()
        holder.wait(10)
    assert not (crawldb / "tmp-0123abcd").exists() and (crawldb / "current").is_dir()
    assert not (segments / ".tmp-20990101000000").exists() and not (fetched / ".fetch-staging").exists()
    assert "restored" in result.out and "4 removed, 1 busy" in result.out

    again = cli("clean-tmp", "-d", crawl)
    assert again.code == 0 and "2 removed, 0 busy" in again.out, again.out
    assert not (unfetched / "content").exists() and not (unfetched / ".parse-staging").exists()
    assert (fetched / "crawl_fetch").is_dir() and (fetched / "content").is_dir()  # finished work stays
    assert cli("readdb", crawldb, "-stats").code == 0
    assert cli("clean-tmp", "-d", crawl).out.strip().endswith("0 removed, 0 busy")
