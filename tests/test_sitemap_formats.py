"""Sitemap documents and rules: formats, gzip, limits, unsafe XML, dates, the cross-host rule."""

from __future__ import annotations

import gzip

from gossamer.crawl.sitemap import ScopeRule, parse_sitemap
from gossamer.crawl.sitemap.fields import interval_for, parse_date, parse_priority

BASE = "http://a.test/dir/sitemap.xml"
URLSET = (b'<?xml version="1.0" encoding="UTF-8"?>'
          b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
          b"<url><loc>http://a.test/dir/1.html</loc><lastmod>2024-05-17T10:00:00+02:00</lastmod>"
          b"<changefreq>Weekly</changefreq><priority>0.8</priority></url>"
          b"<url><loc>2.html</loc><priority>7</priority><changefreq>sometimes</changefreq></url>"
          b"<url><lastmod>2024-01-01</lastmod></url>"
          b"</urlset>")


def test_urlset_fields_and_relative_and_missing_locations() -> None:
    parsed = parse_sitemap(URLSET, BASE)
    assert parsed.kind == "urlset" and not parsed.error
    first, second = parsed.urls
    assert first.url == "http://a.test/dir/1.html" and first.changefreq == "weekly" and first.priority == 0.8
    assert first.lastmod == 1715932800000  # 08:00 UTC
    assert second.url == "http://a.test/dir/2.html" and second.priority is None and second.changefreq is None
    assert parsed.invalid == 1


def test_gzip_by_magic_bytes_whatever_the_name() -> None:
    assert parse_sitemap(gzip.compress(URLSET), "http://a.test/dir/plain.xml").urls == parse_sitemap(URLSET, BASE).urls


def test_gzip_bomb_stops_at_the_size_limit() -> None:
    bomb = gzip.compress(b"<urlset>" + b" " * 5_000_000 + b"</urlset>")
    parsed = parse_sitemap(bomb, BASE, max_bytes=1_000_000)
    assert "sitemap.size.max" in parsed.error and not parsed.urls
    assert "bad gzip" in parse_sitemap(b"\x1f\x8bnot gzip at all", BASE).error


def test_index_text_rss_and_atom() -> None:
    index = parse_sitemap(b"<sitemapindex><sitemap><loc>http://a.test/s1.xml.gz</loc></sitemap>"
                          b"<sitemap><loc>/s2.xml</loc></sitemap></sitemapindex>", BASE)
    assert index.kind == "index" and index.sitemaps == ["http://a.test/s1.xml.gz", "http://a.test/s2.xml"]
    text = parse_sitemap(b"\xef\xbb\xbfhttp://a.test/x\r\nnot a url\n\n  http://a.test/y  \n", BASE)
    assert text.kind == "text" and [e.url for e in text.urls] == ["http://a.test/x", "http://a.test/y"]
    assert text.invalid == 1
    rss = parse_sitemap(b'<rss version="2.0"><channel><link>http://a.test/</link><item><title>T</title>'
                        b"<link>http://a.test/dir/p</link><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate>"
                        b"</item></channel></rss>", BASE)
    assert rss.kind == "feed" and [(e.url, e.lastmod) for e in rss.urls] == [("http://a.test/dir/p", 1055217600000)]
    atom = parse_sitemap(b'<feed xmlns="http://www.w3.org/2005/Atom"><entry>'
                         b'<link rel="self" href="http://a.test/self"/><link href="http://a.test/dir/e"/>'
                         b"<updated>2003-12-13T18:30:02Z</updated></entry></feed>", BASE)
    assert [(e.url, e.lastmod) for e in atom.urls] == [("http://a.test/dir/e", 1071340202000)]


def test_url_limit_counts_the_rest() -> None:
    body = b"<urlset>" + b"".join(b"<url><loc>http://a.test/dir/%d</loc></url>" % i for i in range(10)) + b"</urlset>"
    parsed = parse_sitemap(body, BASE, max_urls=4)
    assert len(parsed.urls) == 4 and parsed.over_limit == 6


def test_malformed_xml_keeps_what_was_read_and_says_why() -> None:
    parsed = parse_sitemap(b"<urlset><url><loc>http://a.test/dir/1</loc></url><url><loc>http://a.te", BASE)
    assert [e.url for e in parsed.urls] == ["http://a.test/dir/1"] and parsed.error.startswith("malformed XML")
    assert "root element <html>" in parse_sitemap(b"<html><body>hi</body></html>", BASE).error


def test_billion_laughs_and_external_entities_are_refused() -> None:
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10)
                         for i in range(1, 10))
              + b']><urlset><url><loc>http://a.test/&lol9;</loc></url></urlset>')
    parsed = parse_sitemap(laughs, BASE)
    assert parsed.error.startswith("unsafe XML refused") and not parsed.urls
    external = b'<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><urlset><url><loc>&e;</loc></url></urlset>'
    assert parse_sitemap(external, BASE).error.startswith("unsafe XML refused")


def test_deep_nesting_is_refused() -> None:
    deep = b"<urlset>" + b"<url>" * 10_000 + b"</url>" * 10_000 + b"</urlset>"
    assert "nested deeper" in parse_sitemap(deep, BASE).error


def test_dates_priorities_and_intervals() -> None:
    assert parse_date("2024") == parse_date("2024-01-01") == parse_date("2024-01-01T00:00:00Z") == 1704067200000
    assert parse_date("2024-02") == 1706745600000
    assert parse_date("yesterday") == 0 and parse_date("3000-01-01") == 0 and parse_date(None) == 0
    assert parse_priority("0.3") == 0.3 and parse_priority("-1") is None and parse_priority("x") is None
    assert interval_for("always", 100, 60.0, 7776000) == 60  # clamped to the schedule's bounds
    assert interval_for("never", 100, 60.0, 7776000) == 7776000
    assert interval_for("daily", 100, 60.0, 7776000) == 86400 and interval_for(None, 100, 60.0, 7776000) == 100


def test_cross_host_rule_strict_and_not() -> None:
    strict, loose, anything = ScopeRule(True), ScopeRule(False), ScopeRule(True, cross_host=True)
    assert strict.allowed("http://a.test/dir/x.html", BASE)
    assert not strict.allowed("http://a.test/other/x.html", BASE)
    assert loose.allowed("http://a.test/other/x.html", BASE)
    assert not loose.allowed("http://b.test/dir/x.html", BASE)
    assert anything.allowed("http://b.test/x.html", BASE)
    # announced in b.test's robots.txt: the sitemap may list any URL of b.test (cross-submission)
    assert strict.allowed("http://b.test/deep/x.html", BASE, owner="b.test")
    assert strict.allowed_sitemap("http://a.test/else/s.xml", BASE)
    assert not strict.allowed_sitemap("http://evil.test/s.xml", BASE)
