"""The crawl loop end to end: rounds discover pages through links, robots.txt and traps hold."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow.parquet as pq

from tests.conftest import stats_value, write_lines
from tests.fetch_server import Site, ThreadedSite

SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.05",
            "-D", "db.ignore.external.links=true")


def _web(site: Site) -> None:
    html = {"Content-Type": "text/html; charset=utf-8"}
    site.route("/robots.txt", body=b"User-agent: *\nDisallow: /private/\n", headers={"Content-Type": "text/plain"})
    site.route("/", body=b"<html><head><title>Home</title></head><body><a href='/a.html'>A</a> "
                         b"<a href='/private/s.html'>secret</a> <a href='/loop/1'>loop</a> "
                         b"<a href='http://example.org/'>out</a> <a href='/offsite'>away</a></body></html>",
               headers=html)
    site.route("/a.html", body=b"<html><body><a href='b.html'>B</a> <a href='/missing.html'>gone</a>"
                               b"</body></html>", headers=html)
    site.route("/b.html", body=b"<html><head><meta http-equiv='refresh' content='0; url=/c.html'></head>"
                               b"<body>moved</body></html>", headers=html)
    site.route("/c.html", body=b"<html><body>the end</body></html>", headers=html)
    site.route("/private/s.html", body=b"secret", headers=html)
    site.route("/loop/1", 302, headers={"Location": "/loop/2"})
    site.route("/loop/2", 302, headers={"Location": "/loop/1"})


def test_crawl_three_rounds(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site, ThreadedSite("127.0.0.3") as elsewhere:
        _web(site)
        site.route("/offsite", 302, headers={"Location": elsewhere.url("/")})  # external: ignored as a link
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        crawl_dir = tmp_path / "crawl"
        result = cli("crawl", seeds, "-d", crawl_dir, "-r", "4", *SETTINGS)
        assert result.code == 0, result.err
        paths = [h.path for h in site.hits]
        assert not elsewhere.hits  # db.ignore.also.redirects: the offsite redirect target is never recorded
    assert "/private/s.html" not in paths and "/c.html" in paths and "/loop/2" in paths
    assert result.out.count("== round") == 4
    fetched = sum(int(n.replace(",", "")) for n in re.findall(r"Fetcher: segment \d+: ([\d,]+) pages", result.out))
    stats = cli("readdb", crawl_dir / "crawldb", "-stats").out
    total = int(stats_value(stats, "TOTAL urls"))
    # every URL the crawldb knows was tried once; the robots-denied page (db_gone too) got no response:
    # it is no page fetched (issue 21: only real responses count as pages)
    assert fetched + 1 == total == 9
    assert stats_value(stats, "status 2 (db_fetched)") == "4"  # /, a, b, c
    assert stats_value(stats, "status 3 (db_gone)") == "2"  # private (robots), missing (404)
    assert stats_value(stats, "status 4 (db_redir_temp)") == "3"  # the loop, offsite
    urls = pq.read_table(crawl_dir / "crawldb" / "current").column("url").to_pylist()
    assert not [u for u in urls if "example.org" in u or "127.0.0.3" in u]
    segments = sorted(p for p in (crawl_dir / "segments").iterdir() if p.name.isdigit())
    for segment in segments:
        assert (segment / "parse_data" / "_SUCCESS").is_file() and (segment / "crawl_fetch" / "_SUCCESS").is_file()
    listed = cli("readseg", "-list", "-dir", crawl_dir / "segments")
    assert listed.code == 0 and len(listed.out.splitlines()) == 1 + len(segments)


def test_crawl_stops_when_nothing_is_due(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        site.route("/", body=b"<html><body>no links</body></html>")
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        result = cli("crawl", seeds, "-d", tmp_path / "crawl", "-r", "3", *SETTINGS)
    assert result.code == 0, result.err
    assert "nothing due" in result.out and result.out.count("== round") == 2


def test_crawl_with_a_separate_parse_step(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        _web(site)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        result = cli("crawl", seeds, "-d", tmp_path / "crawl", "-r", "2", *SETTINGS, "-D", "fetcher.parse=false")
    assert result.code == 0, result.err
    stats = cli("readdb", tmp_path / "crawl" / "crawldb", "-stats").out
    assert stats_value(stats, "status 2 (db_fetched)") == "2"  # / and a.html
