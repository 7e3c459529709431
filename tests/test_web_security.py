"""Security of the web interface: crawled strings escaped everywhere, no unsafe links, no path traversal,
limits, GET/HEAD only, loopback by default."""

from __future__ import annotations

import http.client
import inspect
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from urllib.parse import quote, urlsplit

import pytest

from gossamer.core.records import Inlink
from gossamer.core.settings import load_settings
from gossamer.web import create_app
from gossamer.web.context import templates
from gossamer.web.render import is_web_url
from tests.index_fixtures import Page, make_crawl
from tests.web_fixtures import HTML, crawl_site, fetch
from tests.web_server import serve_app

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
RAW = (SCRIPT, IMG, "<script", "<img", "onerror=alert(1)>")
EVIL_URL = 'http://evil.test/a?x="><img src=x onerror=alert(1)>'


def _pages() -> list[Page]:
    return [
        Page(EVIL_URL, SCRIPT + " evil", f"payload evil {SCRIPT} {IMG}"),
        Page("http://evil.test/b", IMG, "evil second page"),
        Page("http://src.test/", "source", "evil source", [("http://evil.test/b", SCRIPT + " evil anchor " + IMG)]),
        Page("javascript:alert(1)", "js evil", "evil javascript"),
        Page("data:text/html,<script>alert(1)</script>", "data evil", "evil data"),
    ]


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over an index whose titles, URLs, anchors and text carry script payloads."""
    crawl_dir, settings = make_crawl(tmp_path_factory.mktemp("evil") / "crawl", _pages())
    with serve_app(create_app(crawl_dir, settings)) as base:
        yield base


def _assert_escaped(text: str, where: str) -> None:
    for payload in RAW:
        assert payload not in text, f"{payload!r} unescaped in {where}"


def _hrefs(html: str) -> list[str]:
    return re.findall(r'(?:href|src|action)="([^"]*)"', html)


def test_search_pages_escape_everything(evil: str) -> None:
    paths = ["/search?q=evil&per_site=0", "/search?q=" + quote(f"evil {SCRIPT}"), "/search?q=" + quote('"' + IMG),
             "/explain?q=evil&url=" + quote(EVIL_URL, safe=""), "/anchors?url=" + quote("http://evil.test/b", safe=""),
             "/anchors?url=" + quote(SCRIPT, safe=""), "/cached?url=" + quote(EVIL_URL, safe=""),
             "/explain?q=evil&url=" + quote(SCRIPT, safe=""), "/search?q=evil&n=" + quote(SCRIPT)]
    for path in paths:
        answer = fetch(evil, path)
        assert answer.status in (200, 400, 404), path
        _assert_escaped(answer.text, path)
        for href in _hrefs(answer.text):
            assert not href.lower().startswith(("javascript:", "data:", "vbscript:")), (path, href)
    html = fetch(evil, "/search?q=evil&per_site=0").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&#34;&gt;&lt;img src=x" in html
    anchors = fetch(evil, "/anchors?url=" + quote("http://evil.test/b", safe="")).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; evil anchor" in anchors


def test_unsafe_urls_are_not_links(evil: str) -> None:
    html = fetch(evil, "/search?q=evil&per_site=0").text
    assert html.count('<li class="hit">') == 5
    assert '<span class="hit-title">js evil</span>' in html and '<span class="hit-title">data evil</span>' in html
    titles = re.findall(r'<a class="hit-title" href="([^"]+)"', html)
    assert titles and all(urlsplit(t.replace("&amp;", "&")).scheme == "http" for t in titles)
    assert not is_web_url("javascript:alert(1)") and not is_web_url(" http://x/") and not is_web_url("http:///x")
    assert is_web_url("https://example.org/a?b=c")
    page = templates.get_template("anchors.html").render(
        url="javascript:alert(3)", limit=10,
        inlinks=[Inlink("javascript:alert(2)", "x"), Inlink("http://ok.test/", "y")])
    assert 'href="javascript:' not in page and '<a href="http://ok.test/"' in page


def test_feeds_and_json_escape(evil: str) -> None:
    for fmt in ("rss", "atom"):
        answer = fetch(evil, f"/opensearch?q=evil&per_site=0&format={fmt}")
        _assert_escaped(answer.text, fmt)
        root = ET.fromstring(answer.body)  # well-formed despite the payloads
        texts = " ".join(t for t in root.itertext())
        assert SCRIPT in texts  # the payload survives as text, not markup
        links = [e.text or e.get("href") or "" for e in root.iter() if e.tag.endswith("link")]
        assert not any(link.startswith(("javascript:", "data:")) for link in links)
    data = fetch(evil, "/api/search?q=evil&per_site=0").json()
    assert any(h["title"] == SCRIPT + " evil" for h in data["hits"])
    assert json.loads(fetch(evil, "/api/document?url=" + quote(EVIL_URL, safe="")).body)["url"] == EVIL_URL


def test_no_path_traversal(evil: str) -> None:
    host, port = urlsplit(evil).hostname, urlsplit(evil).port
    raw_paths = ["/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static/%2e%2e%2fapp.py",
                 "/static/..%5capp.py", "/static/%2e%2e/%2e%2e/web/app.py", "/static//etc/passwd",
                 "/cached?url=../../etc/passwd", "/cached?url=%2e%2e%2f%2e%2e%2fetc%2fpasswd",
                 "/cached?url=file%3A%2F%2F%2Fetc%2Fpasswd", "/cached?url=/etc/passwd",
                 "/anchors?url=../../etc/passwd", "/api/document?url=../../etc/passwd", "/../../etc/passwd"]
    for path in raw_paths:
        connection = http.client.HTTPConnection(host, port, timeout=10)
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read().decode("utf-8", "replace")
        connection.close()
        assert response.status in (200, 400, 404), (path, response.status)
        assert "create_app" not in body and "root:x:0:0" not in body, path
        if path.startswith(("/static", "/cached", "/api", "/..")):
            assert response.status in (400, 404), (path, response.status)


def test_limits(evil: str) -> None:
    assert fetch(evil, "/search?q=" + "a" * 1025).status == 400
    assert fetch(evil, "/api/search?q=" + "a" * 1025).status == 400
    assert fetch(evil, "/opensearch?q=" + "a" * 1025).status == 400
    assert fetch(evil, "/search?q=" + quote("evil" + " " * 1016 + "evil")).status == 200  # 1,024 characters
    assert len(fetch(evil, "/api/search?q=evil&per_site=0&n=5000").json()["hits"]) == 5
    deep = fetch(evil, "/api/search?q=evil&start=99999999").json()  # no rank past 10,000 is searched or served:
    assert deep["hits"] == [] and deep["start"] == 99_999_999 and deep["total"] > 0  # an empty page, not a repeat
    assert fetch(evil, "/cached?url=" + "a" * 5000).status == 400


def test_overlong_urls_get_414_and_idle_connections_are_closed(evil: str) -> None:
    """A 9 KB or a 140 KB URL is answered 414 (not a reset); an idle keep-alive connection is closed."""
    import socket
    import time

    assert fetch(evil, "/search?q=evil&x=" + "a" * 7000).status == 200
    for size in (9_000, 140_000):
        response = fetch(evil, "/search?q=evil&x=" + "a" * size)
        assert response.status == 414 and response.text == "URL too long\n", size
    host, port = urlsplit(evil).hostname, urlsplit(evil).port
    with socket.create_connection((host, port), timeout=10) as sock:  # web.keepalive.timeout: 5 s
        sock.sendall(b"GET /api/stats HTTP/1.1\r\nHost: x\r\n\r\n")
        started, data = time.monotonic(), b""
        while chunk := sock.recv(65536):
            data += chunk
        assert data.startswith(b"HTTP/1.1 200") and 4 < time.monotonic() - started < 9


def test_only_get_and_head(evil: str) -> None:
    for path in ("/", "/search?q=evil", "/api/search?q=evil", "/api/stats", "/opensearch.xml", "/cached?url=x",
                 "/anchors?url=x", "/explain?url=x&q=y", "/api/document?url=x", "/opensearch?q=evil"):
        assert fetch(evil, path, method="HEAD").status in (200, 400, 404), path
        for method in ("POST", "PUT", "DELETE"):
            assert fetch(evil, path, method=method).status == 405, (method, path)


def test_security_headers(evil: str) -> None:
    page = fetch(evil, "/search?q=evil")
    assert "script-src" not in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "<script" not in fetch(evil, "/").text


def test_serve_binds_loopback_by_default() -> None:
    from gossamer.cli.serve_cmd import serve_command

    assert inspect.signature(serve_command).parameters["host"].default == "127.0.0.1"


def test_cached_copy_of_a_hostile_page(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A crawled page full of script: the frame is sandboxed, the text view escaped, the CSP forbids script."""
    body = (f"<html><head><title>{SCRIPT}hostile</title><script>alert(2)</script></head><body>"
            f"<p>hostile page</p><a href='javascript:alert(3)'>click</a><img src=x onerror=alert(4)>"
            f"<form action='http://evil.test/'><input name=a></form></body></html>").encode()
    crawl_dir = tmp_path_factory.mktemp("hostile") / "crawl"
    origin = crawl_site(crawl_dir, {"/": (body, HTML)}, rounds=1)
    with serve_app(create_app(crawl_dir, load_settings(crawl_dir))) as base:
        url = quote(origin + "/", safe="")
        framed = fetch(base, f"/cached?url={url}")
        assert framed.status == 200
        csp = framed.headers["content-security-policy"]
        assert csp.startswith("sandbox;") and "script-src" not in csp and "allow-scripts" not in csp
        outside = re.sub(r'srcdoc="[^"]*"', "", framed.text)
        _assert_escaped(outside, "cached frame page")
        assert "<script>alert(2)" not in framed.text and 'sandbox=""' in framed.text
        text = fetch(base, f"/cached?url={url}&view=text").text
        _assert_escaped(text, "cached text view")
        assert "&lt;script&gt;alert(2)&lt;/script&gt;" in text
        assert "javascript:" not in "".join(_hrefs(text))


def test_inert_html_drops_everything_that_loads_or_runs() -> None:
    from gossamer.web.cached_html import inert_html

    page = ("<!doctype html><html><head><base href='http://evil.test/'><link rel=stylesheet href=site.css>"
            "<meta http-equiv=refresh content='0;url=http://evil.test/'>"
            "<style>@import 'x.css'; p{background:url(a.png)} p > b {color:red}</style>"
            "<script>alert(1)</script></head><body onload=alert(1)>"
            "<p style='background:url(/x.png)' class=keep>text &amp; more &lt;b&gt;</p><img src=/logo.png alt=x>"
            "<a href='/rel'>rel</a><a href='javascript:alert(2)'>js</a><iframe src=/x>inner</iframe>"
            "<form action=/post><input name=a></form><video poster=p.png><source src=v.mp4></video></body></html>")
    out = inert_html(page, "http://site.test/dir/page.html")
    for gone in ("<script", "alert(1)", "<base", "<link", "refresh", "url(", "@import", "onload", "<img", "<iframe",
                 "inner", "action=", "<video", "<source", "javascript:"):
        assert gone not in out, gone
    assert '<p style="background:" class="keep">text &amp; more &lt;b&gt;</p>' in out
    assert '<a href="http://site.test/rel">rel</a>' in out and "<a>js</a>" in out and "p > b {color:red}" in out
