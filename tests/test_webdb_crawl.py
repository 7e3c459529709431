"""``webdb.update=true``: the crawl keeps the WebDB up to date round by round, as a full build would make it."""

from __future__ import annotations

import shutil
from pathlib import Path

from gossamer.webdb import WebDB
from tests.conftest import write_lines
from tests.fetch_server import ThreadedSite

AGENT = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")


def _contents(webdb: Path) -> tuple[list, list]:
    reader = WebDB.open(webdb).reader()
    pages = [(p.url, p.md5, p.fetch_time, p.retries, p.interval) for p in reader.pages()]
    links = [(link.from_md5, link.to_url, link.anchor) for link in reader.links()]
    return pages, links


def test_the_crawl_updates_the_webdb_like_a_full_build(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        for i in range(4):
            links = "".join(f"<a href='/p{j}'>to p{j}</a>" for j in range(4) if j != i)
            site.route(f"/p{i}", body=f"<html><title>p{i}</title>{links} page {i}</html>".encode())
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/p0")])
        crawl = tmp_path / "crawl"
        for rounds in (1, 2):  # after round 1 p1..p3 are known, not fetched; after round 2, fetched
            first = [seeds] if rounds == 1 else []
            done = cli("crawl", *first, "-d", crawl, "-r", "1", *AGENT, "-D", "webdb.update=true")
            assert done.code == 0, done.err
            updated = _contents(crawl / "webdb")
            assert len(updated[0]) == 4 and len(updated[1]) == (3 if rounds == 1 else 12), updated
            rebuilt = tmp_path / f"rebuilt{rounds}"
            shutil.copytree(crawl, rebuilt, ignore=shutil.ignore_patterns("webdb"))
            assert cli("webdb", "-d", rebuilt, "build").code == 0
            assert _contents(rebuilt / "webdb") == updated, rounds


def test_no_webdb_unless_asked(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        site.route("/", body=b"<html><title>x</title>x</html>")
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        assert cli("crawl", seeds, "-d", tmp_path / "crawl", "-r", "1", *AGENT).code == 0
    assert not (tmp_path / "crawl" / "webdb").exists()
