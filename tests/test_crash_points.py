"""Kill fetch and updatedb just before their renames; the crawl directory always recovers.

``strace -f -e inject=rename…:signal=KILL:when=N`` kills the process that makes the N-th
rename (the driver or a task process) before the rename happens, so a commit point of a
job gets a crash right before it and right after the one before (which renames: see
:func:`_kill_points`).  After each crash:
the segment is fetched completely or not at all (content or parse tables without
``crawl_fetch`` are refused by updatedb and removed by the next fetch), the crawldb is the
previous or the new version, every command still runs, and after finishing the work the
crawldb holds every page as fetched once: nothing lost, nothing applied twice.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import crash_support
from tests.conftest import ENV_KEEP, write_lines
from tests.crash_support import AGENT, JOBS, PAGES, observe, status_counts

site = crash_support.site
crawled = crash_support.crawled

pytestmark = pytest.mark.slow
STRACE = shutil.which("strace")
RENAMES = "rename,renameat,renameat2"

if STRACE is None:
    if os.environ.get("GOSSAMER_SKIP_STRACE") == "1":
        pytest.skip("GOSSAMER_SKIP_STRACE=1: crash-point tests skipped", allow_module_level=True)
    pytest.fail("strace is missing: scripts/test installs it (apt-get install strace)", pytrace=False)
elif subprocess.run([STRACE, "-o", os.devnull, "true"], capture_output=True, check=False).returncode != 0:
    pytest.skip("strace cannot trace here (ptrace not permitted in this container)", allow_module_level=True)


def _gossamer(*args: str | Path, kill_at: int | None = None, trace: Path | None = None) -> int:
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # Python writes .pyc files by rename: they would shift the count
    command = [str(exe), *map(str, args)]
    if kill_at is not None or trace is not None:
        strace = [STRACE or "strace", "-f", "-qq", "-o", str(trace or os.devnull), "-e", f"trace={RENAMES}"]
        if kill_at is not None:
            strace += ["-e", f"inject={RENAMES}:signal=KILL:when={kill_at}"]
        command = [*strace, "--", *command]
    return subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          timeout=120, check=False).returncode


def _kill_points(trace: Path) -> list[int]:
    """Which renames to die before: the first (while writing), and the installs' directory renames.

    Part files renamed inside a staging directory all leave the same state (nothing installed),
    so one of them stands for all; of the directory renames, the first two and the last (the
    commit) are taken.
    """
    # every rename as entered, in order (strace -f splits a call that overlaps another thread's into
    # "rename(… <unfinished ...>" and "<... rename resumed>"; the first half carries the paths)
    renames = [line for line in trace.read_text().splitlines() if re.search(r"\brename(at2?)?\(", line)]
    directories = [n for n, line in enumerate(renames, 1) if not re.search(r"part-\d+\.parquet", line)]
    return sorted({1, *directories[:2], *directories[-1:]})


def _fresh_segment(cli, root: Path, site) -> tuple[Path, Path]:  # noqa: ANN001
    crawldb, segments = root / "crawldb", root / "segments"
    root.mkdir(parents=True)
    assert cli("inject", crawldb, write_lines(root / "seeds.txt", [site.url(f"/p{i}") for i in range(PAGES)])).code == 0
    assert cli("generate", crawldb, segments).code == 0
    return crawldb, next(p for p in segments.iterdir() if p.name.isdigit())


def test_fetch_killed_at_its_renames_leaves_the_segment_unfetched_or_fetched(cli, site, tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    crawldb, segment = _fresh_segment(cli, tmp_path / "clean", site)
    assert _gossamer("fetch", segment, "-processes", "1", *AGENT, trace=trace) == 0
    points = _kill_points(trace)
    assert len(points) == 4  # writing; content, the first parse table, crawl_fetch
    for n in points:
        crawldb, segment = _fresh_segment(cli, tmp_path / f"kill{n}", site)
        assert _gossamer("fetch", segment, "-processes", "1", *AGENT, kill_at=n) != 0
        if (segment / "crawl_fetch").exists():
            assert cli("fetch", segment, *AGENT).code == 2  # already fetched: complete
        else:
            refused = cli("updatedb", crawldb, segment)
            if (segment / "crawl_parse").exists():
                assert refused.code == 2 and "did not finish" in refused.err, (n, refused.err)
            assert cli("fetch", segment, *AGENT).code == 0, n  # the next run removes the leftovers
        assert cli("updatedb", crawldb, segment).code == 0, n
        counts = status_counts(cli, crawldb)
        assert counts["status 2 (db_fetched)"] == str(PAGES), (n, counts)


def test_updatedb_killed_at_its_renames_applies_the_segment_exactly_once(cli, site, tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    crawldb, segment = _fresh_segment(cli, tmp_path / "clean", site)
    assert cli("fetch", segment, *AGENT).code == 0
    pristine = tmp_path / "pristine"
    shutil.copytree(tmp_path / "clean", pristine)
    assert _gossamer("updatedb", crawldb, segment, trace=trace) == 0
    expected = status_counts(cli, crawldb)
    points = _kill_points(trace)
    assert len(points) == 3  # writing; current -> old, staging -> current
    for n in points:
        root = tmp_path / f"kill{n}"
        shutil.copytree(pristine, root)
        crawldb, segment = root / "crawldb", root / "segments" / segment.name
        assert _gossamer("updatedb", crawldb, segment, kill_at=n) != 0
        before = status_counts(cli, crawldb)  # readable: the previous or the new version
        assert before in ({**expected, "status 2 (db_fetched)": "0", "status 1 (db_unfetched)": str(PAGES)},
                          expected), (n, before)
        again = cli("updatedb", crawldb, segment)
        if before == expected:
            assert again.code == 2 and "already absorbed" in again.err, (n, again.err)  # not applied twice
        else:
            assert again.code == 0, (n, again.err)
        assert status_counts(cli, crawldb) == expected, n


@pytest.mark.parametrize("job", sorted(JOBS))
def test_table_jobs_killed_at_their_renames_leave_the_old_or_the_new_state(cli, crawled: Path, tmp_path: Path,
                                                                           job: str) -> None:
    """Inject, generate, invertlinks, dedup, index: after a kill the crawl is as before or as after, every
    command still reads it, and running the job again ends where one clean run ends."""
    clean = tmp_path / "clean"
    shutil.copytree(crawled, clean)
    before = observe(cli, job, clean)
    trace = tmp_path / "trace.txt"
    assert _gossamer(*JOBS[job](clean), trace=trace) == 0
    expected = observe(cli, job, clean)
    assert expected != before or job == "dedup"
    for n in _kill_points(trace):
        root = tmp_path / f"kill{n}"
        shutil.copytree(crawled, root)
        finished = _gossamer(*JOBS[job](root), kill_at=n) == 0  # threads may rename in another order
        after_kill = observe(cli, job, root)
        assert after_kill in ((expected,) if finished else (before, expected)), (job, n, after_kill)
        if after_kill == before or job in ("inject", "dedup", "index", "invertlinks"):
            result = cli(*JOBS[job](root))
            assert result.code == 0, (job, n, result.err)
        assert observe(cli, job, root) == expected, (job, n)
