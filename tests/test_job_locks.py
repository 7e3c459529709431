"""Locks on every shared place: a segment being fetched or parsed, a crawl directory under ``crawl``.

And task processes that die with their driver: a ``kill -9`` of the fetch leaves nothing fetching.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import ENV_KEEP, write_lines
from tests.fetch_server import Site, ThreadedSite

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")


def _slow_site(site: Site, pages: int = 12, delay: float = 0.3, hosts: tuple[str, ...] = ("127.0.0.1",)) -> list[str]:
    """Slow pages; ``hosts`` (names of this one server) make as many politeness queues."""
    for i in range(pages):
        site.route(f"/p{i}", body=b"<html>x</html>", delay=delay)
    return [site.url(f"/p{i}", host) for host in hosts for i in range(pages)]


def _segment(cli, tmp_path: Path, urls: list[str]) -> Path:  # noqa: ANN001
    crawldb = tmp_path / "crawl" / "crawldb"
    assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", urls)).code == 0
    assert cli("generate", crawldb, tmp_path / "crawl" / "segments").code == 0
    return next(p for p in (tmp_path / "crawl" / "segments").iterdir() if p.name.isdigit())


def _start(*args: str | Path) -> subprocess.Popen[bytes]:
    exe = Path(sys.executable).with_name("gossamer")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    return subprocess.Popen([str(exe), *map(str, args)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _wait_for(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.05)


def _stat(pid: int) -> tuple[str, int, str] | None:
    """(state, parent pid, command line) of a live process; None when it is gone or a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return None
    state, ppid = stat.rsplit(")", 1)[1].split()[:2]
    return None if state in ("Z", "X") else (state, int(ppid), cmdline)


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (info := _stat(int(entry.name))) is not None and info[1] == pid:
            found.append(int(entry.name))
    return found


def _holds_lock(place: Path) -> Callable[[], bool]:
    lock = place / ".locked"
    return lambda: lock.is_file() and lock.stat().st_size > 0


def test_a_segment_being_fetched_refuses_a_second_fetch_and_a_parse_naming_the_holder(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        segment = _segment(cli, tmp_path, _slow_site(site))
        first = _start("fetch", segment, "-processes", "1", "-threads", "2", *AGENT)
        try:
            _wait_for(_holds_lock(segment))
            second = cli("fetch", segment, *AGENT)
            assert second.code == 2 and f"is locked by pid {first.pid}" in second.err, second.err
            assert "fetch" in second.err and "store.lock.wait.seconds" in second.err
            assert cli("parse", segment, *AGENT).code == 2
            waited = cli("fetch", segment, *AGENT, "-D", "store.lock.wait.seconds=60")
            assert first.wait(60) == 0
        finally:
            if first.poll() is None:
                os.killpg(first.pid, signal.SIGKILL)
        assert waited.code == 2 and "already fetched" in waited.err, waited.err  # waited, then found it done
        assert len(site.page_hits()) == 12  # every page requested once


def test_a_crawl_directory_takes_one_crawl_at_a_time(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        urls = _slow_site(site)
        seeds = write_lines(tmp_path / "seeds.txt", urls)
        crawl = tmp_path / "crawl"
        first = _start("crawl", seeds, "-d", crawl, "-r", "1", *AGENT)
        try:
            _wait_for(_holds_lock(crawl))
            second = cli("crawl", seeds, "-d", crawl, "-r", "1", *AGENT)
            assert second.code == 2 and f"{crawl} is locked by pid {first.pid}" in second.err, second.err
            assert first.wait(60) == 0
        finally:
            if first.poll() is None:
                os.killpg(first.pid, signal.SIGKILL)
        assert len(site.page_hits()) == 12
        again = cli("crawl", seeds, "-d", crawl, "-r", "1", *AGENT)
        assert again.code == 0, again.err  # released: the next crawl runs


def test_task_processes_die_with_a_killed_driver(cli, tmp_path: Path) -> None:
    """``kill -9`` of the fetch's own process only (not its group): its task processes stop at once."""
    with ThreadedSite() as site:
        segment = _segment(cli, tmp_path, _slow_site(site, pages=100, delay=0.1, hosts=("127.0.0.1", "localhost")))
        driver = _start("fetch", segment, "-processes", "2", "-threads", "4", *AGENT)
        try:
            _wait_for(lambda: len(site.hits) >= 5)
            tasks = [c for c in _children(driver.pid) if "spawn_main" in (_stat(c) or ("", 0, ""))[2]]
            assert len(tasks) == 2, [_stat(c) for c in _children(driver.pid)]
            os.kill(driver.pid, signal.SIGKILL)
            driver.wait(10)
            _wait_for(lambda: all(_stat(t) is None for t in tasks), seconds=5)
            settled = len(site.hits)
            time.sleep(1.0)
            assert len(site.hits) == settled  # nothing is fetching any more
        finally:
            if driver.poll() is None:
                os.killpg(driver.pid, signal.SIGKILL)
