"""Property-based fuzzing of every parser of hostile input: no uncaught exception, bounded time and memory.

Targets: the HTML parse pipeline, the robots.txt parser, the URL normalizer + filter chain,
the query parser, the settings files (TOML and nutch-site.xml) and the WARC reader.  Each
runs a fixed, derandomized budget of generated inputs in CI (:data:`BUDGET`): raw bytes,
and structured junk built from the syntax each parser meets (tags, directives, URL parts,
query operators).  Every input must finish within the deadline, and the HTML parser's
memory per input is bounded too.
"""

from __future__ import annotations

import gzip
import tempfile
import tracemalloc
import warnings
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gossamer.core import Content, CrawlDatum, CrawlStatus, Settings, SettingsError
from gossamer.core.settings import load_settings
from gossamer.crawl.parse import PageParser
from gossamer.crawl.parse.warc_input import read_responses
from gossamer.crawl.robots.rules import parse_robots
from gossamer.plugins.registry import PluginRepository
from gossamer.plugins.urlchain import URLChain
from gossamer.search.query_parse import QuerySyntaxError, parse_query

BUDGET = settings(max_examples=200, deadline=2000, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
"""Per target: 200 inputs, each within 2 s; the same inputs on every run."""
HTML_MEMORY_LIMIT = 64 * 1024 * 1024
"""Peak Python memory of parsing one generated page (at most ~60 KB of input)."""


def junk(fragments: list[str], max_parts: int = 200) -> st.SearchStrategy[str]:
    """Text made of syntax ``fragments`` and random characters, in any order."""
    part = st.one_of(st.sampled_from(fragments), st.text(max_size=12))
    return st.lists(part, max_size=max_parts).map("".join)


HTML_PARTS = ["<html>", "<head>", "<title>", "</title>", "<body>", "<a href='", "'>", "</a>", "<base href=\"",
              "\">", "<meta http-equiv='refresh' content='0; url=", "<meta name='robots' content='noindex,nofollow'>",
              "<meta charset='", "shift_jis", "utf-16", "'>", "<script>", "</script>", "<style>", "<!--", "-->",
              "<![CDATA[", "]]>", "&#x", "&#", "&amp", ";", "<div>" * 50, "</div>", "<table><tr><td>", "<frame src='",
              "<img src='", "<area href='", "http://", "javascript:", "data:text/html,", "//", "../", "%", "%zz",
              "\x00", "\ufeff", "é", "\ud7ff", "<p", ">", "<", "=", "\"", "'", " ", "\n"]
ROBOTS_PARTS = ["User-agent: ", "*", "gossamer", "Disallow: ", "Allow: ", "Crawl-delay: ", "Sitemap: ", "/", "/*",
                "$", "?", "%2F", "%", "#", "\n", "\r\n", " ", "\t", "-1", "1e309", "nan", "\ufeff", "\x00",
                "<html>", "http://h/sitemap.xml"]
URL_PARTS = ["http://", "https://", "ftp://", "file:///", "mailto:", "HTTP://", "user:pass@", "[::1]", "[", "]",
             "xn--", "..", "/./", "/../", "//", "?", "#", "&", "=", ":80", ":443", ":99999", ":", "%", "%2e", "%zz",
             "%00", "é", "\u3002", "www.", "example.com", ".", " ", "\t", "\\", ";jsessionid=1", "a" * 300]
QUERY_PARTS = ['"', "+", "-", "site:", "url:", "host:", "type:", "lang:", "date:", "title:", "2026", "20261124",
               "-2026", "..", "(", ")", "*", ":", " ", "OR", "AND", "hash", "map", "é", "\x00", "a" * 80]
TOML_PARTS = ['"http.agent.name" = ', '"', "'", "[", "]", "fetcher", ".", "server.delay = ", "1", "-1", "true",
              "1e400", "{", "}", "=", "\n", "[[x]]", '"""', "store.parts = 0", "nope.property = 1"]
XML_PARTS = ["<?xml version='1.0'?>", "<configuration>", "</configuration>", "<property>", "</property>", "<name>",
             "</name>", "<value>", "</value>", "http.agent.name", "fetcher.server.delay", "x", "<!DOCTYPE a [",
             "<!ENTITY e 'ee'>", "]>", "&e;", "&amp;", "<", ">", "\n", "${", "}"]


def _settings() -> Settings:
    return Settings().with_values([("http.agent.name", "fuzz")], "test")


PARSER = PageParser(_settings())
CHAIN = URLChain(PluginRepository(_settings()), "default")


@BUDGET
@given(st.one_of(junk(HTML_PARTS).map(lambda s: s.encode("utf-8", "surrogatepass")), st.binary(max_size=4000)),
       st.sampled_from(["text/html", "text/html; charset=utf-16", "application/xhtml+xml", "text/plain", ""]))
@example(b"<div>" * 20000, "text/html")
@example(b"\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00", "text/html")
def test_html_parse_pipeline_never_raises(body: bytes, content_type: str) -> None:
    content = Content("http://fuzz.example/page.html", "http://fuzz.example/page.html", body, content_type,
                      [("Content-Type", content_type)], {})
    tracemalloc.start()
    try:
        parsed = PARSER.parse(content.url, CrawlDatum(CrawlStatus.FETCH_SUCCESS, 1000, 0, 2592000, 1.0), content)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert parsed.outcome in ("success", "failed", "skipped")
    assert all(link.to_url for link in parsed.parse_data.outlinks)
    assert peak < HTML_MEMORY_LIMIT, peak


@BUDGET
@given(st.one_of(junk(ROBOTS_PARTS).map(lambda s: s.encode("utf-8", "surrogatepass")), st.binary(max_size=4000)),
       junk(URL_PARTS, 20))
@example(b"User-agent: *\nDisallow: /" + b"*" * 5000 + b"$\n", "http://example.com/" + "a" * 5000)
def test_robots_parser_never_raises(body: bytes, path: str) -> None:
    rules = parse_robots(body, "http://example.com/robots.txt", ["gossamer"])
    assert isinstance(rules.allowed("http://example.com/" + path), bool)
    assert rules.crawl_delay is None or rules.crawl_delay >= 0


@BUDGET
@given(junk(URL_PARTS, 40))
@example("http://" + "a." * 200 + "com/")
@example("http://[::ffff:127.0.0.1]:80/%2e%2e/x")
def test_url_normalizers_and_filters_never_raise(url: str) -> None:
    reasons: list[str] = []
    result = CHAIN.apply(url, reasons.append)
    assert result is None or isinstance(result, str)
    if result is not None:
        assert CHAIN.apply(result) is not None  # a normalized, accepted URL stays accepted


@BUDGET
@given(junk(QUERY_PARTS, 60))
@example('"' * 500)
@example("(" * 300 + "a")
def test_query_parser_accepts_or_explains(text: str) -> None:
    try:
        query = parse_query(text)
    except QuerySyntaxError as exc:
        assert str(exc)
        return
    assert parse_query(str(query)) == query


@BUDGET
@given(st.one_of(junk(TOML_PARTS, 60), junk(XML_PARTS, 60)), st.sampled_from(["gossamer.toml", "nutch-site.xml"]))
@example("<!DOCTYPE a [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
         "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;'>]><configuration><property><name>&c;</name>"
         "<value>x</value></property></configuration>", "nutch-site.xml")
def test_settings_files_load_or_say_why(text: str, name: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                loaded = load_settings(Path(directory))
            except SettingsError as exc:
                assert str(exc)
                return
        assert loaded.get_str("http.agent.name") is not None


def _warc(body: bytes) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n" + body
    head = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://fuzz.example/\r\n"
            b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>\r\n"
            b"WARC-Date: 2026-11-24T00:00:00Z\r\nContent-Type: application/http; msgtype=response\r\n"
            b"Content-Length: " + str(len(http)).encode() + b"\r\n\r\n")
    return gzip.compress(head + http + b"\r\n\r\n")


@BUDGET
@given(st.one_of(st.binary(max_size=4000), st.binary(max_size=2000).map(_warc),
                 st.tuples(st.binary(max_size=400), st.integers(0, 400), st.binary(max_size=20)).map(
                     lambda t: _warc(gzip.compress(t[0]))[:t[1]] + t[2])))
def test_warc_reader_reads_or_says_why(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "content.warc.gz"
        path.write_bytes(data)
        try:
            for response in read_responses(path, cap=1 << 20):
                assert isinstance(response.content.url, str)
        except (OSError, ValueError):
            pass  # an unreadable file is reported by the parse job as such (counted, skipped)
