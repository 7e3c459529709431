"""Killing a real writer process at any moment leaves the previous crawldb intact."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq

from .conftest import ENV_KEEP, gossamer_subprocess, stats_value, write_lines

BASE = 100
BIG = 150_000


def start_writer(crawldb: Path, seeds: Path) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    return subprocess.Popen(
        [str(exe), "inject", str(crawldb), str(seeds), "-D", "engine.local.workers=2", "-D", "engine.local.inline.mb=0",
         "-D", "engine.memory.budget.mb=16", "-D", "store.row.group.rows=1024"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)


def total(crawldb: Path) -> int:
    result = gossamer_subprocess("readdb", crawldb, "-stats")
    assert result.returncode == 0, result.stderr
    return int(stats_value(result.stdout, "TOTAL urls"))


def test_kill_writer_mid_write_keeps_previous_table(tmp_path: Path) -> None:
    urls = [f"http://h{i % 300}.example/page/{i}" for i in range(BIG)]
    base_seeds = write_lines(tmp_path / "base.txt", urls[:BASE])
    big_seeds = write_lines(tmp_path / "big.txt", urls)
    crawldb = tmp_path / "crawl" / "crawldb"
    assert gossamer_subprocess("inject", crawldb, base_seeds).returncode == 0

    timing_db = tmp_path / "timing" / "crawldb"
    started = time.monotonic()
    assert start_writer(timing_db, big_seeds).wait() == 0
    duration = time.monotonic() - started

    caught_mid_write = 0
    for fraction in (0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.8):
        writer = start_writer(crawldb, big_seeds)
        deadline = time.monotonic() + 10 * duration
        while not list(crawldb.glob("tmp-*")) and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)  # the job's staging version appears: from now on it is writing
        time.sleep(duration * fraction)
        caught_mid_write += bool(list(crawldb.glob("tmp-*")))
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
        count = total(crawldb)
        assert count in (BASE, BIG), f"partial table after kill at {fraction:.0%}: {count} rows"
        for part in (crawldb / ("current" if (crawldb / "current").exists() else "old")).glob("*.parquet"):
            pq.read_table(part)  # every part of the live version is a complete Parquet file
        if count == BIG:  # the job finished before the kill: start again from the small table
            (crawldb / "current").rename(tmp_path / f"discard-{fraction}")
            (crawldb / "old").rename(crawldb / "current")
            assert total(crawldb) == BASE
    assert caught_mid_write >= 3, "the kills did not land while the writer was writing"

    final = gossamer_subprocess("inject", crawldb, big_seeds)
    assert final.returncode == 0, final.stderr
    assert total(crawldb) == BIG
    assert not list(crawldb.glob("tmp-*"))
