"""Every crawl job killed (SIGKILL) at random moments: the crawl always recovers, nothing lost or applied twice.

Where ``test_crash_points`` kills at each rename, this kills the running command at a random
moment of its run (seeded: the moments are printed on failure and repeat), for each of
inject, generate, fetch, parse, updatedb, invertlinks, dedup, index and crawl.  After each
kill: the crawl directory is as before the job or as after it (``observe``), every command
still reads it, and running the job again ends exactly where one clean run ends.
``GOSSAMER_CRASH_KILLS`` (default 1 in a test run, to keep the suite short) sets how many
moments per job: ``GOSSAMER_CRASH_KILLS=20 pytest tests/test_crash_random.py`` kills each job 20 times.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests import crash_support
from tests.conftest import ENV_KEEP, write_lines
from tests.crash_support import AGENT, JOBS, PAGES, observe, status_counts

pytestmark = pytest.mark.slow
site = crash_support.site
crawled = crash_support.crawled
KILLS = int(os.environ.get("GOSSAMER_CRASH_KILLS", "1"))


def _run(args: list[str | Path], kill_after: float | None = None) -> tuple[int, float]:
    """Run ``gossamer args``; SIGKILL it after ``kill_after`` seconds. Exit code (−9 if killed) and run time."""
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    started = time.monotonic()
    child = subprocess.Popen([str(exe), *map(str, args)], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        child.wait(kill_after)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        time.sleep(0.2)  # its task processes die with it
    return child.returncode, time.monotonic() - started


def _moments(job: str, clean_seconds: float) -> list[float]:
    """Kill moments for ``job``: seeded by its name, spread over the clean run's time (start-up included)."""
    rng = random.Random(f"crash-{job}")
    return sorted(round(rng.uniform(0.25, 1.0) * clean_seconds, 3) for _ in range(KILLS))


@pytest.mark.parametrize("job", sorted(JOBS))
def test_table_jobs_killed_at_random_moments(cli, crawled: Path, tmp_path: Path, job: str) -> None:
    clean = tmp_path / "clean"
    shutil.copytree(crawled, clean)
    before = observe(cli, job, clean)
    code, seconds = _run(JOBS[job](clean))
    assert code == 0
    expected = observe(cli, job, clean)
    for n, moment in enumerate(_moments(job, seconds)):
        root = tmp_path / f"kill{n}"
        shutil.copytree(crawled, root)
        code, _ = _run(JOBS[job](root), kill_after=moment)
        after_kill = observe(cli, job, root)
        assert after_kill in ((expected,) if code == 0 else (before, expected)), (job, moment, after_kill)
        if code != 0 and (after_kill == before or job != "generate"):
            again = cli(*JOBS[job](root))
            assert again.code == 0, (job, moment, again.err)
        assert observe(cli, job, root) == expected, (job, moment)


def _segment(cli, root: Path, site, parse: bool) -> tuple[Path, Path]:  # noqa: ANN001
    crawldb, segments = root / "crawldb", root / "segments"
    root.mkdir(parents=True)
    assert cli("inject", crawldb, write_lines(root / "seeds.txt", [site.url(f"/p{i}") for i in range(PAGES)])).code == 0
    assert cli("generate", crawldb, segments).code == 0
    segment = next(p for p in segments.iterdir() if p.name.isdigit())
    if not parse:
        assert cli("fetch", segment, *AGENT, "-D", "fetcher.parse=false").code == 0
    return crawldb, segment


def test_fetch_parse_and_updatedb_killed_at_random_moments(cli, site, tmp_path: Path) -> None:  # noqa: ANN001
    """fetch (with parsing), parse and updatedb: after any kill the re-run completes and applies once."""
    clean_db, clean_seg = _segment(cli, tmp_path / "clean", site, parse=False)
    timings = {"parse": _run(["parse", clean_seg])[1]}
    timings["updatedb"] = _run(["updatedb", clean_db, clean_seg])[1]
    expected = status_counts(cli, clean_db)
    assert expected["status 2 (db_fetched)"] == str(PAGES)
    fresh_db, fresh_seg = _segment(cli, tmp_path / "timing", site, parse=True)
    timings["fetch"] = _run(["fetch", fresh_seg, *AGENT])[1]
    for job in ("fetch", "parse", "updatedb"):
        for n, moment in enumerate(_moments(job, timings[job])):
            crawldb, segment = _segment(cli, tmp_path / f"{job}{n}", site, parse=job == "fetch")
            if job == "updatedb":
                assert cli("parse", segment).code == 0
            args = {"fetch": ["fetch", segment, *AGENT], "parse": ["parse", segment],
                    "updatedb": ["updatedb", crawldb, segment]}[job]
            code, _ = _run(args, kill_after=moment)
            assert status_counts(cli, crawldb)  # readable whatever happened
            if code != 0:
                again = cli(*args)
                assert again.code == 0 or (again.code == 2 and ("already" in again.err)), (job, moment, again.err)
            if job == "parse":
                assert cli("parse", segment).code == 2  # parsed, once
            if job != "updatedb":
                assert cli("updatedb", crawldb, segment).code == 0, (job, moment)
            else:
                assert cli("updatedb", crawldb, segment).code == 2  # absorbed, never twice
            assert status_counts(cli, crawldb) == expected, (job, moment)


def test_crawl_killed_at_random_moments_ends_like_a_clean_crawl(cli, site, tmp_path: Path) -> None:  # noqa: ANN001
    seeds = write_lines(tmp_path / "seeds.txt", [site.url(f"/p{i}") for i in range(PAGES)])
    args = lambda root: ["crawl", seeds, "-d", root, "-r", "2", *AGENT]  # noqa: E731
    code, seconds = _run(args(tmp_path / "clean"))
    assert code == 0
    expected = status_counts(cli, tmp_path / "clean" / "crawldb")
    for n, moment in enumerate(_moments("crawl", seconds)):
        root = tmp_path / f"kill{n}"
        _run(args(root), kill_after=moment)
        again = cli(*args(root))
        assert again.code == 0, (moment, again.err)
        assert status_counts(cli, root / "crawldb") == expected, moment
        assert cli("clean-tmp", "-d", root).out.startswith("clean-tmp: 0 removed"), moment
