"""The search pages, JSON API and OpenSearch over a real crawl of a loopback site, through a real server."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html import unescape
from pathlib import Path
from urllib.parse import quote

import pytest

from gossamer.core.settings import load_settings
from gossamer.web import create_app
from tests.web_fixtures import HTML, crawl_site, fetch
from tests.web_server import serve_app

OS_NS = "{http://a9.com/-/spec/opensearch/1.1/}"
ATOM_NS = "{http://www.w3.org/2005/Atom}"


def _routes() -> dict[str, tuple[bytes, dict[str, str]]]:
    links = " ".join(f"<a href='/tea{i}.html'>brewing green tea {i}</a>" for i in range(1, 6))
    routes = {
        "/": (f"<html lang='en'><head><title>Welcome home</title></head><body>A tea garden. {links} "
              "<a href='/notes.txt'>notes</a> <a href='/news.html'>latest</a></body></html>".encode(), HTML),
        "/notes.txt": (b"plain oolong notes, written down", {"Content-Type": "text/plain; charset=utf-8"}),
        # the text begins with the title (the parser puts it first), then a heading repeating it
        "/news.html": (b"<html lang='en'><head><title>News</title></head><body><h1>News</h1>"
                       b"<p>Harvest report: the news of the spring picking.</p></body></html>", HTML),
    }
    for i in range(1, 6):
        words = " ".join(["oolong"] * i)
        routes[f"/tea{i}.html"] = (f"<html lang='en'><head><title>Tea {i}</title><style>p {{color: teal}}</style>"
                                   f"</head><body><p>How to brew {words} number{i}.</p><a href='/'>home</a>"
                                   "</body></html>".encode(), HTML)
    return routes


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """(server base URL, crawled site base URL)."""
    crawl_dir = tmp_path_factory.mktemp("web") / "crawl"
    origin = crawl_site(crawl_dir, _routes())
    app = create_app(crawl_dir, load_settings(crawl_dir))
    with serve_app(app) as base:
        yield base, origin


def _attr(html: str, pattern: str) -> list[str]:
    return [unescape(v) for v in re.findall(pattern, html)]


def test_home_has_search_form(site: tuple[str, str]) -> None:
    answer = fetch(site[0], "/")
    assert answer.status == 200 and answer.headers["content-type"].startswith("text/html")
    html = answer.text
    assert re.search(r'<form id="search-form"[^>]*action="/search"[^>]*method="get"', html)
    assert re.search(r'<input id="q" name="q"', html) and 'id="search-button"' in html
    assert "site:" in html and "<script" not in html
    assert "default-src 'none'" in answer.headers["content-security-policy"]


def test_results_with_highlights(site: tuple[str, str]) -> None:
    base, origin = site
    html = fetch(base, "/search?q=oolong&per_site=0").text
    assert 'value="oolong"' in html
    assert re.search(r'id="result-count">Hits 1–6 of about 6<', html)
    assert re.search(r'id="result-time">\d+\.\d+ seconds<', html)
    assert html.count('<li class="hit">') == 6 and '<ol id="results"' in html
    assert "<mark>oolong</mark>" in html
    titles = _attr(html, r'<a class="hit-title" href="([^"]+)"')
    assert f"{origin}/tea5.html" in titles and f"{origin}/notes.txt" in titles
    cached = _attr(html, r'<a class="hit-cached" href="([^"]+)"')
    assert f"/cached?url={quote(origin + '/tea5.html', safe='')}" in cached
    assert any(h.startswith("/explain?url=") and h.endswith("&q=oolong")
               for h in _attr(html, r'<a class="hit-explain" href="([^"]+)"'))
    assert _attr(html, r'<a class="hit-anchors" href="([^"]+)"')
    assert re.search(r'<a class="hit-title" href="[^"]+/notes.txt"[^>]*>[^<]+/notes.txt</a>', html)  # no title


def test_snippets_do_not_repeat_the_title(site: tuple[str, str]) -> None:
    """The page text starts with the title ("News News Harvest …"): the snippet starts after it."""
    base, origin = site
    for query in ("harvest", "news", "spring"):
        hits = fetch(base, f"/api/search?q={query}&per_site=0").json()["hits"]
        news = next(h for h in hits if h["url"] == origin + "/news.html")
        assert news["title"] == "News"
        assert news["snippet"].startswith("Harvest report"), (query, news["snippet"])
        marked = {news["snippet"][a:b].lower() for a, b in news["highlights"]}
        assert marked <= {query} and (query == "news" or marked == {query})
        assert all(0 <= a < b <= len(news["snippet"]) for a, b in news["highlights"])
    html = fetch(base, "/search?q=harvest").text
    assert re.search(r'class="hit-snippet">\s*<mark>Harvest</mark> report', html)
    tea = fetch(base, "/api/search?q=oolong&per_site=0").json()["hits"]
    assert all(h["snippet"].startswith("How to brew") for h in tea if "/tea" in h["url"])


def test_paging(site: tuple[str, str]) -> None:
    base = site[0]
    first = fetch(base, "/search?q=oolong&per_site=0&n=2").text
    assert "Hits 1–2 of about 6" in first and 'class="prev"' not in first
    next_href = _attr(first, r'<a class="next" href="([^"]+)"')[0]
    second = fetch(base, next_href).text
    assert "Hits 3–4 of about 6" in second and '<nav id="pagination"' in second
    prev_href = _attr(second, r'<a class="prev" href="([^"]+)"')[0]
    assert "Hits 1–2 of about 6" in fetch(base, prev_href).text
    last = fetch(base, "/search?q=oolong&per_site=0&n=2&start=4").text
    assert "Hits 5–6 of about 6" in last and 'class="next"' not in last


def test_more_from_site(site: tuple[str, str]) -> None:
    base = site[0]
    html = fetch(base, "/search?q=oolong").text  # searcher.max.hits.per.site = 2: one host
    assert html.count('<li class="hit">') == 2
    more = _attr(html, r'<a class="more-from-site" href="([^"]+)"')
    assert more and more[0].startswith("/search?q=site%3A127.0.0.1+oolong")
    assert fetch(base, more[0]).status == 200


def test_malformed_and_empty_queries(site: tuple[str, str]) -> None:
    base = site[0]
    bad = fetch(base, "/search?q=%22oolong")
    assert bad.status == 400 and 'class="error-message"' in bad.text and "unterminated quote" in bad.text
    assert "Traceback" not in bad.text
    for path in ("/search?q=tea&n=ten", "/search?q=tea&start=1.5", "/search?q=", "/search", "/search?q=tea&per_site=x",
                 "/search?q=" + "a" * 1025):
        answer = fetch(base, path)
        assert answer.status == 400 and 'class="error-message"' in answer.text, path
    empty = fetch(base, "/search?q=zzzzunknownword")
    assert empty.status == 200 and 'id="no-results"' in empty.text and '<li class="hit">' not in empty.text


def test_limits_are_clamped(site: tuple[str, str]) -> None:
    base = site[0]
    assert "Hits 1–6 of about 6" in fetch(base, "/search?q=oolong&per_site=0&n=100000&start=-4").text
    assert "Hits 1–1 of about 6" in fetch(base, "/search?q=oolong&per_site=0&n=0").text
    assert 'id="no-results"' in fetch(base, "/search?q=oolong&start=99999999").text


def test_cached_page(site: tuple[str, str]) -> None:
    base, origin = site
    url = quote(origin + "/tea3.html", safe="")
    answer = fetch(base, f"/cached?url={url}")
    assert answer.status == 200
    html = answer.text
    assert re.search(r'<iframe id="cached-frame"[^>]* sandbox=""', html)
    srcdoc = _attr(html, r'srcdoc="([^"]*)"')[0]
    assert "<title>Tea 3</title>" in srcdoc and "oolong oolong oolong" in srcdoc
    assert 'class="cached-banner"' in html
    shown = re.search(r'as fetched on <time id="cached-fetched" datetime="([^"]+)">([^<]+)</time>', html)
    assert shown, "the banner says when the page was fetched"
    when = dt.datetime.fromisoformat(shown.group(1))
    assert when.utcoffset() == dt.timedelta(0) and abs(dt.datetime.now(dt.UTC) - when) < dt.timedelta(hours=1)
    assert shown.group(2) == f"{when.day} {when:%B %Y}, {when:%H:%M:%S} UTC"  # e.g. "14 March 2026, 09:05:07 UTC"
    assert not re.search(r"\d{4}-\d\d-\d\dT|\+00:00", shown.group(2))
    csp = answer.headers["content-security-policy"]
    assert csp.startswith("sandbox;") and "default-src 'none'" in csp and "style-src 'self' 'unsafe-inline'" in csp
    assert "script-src" not in csp and "allow-scripts" not in html
    text = fetch(base, f"/cached?url={url}&view=text").text
    assert '<pre id="cached-text"' in text and "&lt;title&gt;Tea 3&lt;/title&gt;" in text and "<iframe" not in text
    plain = fetch(base, f"/cached?url={quote(origin + '/notes.txt', safe='')}").text
    assert '<pre id="cached-text"' in plain and "plain oolong notes" in plain and "<iframe" not in plain
    assert fetch(base, "/cached?url=" + quote(origin + "/nope.html", safe="")).status == 404
    assert fetch(base, f"/cached?url={url}&view=raw").status == 400
    assert fetch(base, "/static/style.css").status == 200


def test_anchors_page(site: tuple[str, str]) -> None:
    base, origin = site
    html = fetch(base, "/anchors?url=" + quote(origin + "/tea2.html", safe="")).text
    assert '<table id="anchors">' in html and "brewing green tea 2" in html
    assert f'<a href="{origin}/"' in html
    none = fetch(base, "/anchors?url=" + quote(origin + "/unknown", safe="")).text
    assert 'id="no-anchors"' in none


def test_explain_page(site: tuple[str, str]) -> None:
    base, origin = site
    answer = fetch(base, "/explain?q=oolong&url=" + quote(origin + "/tea4.html", safe=""))
    assert answer.status == 200
    html = answer.text
    assert 'id="explanation"' in html and "log2(2 + boost)" in html and 'id="static-factor"' in html
    assert re.search(r"<td>content</td><td>oolong</td><td class=\"num\">4</td>", html)
    named = fetch(base, "/explain?q=News&url=" + quote(origin + "/news.html", safe="")).text
    assert re.search(r'× name <span class="factor">3</span>', named)  # the name factor is part of the score
    assert fetch(base, "/explain?q=oolong&url=http%3A%2F%2Fnot.indexed%2F").status == 404
    assert fetch(base, "/explain?q=%22x&url=" + quote(origin + "/tea4.html", safe="")).status == 400


def test_json_api(site: tuple[str, str]) -> None:
    base, origin = site
    answer = fetch(base, "/api/search?q=oolong&per_site=0&n=3")
    assert answer.status == 200 and answer.headers["content-type"] == "application/json"
    data = answer.json()
    assert data["total"] == 6 and len(data["hits"]) == 3 and data["partial"] is False
    hit = data["hits"][0]
    assert hit["url"] == origin + "/tea5.html" and hit["highlights"] and "warc" in hit["fields"]
    bad = fetch(base, "/api/search?q=%22oolong")
    assert bad.status == 400 and "unterminated quote" in bad.json()["error"]
    assert fetch(base, "/api/search?q=x&n=abc").status == 400
    doc = fetch(base, "/api/document?url=" + quote(origin + "/tea1.html", safe="")).json()
    assert doc["title"] == "Tea 1" and doc["fields"]["warc"] and "snippet" not in doc
    assert fetch(base, "/api/document?url=http%3A%2F%2Fnope.test%2F").status == 404
    stats = fetch(base, "/api/stats").json()
    assert stats["index"]["available"] and stats["index"]["documents"] >= 7 and stats["index"]["size_bytes"] > 0
    assert stats["crawldb"]["total"] >= 7 and stats["crawldb"]["status"]["db_fetched"] >= 7


def test_openapi_lists_the_api_and_docs_are_off(site: tuple[str, str]) -> None:
    base = site[0]
    spec = fetch(base, "/openapi.json").json()
    assert {"/api/search", "/api/document", "/api/stats", "/opensearch"} <= set(spec["paths"])
    assert "SearchAnswer" in spec["components"]["schemas"]
    assert fetch(base, "/docs").status == 404 and fetch(base, "/redoc").status == 404
    limits = {"start": (0, 10_000), "n": (1, 100), "per_site": (0, 100)}  # what search_params clamps to
    for path in ("/api/search", "/opensearch"):
        params = {p["name"]: p for p in spec["paths"][path]["get"]["parameters"]}
        for name, (low, high) in limits.items():
            schema = params[name]["schema"]
            assert (schema["type"], schema["minimum"], schema["maximum"]) == ("integer", low, high), (path, name)
            assert not params[name]["required"] and params[name]["description"]
            for value in (low, high):  # the documented bounds are accepted …
                assert fetch(base, f"{path}?q=oolong&{name}={value}").status == 200, (path, name, value)
        assert fetch(base, f"{path}?q=oolong&n=abc").status == 400  # … and a non-number is still a 400


def test_opensearch(site: tuple[str, str]) -> None:
    base, origin = site
    answer = fetch(base, "/opensearch.xml")
    assert answer.headers["content-type"].startswith("application/opensearchdescription+xml")
    root = ET.fromstring(answer.body)
    templates = {u.get("type"): u.get("template") for u in root.iter(f"{OS_NS}Url")}
    assert templates["text/html"] == f"{base}/search?q={{searchTerms}}&start={{startIndex?}}&n={{count?}}"
    assert "format=rss" in templates["application/rss+xml"] and "format=atom" in templates["application/atom+xml"]
    rss = fetch(base, "/opensearch?q=oolong&format=rss&n=2&per_site=0")
    assert rss.headers["content-type"].startswith("application/rss+xml")
    channel = ET.fromstring(rss.body).find("channel")
    assert channel is not None and channel.findtext(f"{OS_NS}totalResults") == "6"
    assert channel.findtext(f"{OS_NS}itemsPerPage") == "2" and channel.findtext(f"{OS_NS}startIndex") == "0"
    assert [i.findtext("link") for i in channel.iter("item")][0] == origin + "/tea5.html"
    atom = ET.fromstring(fetch(base, "/opensearch?q=oolong&format=atom&start=2&per_site=0").body)
    assert atom.tag == f"{ATOM_NS}feed" and atom.findtext(f"{OS_NS}startIndex") == "2"  # indexOffset="0"
    assert len(atom.findall(f"{ATOM_NS}entry")) == 4
    assert fetch(base, "/opensearch?q=%22x").status == 400
    assert fetch(base, "/opensearch?q=x&format=json").status == 400


def test_unknown_paths_html_page_or_json_under_api(site: tuple[str, str]) -> None:
    base = site[0]
    for path in ("/nonexistent", "/search/extra", "/static/nope.css", "/no/such?q=x"):
        answer = fetch(base, path)
        assert answer.status == 404 and answer.headers["content-type"].startswith("text/html"), path
        html = answer.text
        assert '<link rel="stylesheet" href="/static/style.css">' in html and '<header class="top">' in html
        assert '<form id="search-form"' in html and '<input id="q" name="q"' in html
        assert '<a id="home-link" href="/">' in html and 'class="error-message"' in html
        assert "<h1>Not found</h1>" in html and '"detail"' not in html and "<script" not in html
        assert "default-src 'none'" in answer.headers["content-security-policy"]
    post = fetch(base, "/search?q=oolong", method="POST")
    assert post.status == 405 and post.headers["content-type"].startswith("text/html")
    assert "GET" in post.headers["allow"]
    assert '<a id="home-link" href="/">' in post.text
    for path in ("/api/nonexistent", "/api", "/api/search/x"):
        answer = fetch(base, path)
        assert answer.status == 404 and answer.headers["content-type"] == "application/json", path
        assert set(answer.json()) == {"error"} and answer.json()["error"]
    api_post = fetch(base, "/api/search?q=oolong", method="POST")
    assert api_post.status == 405 and set(api_post.json()) == {"error"}
    assert fetch(base, "/nonexistent", method="HEAD").status == 404


def test_no_index_is_503(tmp_path: Path) -> None:
    crawl_dir = tmp_path / "empty"
    crawl_dir.mkdir()
    with serve_app(create_app(crawl_dir, load_settings(crawl_dir))) as base:
        page = fetch(base, "/search?q=tea")
        assert page.status == 503 and 'class="error-message"' in page.text
        assert fetch(base, "/api/search?q=tea").status == 503
        assert fetch(base, "/cached?url=http%3A%2F%2Fa.test%2F").status == 503
        assert fetch(base, "/api/stats").json()["index"]["available"] is False
        assert fetch(base, "/").status == 200


def test_pages_search_through_nodes(tmp_path: Path) -> None:
    """``create_app(…, nodes)`` (``serve --nodes``): the pages answer from two search nodes, partial when one dies."""
    from tests.index_fixtures import Page, make_crawl
    from tests.test_search_nodes import start_nodes

    pages = [Page(f"http://h{i % 3}.test/p{i}", f"Page {i}", f"kettle words number{i}") for i in range(12)]
    crawl_dir, settings = make_crawl(tmp_path / "crawl", pages, shards=2)
    settings = settings.with_values([("searcher.node.timeout", 5.0)], "test")
    nodes = start_nodes(crawl_dir, ["0", "1"], tmp_path)
    try:
        with serve_app(create_app(crawl_dir, settings, [n.address for n in nodes])) as base:
            data = fetch(base, "/api/search?q=kettle&per_site=0&n=20").json()
            assert data["total"] == 12 and len(data["hits"]) == 12 and not data["partial"]
            html = fetch(base, "/search?q=kettle&per_site=0").text
            assert "of about 12" in html and "partial-warning" not in html
            assert fetch(base, "/explain?q=kettle&url=http%3A%2F%2Fh1.test%2Fp4").status == 200
            nodes[1].stop()
            html = fetch(base, "/search?q=kettle&per_site=0").text
            assert 'class="partial-warning"' in html and '<li class="hit">' in html
    finally:
        for node in nodes:
            node.stop()


def test_title_cut_and_readable_time_rules() -> None:
    from gossamer.search.backend import Snippet
    from gossamer.search.details import without_title
    from gossamer.web.render import readable_time

    cut = without_title(Snippet("News — News: today's news", [(0, 4), (7, 11), (21, 25)]), "News")
    assert cut.text == "today's news" and cut.highlights == [(8, 12)]
    clipped = without_title(Snippet("Tea 3 brew", [(4, 10)]), "Tea 3")
    assert clipped.text == "brew" and clipped.highlights == [(0, 4)]
    assert without_title(Snippet("news of the day", []), "News").text == "news of the day"  # not the title's copy
    assert without_title(Snippet("Newsletter of May", [(0, 10)]), "News").text == "Newsletter of May"
    assert without_title(Snippet("Tea  3 How", []), "Tea 3").text == "How"
    assert without_title(Snippet("About tea", []), "").text == "About tea"
    assert readable_time("2026-03-14T09:05:07+00:00") == ("14 March 2026, 09:05:07 UTC", "2026-03-14T09:05:07+00:00")
    assert readable_time("2026-03-14T10:05:07+01:00")[0] == "14 March 2026, 09:05:07 UTC"
    assert readable_time("2026-03-14T09:05:07")[0] == "14 March 2026, 09:05:07 UTC"  # no zone: UTC
    assert readable_time(1773479107000)[0] == "14 March 2026, 09:05:07 UTC"
    assert readable_time("yesterday") is None and readable_time(None) is None and readable_time("") is None
