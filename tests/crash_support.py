"""What the crash tests share: a served site, a crawled directory, the jobs to kill and how to compare states.

:func:`observe` turns what a job changes into comparable text, so a test can say "the
crawl directory is as before the job, or as after it" without knowing the job's files.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import stats_value, write_lines
from tests.fetch_server import ThreadedSite

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0", "-D", "fetcher.parse=true")
PAGES = 6


@pytest.fixture(scope="module")
def site():  # noqa: ANN201
    with ThreadedSite() as running:
        for i in range(PAGES):
            running.route(f"/p{i}", body=f"<html><title>p{i}</title>page {i}</html>".encode())
        yield running


def status_counts(cli, crawldb: Path) -> dict[str, str]:  # noqa: ANN001
    stats = cli("readdb", crawldb, "-stats")
    assert stats.code == 0, stats.err
    return {s: stats_value(stats.out, s) if f"{s}:" in stats.out else "0"
            for s in ("TOTAL urls", "status 1 (db_unfetched)", "status 2 (db_fetched)")}


def observe(cli, job: str, root: Path) -> str:  # noqa: ANN001
    """What a job changes, as comparable text ("unreadable: …" when a command cannot read it)."""
    if job == "invertlinks":
        out = root / f"dump-{time.monotonic_ns()}"
        result = cli("readlinkdb", root / "linkdb", "-dump", out)
        return "no linkdb" if result.code != 0 else "\n".join(sorted(
            line for f in out.iterdir() if not f.name.startswith(".") for line in f.read_text().splitlines()))
    if job == "index":
        result = cli("search", "-d", root, "page", "--json", "-n", "50")
        return "no index" if result.code != 0 else str(result.out.count('"url"'))
    stats = cli("readdb", root / "crawldb", "-stats")
    assert stats.code == 0, (job, stats.err)  # the crawldb stays readable whatever happened
    lines = [line for line in stats.out.splitlines() if "time" not in line and not line.startswith("Statistics")]
    segments = sorted(p.name for p in (root / "segments").iterdir() if p.name.isdigit())
    return "\n".join([*lines, f"segments: {len(segments)}"])


JOBS: dict[str, Callable[[Path], list[str | Path]]] = {
    "inject": lambda root: ["inject", root / "crawldb", root / "more.txt"],
    "generate": lambda root: ["generate", root / "crawldb", root / "segments"],
    "invertlinks": lambda root: ["invertlinks", root / "linkdb", "-dir", root / "segments",
                                 "-D", "linkdb.ignore.internal.links=false"],
    "dedup": lambda root: ["dedup", root / "crawldb"],
    "index": lambda root: ["index", root / "crawldb", "-dir", root / "segments"],
}


@pytest.fixture(scope="module")
def crawled(site, tmp_path_factory: pytest.TempPathFactory) -> Path:  # noqa: ANN001
    """A crawl directory after one round (fetched with parsing, updated) plus due URLs, and new seeds."""
    from gossamer.cli.main import main

    root = tmp_path_factory.mktemp("crawled") / "crawl"
    seeds = write_lines(root.parent / "seeds.txt", [site.url(f"/p{i}") for i in range(PAGES)])
    assert main(["crawl", str(seeds), "-d", str(root), "-r", "1", *AGENT]) == 0
    due = write_lines(root.parent / "due.txt", [f"http://due{i}.example/" for i in range(5)])
    assert main(["inject", str(root / "crawldb"), str(due)]) == 0  # something for generate to select
    write_lines(root / "more.txt", [f"http://new{i}.example/" for i in range(5)])
    return root


