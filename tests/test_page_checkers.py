"""``parsechecker`` and ``indexchecker`` against a real loopback HTTP server, through the real CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .conftest import CliResult
from .fetch_server import Site, ThreadedSite

PAGE = b"""<html><head><title>Check me</title><meta name="description" content="A page to check"></head>
<body><h1>Hello</h1><p>Some words about gossamer threads.</p>
<a href="/a.html">First link</a> <a href="other.html">Other page</a></body></html>"""
AGENT = ("-D", "http.agent.name=checker-test")


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    with ThreadedSite() as served:
        served.route("/page.html", body=PAGE)
        served.route("/robots.txt", body=b"User-agent: *\nDisallow: /private\n", headers={"Content-Type": "text/plain"})
        served.route("/private/p.html", body=PAGE)
        served.route("/text.txt", body=b"plain words in a file " * 40, headers={"Content-Type": "text/plain"})
        served.route("/moved", status=302, headers={"Location": "/page.html"})
        served.route("/loop1", status=301, headers={"Location": "/loop2"})
        served.route("/loop2", status=301, headers={"Location": "/loop3"})
        served.route("/loop3", status=301, headers={"Location": "/page.html"})
        served.route("/noindex.html", body=b'<html><head><meta name="robots" content="noindex"></head>'
                                           b'<body>hidden</body></html>')
        yield served


def check(cli, *args: str) -> CliResult:
    return cli(*args, *AGENT)


def test_parsechecker_prints_the_parse(cli, site: Site) -> None:
    result = check(cli, "parsechecker", site.url("/page.html"))
    assert result.code == 0, result.err
    out = result.out
    assert f"fetching: {site.url('/page.html')}" in out
    assert "fetch status: fetch_success" in out and "HTTP 200" in out
    assert "content type: text/html (declared), text/html (effective)" in out
    assert "parse status: success" in out
    assert "title: Check me" in out
    assert f"  {site.url('/a.html')}\tFirst link" in out
    assert f"  {site.url('/other.html')}\tOther page" in out
    assert "  metatag.description = A page to check" in out  # parse metadata
    assert "  Content-Type = text/html" in out  # content metadata
    signature = next(line for line in out.splitlines() if line.startswith("signature: "))
    assert len(signature.split()[1]) == 32
    assert "Some words about gossamer threads." in out


def test_parsechecker_json_and_dump_text(cli, site: Site) -> None:
    result = check(cli, "parsechecker", site.url("/text.txt"), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["status"] == "fetch_success" and data["http_code"] == 200
    assert data["content_type"] == {"declared": "text/plain", "effective": "text/plain"}
    parse = data["parse"]
    assert parse["status"] == "success" and parse["text_length"] == len("plain words in a file " * 40)
    assert parse["text"].endswith("…") and len(parse["text"]) < parse["text_length"]
    assert parse["content_metadata"]["nutch.content.digest"] == parse["signature"]
    full = json.loads(check(cli, "parsechecker", site.url("/text.txt"), "--json", "-dumpText").out)
    assert len(full["parse"]["text"]) == full["parse"]["text_length"]
    text = check(cli, "parsechecker", site.url("/text.txt")).out
    assert "an excerpt; -dumpText for all" in text


def test_not_found_is_a_clear_fetch_failure(cli, site: Site) -> None:
    result = check(cli, "parsechecker", site.url("/missing.html"))
    assert result.code == 3
    assert "fetch status: fetch_gone (notfound" in result.out
    assert "error: fetch failed: fetch_gone" in result.err and "Traceback" not in result.err
    data = json.loads(check(cli, "indexchecker", site.url("/missing.html"), "--json").out)
    assert data["http_code"] == 404 and data["parse"] is None and data["index"]["action"] == "skip"


def test_robots_txt_only_with_check_robots_txt(cli, site: Site) -> None:
    url = site.url("/private/p.html")
    assert check(cli, "parsechecker", url).code == 0  # Nutch's checkers do not consult robots.txt by default
    denied = check(cli, "parsechecker", url, "-checkRobotsTxt")
    assert denied.code == 3
    assert "robots_denied" in denied.out and "robots.txt disallows it" in denied.err
    assert check(cli, "indexchecker", url, "--check-robots-txt").code == 3


def test_redirects_followed_only_when_asked(cli, site: Site) -> None:
    result = check(cli, "parsechecker", site.url("/moved"))
    assert result.code == 3
    assert "fetch_redir_temp" in result.out and "use -followRedirects" in result.err
    followed = check(cli, "parsechecker", site.url("/moved"), "-followRedirects")
    assert followed.code == 0, followed.err
    assert f"redirect: {site.url('/moved')} -> {site.url('/page.html')} (fetch_redir_temp, HTTP 302)" in followed.out
    assert "title: Check me" in followed.out
    hops = json.loads(check(cli, "parsechecker", site.url("/loop1"), "-followRedirects", "--json").out)["hops"]
    assert [hop["url"] for hop in hops] == [site.url(p) for p in ("/loop1", "/loop2", "/loop3", "/page.html")]
    short = check(cli, "parsechecker", site.url("/loop1"), "-followRedirects", "-D", "http.redirect.max=1")
    assert short.code == 3 and "more redirects than http.redirect.max" in short.err


def test_normalize_option(cli, site: Site) -> None:
    raw = site.url("/x/../page.html#frag")
    assert check(cli, "parsechecker", raw, "-normalize").out.startswith(f"fetching: {site.url('/page.html')}\n")


def test_define_changes_the_parse(cli, site: Site) -> None:
    url = site.url("/text.txt")
    result = check(cli, "parsechecker", url, "-D", "plugin.excludes=parse-text")
    assert result.code == 1
    assert "parse status: skipped (no parser for text/plain)" in result.out
    assert "not parsed" in result.err
    forced = check(cli, "parsechecker", url, "-forceAs", "text/html")
    assert forced.code == 0 and "content type: text/plain (declared), text/html (effective)" in forced.out


def test_indexchecker_prints_the_document(cli, site: Site) -> None:
    url = site.url("/page.html")
    result = check(cli, "indexchecker", url)
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert "index action: add" in lines
    assert f"id :\t{url}" in lines and f"url :\t{url}" in lines
    assert "title :\tCheck me" in lines and "type :\ttext/html" in lines
    assert "boost :\t1.0" in lines  # scoring-opic indexer_score of an injected page's score 1.0
    data = json.loads(check(cli, "indexchecker", url, "--json").out)
    document = data["index"]["document"]
    assert document["id"] == url and document["host"] == "127.0.0.1" and document["digest"]
    assert "Some words about gossamer threads." in document["content"]
    without = json.loads(check(cli, "indexchecker", url, "--json", "-D", "plugin.excludes=index-more").out)
    assert "type" not in without["index"]["document"] and "content_length" not in without["index"]["document"]


def test_indexchecker_field_values_are_cut_unless_dump_text(cli, site: Site) -> None:
    url = site.url("/text.txt")
    short = check(cli, "indexchecker", url).out.splitlines()
    content = next(line for line in short if line.startswith("content :\t"))
    assert len(content.split("\t", 1)[1]) == 100
    full = check(cli, "indexchecker", url, "-dumpText").out.splitlines()
    assert len(next(line for line in full if line.startswith("content :\t"))) > 200


def test_indexchecker_robots_noindex(cli, site: Site) -> None:
    result = check(cli, "indexchecker", site.url("/noindex.html"))
    assert result.code == 1
    assert "index action: delete (skipped_robots_noindex)" in result.out
    assert "not indexed: skipped_robots_noindex" in result.err


def test_unfetchable_urls_are_clear_failures(cli) -> None:
    refused = check(cli, "parsechecker", "http://127.0.0.1:1/page.html")
    assert refused.code == 3 and "fetch status: fetch_retry (exception" in refused.out
    unknown = check(cli, "indexchecker", "gopher://127.0.0.1/x", "--json")
    assert unknown.code == 3 and "proto_not_found" in json.loads(unknown.out)["protocol_status"]
    for result in (refused, unknown):
        assert "error: fetch failed" in result.err and "Traceback" not in result.err


def test_usage_errors(cli, site: Site) -> None:
    assert cli("parsechecker").code == 2
    bad = check(cli, "parsechecker", "not a url")
    assert bad.code == 2 and "not a URL" in bad.err
    assert cli("parsechecker", site.url("/page.html"), "-D", "http.agent.name=").code == 2
    assert cli("indexchecker", site.url("/page.html"), "-D", "no.such.setting=1", *AGENT).code == 2
