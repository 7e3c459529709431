"""The fetch job end to end through the CLI: processes, crawl_fetch, WARC, readseg, atomicity."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from warcio.archiveiterator import ArchiveIterator

from gossamer.core.status import CrawlStatus
from gossamer.crawl.fetch import job as fetch_job
from gossamer.engine.memory import CRAWL_ALLOCATOR_ENV
from tests.conftest import ENV_KEEP, stats_value, write_lines
from tests.fetch_server import Site, ThreadedSite

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")


def _site(site: Site) -> None:
    site.route("/robots.txt", body=b"User-agent: *\nDisallow: /private/\n", headers={"Content-Type": "text/plain"})
    site.route("/", body=b"<html><title>home</title><a href='/a'>a</a></html>")
    site.route("/a", body=b"<html>page a</html>")
    site.route("/private/x", body=b"secret")
    site.route("/moved", 301, headers={"Location": "/a"})
    site.route("/gone", 410)


def _segment(cli, tmp_path: Path, urls: list[str]) -> tuple[Path, Path]:  # noqa: ANN001
    crawldb = tmp_path / "crawl" / "crawldb"
    assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", urls)).code == 0
    assert cli("generate", crawldb, tmp_path / "crawl" / "segments").code == 0
    return crawldb, next(p for p in (tmp_path / "crawl" / "segments").iterdir() if p.name.isdigit())


def test_fetch_two_hosts_in_two_processes(cli, tmp_path: Path) -> None:
    with ThreadedSite("127.0.0.2") as one, ThreadedSite("127.0.0.3") as two:
        _site(one)
        _site(two)
        urls = [s.url(p) for s in (one, two) for p in ("/", "/a", "/private/x", "/moved", "/gone", "/missing")]
        crawldb, segment = _segment(cli, tmp_path, urls)
        result = cli("fetch", segment, "-processes", "2", *AGENT)
        assert result.code == 0, result.err
        assert "2 process(es)" in result.out
        for site in (one, two):
            assert not [h for h in site.hits if h.path.startswith("/private/")]
    rows = pq.read_table(segment / "crawl_fetch").to_pylist()
    by_url = {r["url"]: CrawlStatus(r["status"]) for r in rows}
    for site in (one, two):
        assert by_url[site.url("/")] == CrawlStatus.FETCH_SUCCESS
        assert by_url[site.url("/private/x")] == CrawlStatus.FETCH_GONE  # robots denied
        assert by_url[site.url("/moved")] == CrawlStatus.FETCH_REDIR_PERM
        assert by_url[site.url("/gone")] == CrawlStatus.FETCH_GONE
        assert by_url[site.url("/missing")] == CrawlStatus.FETCH_GONE
    assert sorted(p.name for p in (segment / "crawl_fetch").glob("part-*")) == ["part-00000.parquet",
                                                                                 "part-00001.parquet"]
    owner: dict[str, str] = {}
    for part in (segment / "crawl_fetch").glob("part-*.parquet"):
        urls_in_part = pq.read_table(part, columns=["url"]).column("url").to_pylist()
        assert urls_in_part == sorted(urls_in_part)
        for url in urls_in_part:  # a host is fetched by one process only
            assert owner.setdefault(url.split("/")[2], part.name) == part.name
    # WARC: a response and a request record per exchange, readable by warcio
    records = []
    for path in (segment / "content").glob("*.warc.gz"):
        with open(path, "rb") as stream:
            records += [(r.rec_type, r.rec_headers.get_header("WARC-Target-URI")) for r in ArchiveIterator(stream)]
    assert ("response", one.url("/")) in records and ("request", two.url("/gone")) in records
    assert not (segment / ".fetch-staging").exists()
    # readseg and updatedb agree with the fetch
    listed = cli("readseg", "-list", segment)
    assert listed.code == 0 and "\t12\t" in listed.out.splitlines()[1]
    got = cli("readseg", "-get", segment, one.url("/"))
    assert got.code == 0 and "fetch_success" in got.out and "<title>home</title>" in got.out
    assert cli("updatedb", crawldb, segment).code == 0
    stats = cli("readdb", crawldb, "-stats").out
    assert stats_value(stats, "status 2 (db_fetched)") == "4"
    assert stats_value(stats, "status 3 (db_gone)") == "6"
    assert stats_value(stats, "status 5 (db_redir_perm)") == "2"


def test_a_fetch_run_alone_starts_its_processes_on_a_crawls_allocators(
        cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CRAWL_ALLOCATOR_ENV:
        monkeypatch.delenv(name, raising=False)
    seen: dict[str, str | None] = {}
    real_run_tasks = fetch_job.run_tasks

    def run_tasks_seeing_the_environment(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        seen.update({name: os.environ.get(name) for name in CRAWL_ALLOCATOR_ENV})
        return real_run_tasks(*args, **kwargs)

    monkeypatch.setattr(fetch_job, "run_tasks", run_tasks_seeing_the_environment)
    with ThreadedSite("127.0.0.2") as site:
        _site(site)
        _, segment = _segment(cli, tmp_path, [site.url("/"), site.url("/a")])
        result = cli("fetch", segment, *AGENT)
    assert result.code == 0, result.err
    assert seen == CRAWL_ALLOCATOR_ENV  # the processes the fetch started inherit these
    assert not any(name in os.environ for name in CRAWL_ALLOCATOR_ENV)  # and the caller's environment is as it was
    assert CrawlStatus(pq.read_table(segment / "crawl_fetch").to_pylist()[0]["status"]) == CrawlStatus.FETCH_SUCCESS


def test_fetch_refuses_without_agent_and_twice(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        _site(site)
        _, segment = _segment(cli, tmp_path, [site.url("/")])
        result = cli("fetch", segment, "-D", "fetcher.server.delay=0")
        assert result.code == 2 and "http.agent.name" in result.err
        assert not site.hits
        assert cli("fetch", segment, "-processes", "1", *AGENT).code == 0
        again = cli("fetch", segment, "-processes", "1", *AGENT)
        assert again.code == 2 and "already fetched" in again.err


def test_a_killed_fetch_leaves_the_segment_unfetched_and_can_be_rerun(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        for i in range(40):
            site.route(f"/p{i}", body=b"x" * 100, delay=0.2)
        _, segment = _segment(cli, tmp_path, [site.url(f"/p{i}") for i in range(40)])
        exe = Path(sys.executable).with_name("gossamer")
        env = {k: v for k, v in __import__("os").environ.items() if k in ENV_KEEP}
        child = subprocess.Popen([str(exe), "fetch", str(segment), "-processes", "2", *AGENT],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=True)
        deadline = time.monotonic() + 30
        while len(site.hits) < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(site.hits) >= 5
        __import__("os").killpg(child.pid, signal.SIGKILL)
        child.wait(10)
        assert not (segment / "crawl_fetch").exists() and not (segment / "content").exists()
        result = cli("fetch", segment, "-processes", "1", "-threads", "20", *AGENT)
        assert result.code == 0, result.err
        assert pq.read_table(segment / "crawl_fetch").num_rows == 40
        assert not (segment / ".fetch-staging").exists()


def test_conditional_get_in_the_next_round_gives_notmodified(cli, tmp_path: Path) -> None:
    """Last-Modified and ETag of round 1 come back as If-Modified-Since / If-None-Match; 304 → db_notmodified."""
    from aiohttp import web

    last_modified = "Tue, 03 Nov 2026 10:00:00 GMT"

    async def page(request: web.Request) -> web.Response:
        if request.headers.get("If-None-Match") == '"v1"' or request.headers.get("If-Modified-Since") == last_modified:
            return web.Response(status=304)
        return web.Response(body=b"<html>page</html>", content_type="text/html",
                            headers={"Last-Modified": last_modified, "ETag": '"v1"'})

    with ThreadedSite() as site:
        site.routes["/page"] = page
        crawldb, segment = _segment(cli, tmp_path, [site.url("/page")])
        assert cli("fetch", segment, "-processes", "1", *AGENT).code == 0
        assert cli("updatedb", crawldb, segment).code == 0
        dumped = cli("readdb", crawldb, "-url", site.url("/page")).out
        assert "db_fetched" in dumped and "Modified time: Tue Nov 03 10:00:00 UTC 2026" in dumped
        segments = tmp_path / "crawl" / "segments"
        assert cli("generate", crawldb, segments, "-adddays", "31").code == 0
        second = max(p for p in segments.iterdir() if p.name.isdigit())
        assert second != segment
        assert cli("fetch", second, "-processes", "1", *AGENT).code == 0
        again = site.page_hits()[-1]
        assert again.headers.get("If-Modified-Since") == last_modified
        assert again.headers.get("If-None-Match") == '"v1"'
    rows = pq.read_table(second / "crawl_fetch").to_pylist()
    assert [CrawlStatus(r["status"]) for r in rows] == [CrawlStatus.FETCH_NOTMODIFIED]
    assert cli("updatedb", crawldb, second).code == 0
    stats = cli("readdb", crawldb, "-stats").out
    assert stats_value(stats, "status 6 (db_notmodified)") == "1"


def test_fetch_processes_get_balanced_shares_of_hosts(cli, tmp_path: Path) -> None:
    """Largest host first onto the least loaded process: a:6 | b:4 + c:3 (a hash could pair a with b)."""
    from gossamer.core.settings import load_settings
    from gossamer.crawl.fetch.job import balanced_shares, share_of

    urls = [f"http://{host}.example/{i}" for host, n in (("a", 6), ("b", 4), ("c", 3)) for i in range(n)]
    _, segment = _segment(cli, tmp_path, urls)
    settings = load_settings()
    shares = balanced_shares(segment / "crawl_generate", settings, 2)
    assert len(shares) == 3
    owners = [share_of(settings, 2, i, shares) for i in range(2)]
    counts = [sum(1 for url in urls if owns(url)) for owns in owners]
    assert sorted(counts) == [6, 7]
    for host in ("a", "b", "c"):  # a host is in exactly one share
        assert sum(owns(f"http://{host}.example/x") for owns in owners) == 1


def test_politeness_free_fetch_shares_hosts_between_processes(cli, tmp_path: Path) -> None:
    """threads.per.queue 4, no delay, 2 processes: both fetch the host, never more than 4 connections at once."""
    with ThreadedSite() as site:
        for i in range(60):
            site.route(f"/p{i}", body=b"<html>x</html>", delay=0.05)
        urls = [site.url(f"/p{i}") for i in range(60)]
        _, segment = _segment(cli, tmp_path, urls)
        result = cli("fetch", segment, "-processes", "2", "-D", "http.agent.name=gossamer-test",
                     "-D", "fetcher.threads.per.queue=4", "-D", "fetcher.server.min.delay=0")
        assert result.code == 0, result.err
        assert 2 < site.max_active <= 4
        assert len(site.page_hits()) == 60
    per_part = [pq.read_table(p).num_rows for p in sorted((segment / "crawl_fetch").glob("part-*.parquet"))]
    assert len(per_part) == 2 and min(per_part) > 10 and sum(per_part) == 60


def test_the_next_fetch_waits_the_delay_after_the_previous_rounds_last_request(cli, tmp_path: Path) -> None:
    """Two fetch jobs back to back (two crawl rounds): the host's delay holds across them, robots.txt included."""
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
        site.route("/a", body=b"<html>a</html>")
        site.route("/b", body=b"<html>b</html>")
        crawldb = tmp_path / "crawl" / "crawldb"
        segments = tmp_path / "crawl" / "segments"
        assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", [site.url("/a"), site.url("/b")])).code == 0
        polite = ("-processes", "1", "-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=1.5")
        for _ in range(2):
            assert cli("generate", crawldb, segments, "-topN", "1", "-D", "generate.update.crawldb=true").code == 0
            segment = max(p for p in segments.iterdir() if p.name.isdigit())
            assert cli("fetch", segment, *polite).code == 0, "fetch failed"
        hits = site.hits
    assert [h.path for h in hits][::2] == ["/robots.txt", "/robots.txt"]
    assert sorted(h.path for h in hits[1::2]) == ["/a", "/b"]
    second_job = hits[2]
    assert second_job.start - hits[1].end >= 1.45


def test_an_unreadable_previous_round_does_not_stop_the_fetch(cli, tmp_path: Path) -> None:
    from gossamer.core.settings import load_settings
    from gossamer.crawl.fetch.job import recent_requests

    previous = tmp_path / "segments" / "20260101000000" / "crawl_fetch"
    previous.mkdir(parents=True)
    (previous / "_table.json").write_text("{not json")
    current = tmp_path / "segments" / "20260101000100"
    current.mkdir()
    settings = load_settings().with_values([("fetcher.server.delay", 5.0)], "test")
    assert recent_requests(current, settings) == {}
