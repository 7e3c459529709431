"""``gossamer sitemap`` and ``crawl --sitemaps`` against a real HTTP server on loopback."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.conftest import write_lines
from tests.fetch_server import Site, ThreadedSite

SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0")
XML = {"Content-Type": "application/xml"}


def _web(site: Site) -> None:
    """robots.txt → an index → two sitemaps (one gzipped) listing /orphan.html, linked from nowhere."""
    u = site.url
    site.route("/robots.txt", body=f"User-agent: *\nDisallow: /private/\nSitemap: {u('/index.xml')}\n".encode(),
               headers={"Content-Type": "text/plain"})
    site.route("/", body=b"<html><body>home, no links</body></html>")
    site.route("/index.xml", body=f"<sitemapindex><sitemap><loc>{u('/maps/a.xml')}</loc></sitemap>"
                                  f"<sitemap><loc>{u('/maps/b.xml.gz')}</loc></sitemap></sitemapindex>".encode(),
               headers=XML)
    site.route("/maps/a.xml", body=f"<urlset><url><loc>{u('/orphan.html')}</loc><changefreq>daily</changefreq>"
                                   f"<priority>0.9</priority><lastmod>2024-03-01</lastmod></url>"
                                   f"<url><loc>http://elsewhere.test/x.html</loc></url></urlset>".encode(),
               headers=XML)
    site.route("/maps/b.xml.gz", body=gzip.compress(f"<urlset><url><loc>{u('/maps/page.html')}</loc></url>"
                                                    f"<url><loc>{u('/private/p.html')}</loc></url>"
                                                    f"</urlset>".encode()),
               headers={"Content-Type": "application/x-gzip"})
    site.route("/orphan.html", body=b"<html><body>found only through the sitemap</body></html>")
    site.route("/maps/page.html", body=b"<html><body>page</body></html>")


def _rows(crawldb: Path) -> dict[str, dict]:
    table = pq.read_table(crawldb / "current")
    return {row["url"]: row for row in table.to_pylist()}


@pytest.mark.slow
def test_crawl_with_sitemaps_fetches_the_orphan_page(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        _web(site)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        result = cli("crawl", seeds, "-d", tmp_path / "crawl", "-r", "1", "--sitemaps", *SETTINGS)
        assert result.code == 0, result.err
        paths = [h.path for h in site.hits]
    assert "/orphan.html" in paths and "/maps/page.html" in paths
    assert "/private/p.html" not in paths  # listed, but robots.txt disallows it
    assert "new_sitemap_entries: 3" in result.out and "rejected off host/path: 1" in result.out


def test_sitemap_command_fields_strict_rule_and_rerun(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        _web(site)
        crawldb = tmp_path / "crawl" / "crawldb"
        assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", [site.url("/")]), *SETTINGS).code == 0
        (tmp_path / "sm").mkdir()
        urls = write_lines(tmp_path / "sm" / "list.txt", ["# sitemaps", site.url("/maps/a.xml")])
        result = cli("sitemap", crawldb, "-sitemapUrls", urls.parent, "--json", *SETTINGS)
        assert result.code == 1, result.err  # every URL rejected: nothing to merge
        rows = _rows(crawldb)
        # strict: /maps/a.xml may list only URLs under /maps/ — /orphan.html is outside
        assert site.url("/orphan.html") not in rows and '"urls_rejected_cross_host": 2' in result.out
        result = cli("sitemap", crawldb, "-sitemapUrls", urls.parent, "-noStrict", *SETTINGS)
        assert result.code == 0, result.err
        orphan = _rows(crawldb)[site.url("/orphan.html")]
        assert orphan["status"] == 1 and abs(orphan["score"] - 0.9) < 1e-6 and orphan["fetch_interval"] == 86400
        assert orphan["modified_time"].year == 2024
        # a second run finds the URL known: the row stays (no overwrite by default)
        result = cli("sitemap", "-d", tmp_path / "crawl", "-sitemapUrls", urls, "-noStrict", *SETTINGS)
        assert "existing_sitemap_entries: 1" in result.out and len(_rows(crawldb)) == 2


def test_broken_and_missing_sitemaps_are_counted_not_fatal(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
        site.route("/bad.xml", body=b"<urlset><url><loc>" + site.url("/x").encode(), headers=XML)
        site.route("/bomb.xml", body=b'<!DOCTYPE x [<!ENTITY a "aaaa">]><urlset><url><loc>&a;</loc></url></urlset>',
                   headers=XML)
        crawldb = tmp_path / "crawl" / "crawldb"
        assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", [site.url("/")]), *SETTINGS).code == 0
        lines = [site.url("/bad.xml"), site.url("/bomb.xml"), site.url("/missing.xml")]
        result = cli("sitemap", crawldb, "-sitemapUrls", write_lines(tmp_path / "sm.txt", lines), "--json",
                     *SETTINGS)
        assert result.code == 1  # nothing listed: the crawldb is left as it was
        assert '"sitemaps_failed": 1' in result.out and '"sitemap_errors": 2' in result.out
        assert list(_rows(crawldb)) == [site.url("/")]


def test_robots_without_sitemap_tries_sitemap_xml_and_nesting_limit(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        u = site.url
        site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
        site.route("/sitemap.xml", body=f"<sitemapindex><sitemap><loc>{u('/i2.xml')}</loc></sitemap>"
                                        f"</sitemapindex>".encode(), headers=XML)
        site.route("/i2.xml", body=f"<sitemapindex><sitemap><loc>{u('/s.txt')}</loc></sitemap>"
                                   f"</sitemapindex>".encode(), headers=XML)
        site.route("/s.txt", body=f"{u('/deep.html')}\n".encode(), headers={"Content-Type": "text/plain"})
        crawldb = tmp_path / "crawl" / "crawldb"
        assert cli("inject", crawldb, write_lines(tmp_path / "seeds.txt", [u("/")]), *SETTINGS).code == 0
        result = cli("sitemap", crawldb, "--json", "-D", "sitemap.index.depth.max=1", *SETTINGS)
        assert result.code == 1 and '"sitemaps_too_deep": 1' in result.out
        result = cli("sitemap", crawldb, "--json", *SETTINGS)
        assert result.code == 0 and u("/deep.html") in _rows(crawldb)


@pytest.mark.slow
def test_newer_lastmod_makes_a_fetched_page_due(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        u = site.url
        site.route("/robots.txt", body=b"User-agent: *\nAllow: /\n", headers={"Content-Type": "text/plain"})
        site.route("/", body=b"<html><body>home</body></html>")
        site.route("/sitemap.xml", body=f"<urlset><url><loc>{u('/')}</loc><lastmod>2100-01-01</lastmod></url>"
                                        f"</urlset>".encode(), headers=XML)
        crawl = tmp_path / "crawl"
        assert cli("crawl", write_lines(tmp_path / "seeds.txt", [u("/")]), "-d", crawl, "-r", "1",
                   *SETTINGS).code == 0
        before = _rows(crawl / "crawldb")[u("/")]
        assert before["status"] == 2  # db_fetched, due in 30 days
        soon = (datetime.now(UTC) + timedelta(hours=1)).isoformat()  # after the fetch, not in the future
        site.route("/sitemap.xml", body=f"<urlset><url><loc>{u('/')}</loc><lastmod>{soon}</lastmod></url>"
                                        f"</urlset>".encode(), headers=XML)
        result = cli("sitemap", "-d", crawl, "--json", "-D", "sitemap.lastmod.refetch=true", *SETTINGS)
    assert result.code == 0, result.err
    after = _rows(crawl / "crawldb")[u("/")]
    assert after["status"] == 2
    assert after["fetch_time"] < before["fetch_time"] and '"urls_refetch": 1' in result.out
