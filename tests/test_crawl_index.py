"""crawl --index end to end: a real loopback site crawled, inverted, deduplicated, indexed and searched."""

from __future__ import annotations

import json
from pathlib import Path

from gossamer.core.settings import load_settings
from gossamer.search.searcher import anchors, cached_page, open_searcher
from tests.conftest import write_lines
from tests.fetch_server import Site, ThreadedSite

SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.01",
            "-D", "linkdb.ignore.internal.links=false")  # one host: keep its anchors
HTML = {"Content-Type": "text/html; charset=utf-8"}


def _site(site: Site) -> None:
    site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
    site.route("/", body=b"<html lang='en'><head><title>Welcome home</title></head><body>"
                         b"<a href='/tea.html'>brewing green tea</a> <a href='/copy.html'>copy</a> "
                         b"<a href='/secret.html'>hidden</a> <a href='/de.html'>deutsch</a></body></html>",
               headers=HTML)
    site.route("/tea.html", body=b"<html lang='en'><head><title>Tea</title></head><body>How to brew a "
                                 b"pot of oolong. <a href='/'>home</a></body></html>", headers=HTML)
    site.route("/copy.html", body=b"<html lang='en'><head><title>Tea</title></head><body>How to brew a "
                                  b"pot of oolong. <a href='/'>home</a></body></html>", headers=HTML)
    site.route("/secret.html", body=b"<html><head><meta name='robots' content='noindex'><title>Secret oolong"
                                    b"</title></head><body>oolong secret</body></html>", headers=HTML)
    site.route("/de.html", body=b"<html><head><title>Tee</title></head><body>Wie man eine Kanne Oolong Tee "
                                b"zubereitet, ist eine Kunst, die man lernen kann.</body></html>", headers=HTML)


def test_crawl_index_then_search(cli, tmp_path: Path) -> None:
    crawl_dir = tmp_path / "crawl"
    with ThreadedSite() as site:
        _site(site)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        result = cli("crawl", seeds, "-d", crawl_dir, "-r", "2", "--index", *SETTINGS)
        assert result.code == 0, result.err
        home = site.url("/")
    # 5 pages: the noindex page is left out, and dedup marked /copy.html (same text as /tea.html, longer URL)
    assert "Indexer: documents added/replaced: 3" in result.out
    assert "robots_noindex 1" in result.out and "db_duplicate 1" in result.out
    settings = load_settings(crawl_dir)
    searcher = open_searcher(crawl_dir, settings)
    try:
        found = searcher.search("oolong", per_site=0)
        urls = {h.url for h in found.hits}
        assert site.url("/secret.html") not in urls and site.url("/copy.html") not in urls
        assert site.url("/tea.html") in urls
        green = searcher.search("green", per_site=0)  # on /tea.html only in the anchor text of its inlink
        assert site.url("/tea.html") in {h.url for h in green.hits}
        assert searcher.search("lang:de oolong").hits[0].url == site.url("/de.html")
        hit = searcher.search("welcome").hits[0]
        assert hit.url == home and hit.details.fields["warc"]
        page = cached_page(crawl_dir, hit.details.fields["warc"])
        assert page is not None and page.status == 200 and b"Welcome home" in page.body
        assert any(link.anchor == "brewing green tea" for link in anchors(crawl_dir, site.url("/tea.html")))
    finally:
        searcher.close()
    answer = cli("search", "-d", crawl_dir, "oolong", "--json")
    assert answer.code == 0, answer.err
    assert json.loads(answer.out)["total"] >= 2
