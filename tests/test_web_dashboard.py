"""The crawl dashboard: /dashboard and /api/crawl/stats over a real 2-round crawl, small fixtures, the SVG charts."""

from __future__ import annotations

import json
import re
import time
import urllib.request
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gossamer.core import CrawlDatum, CrawlStatus, now_millis
from gossamer.core.settings import load_settings
from gossamer.crawl.readseg import segment_info
from gossamer.index.store import IndexDescription, live_index
from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA, datums_to_batch
from gossamer.store.segments import list_segments
from gossamer.store.table import PartWriter, TableDescription, finish_version, part_name
from gossamer.web.app import create_app
from gossamer.web.charts import axis_top, bar_chart, format_number, hbar_chart, line_chart, nice_max
from gossamer.web.dashboard_stats import clear_cache, crawl_summary, dashboard_stats
from tests.conftest import run_main, stats_value, write_lines
from tests.fetch_server import ThreadedSite
from tests.index_fixtures import Page, make_crawl, write_segment
from tests.web_server import serve_app

HTML = {"Content-Type": "text/html; charset=utf-8"}
SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.01")
SVG_RE = re.compile(r'<svg class="chart".*?</svg>', re.S)


class Tables(HTMLParser):
    """Cell texts of the table rows inside the element with id ``target``."""

    def __init__(self, target: str) -> None:
        super().__init__()
        self.target, self.depth, self.rows, self.cell = target, 0, [], None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth or dict(attrs).get("id") == self.target:
            self.depth += tag not in ("br", "img", "input", "meta", "link")
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = ""

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(self.cell.strip())
                self.cell = None

    def handle_data(self, data: str) -> None:
        if self.depth and self.cell is not None:
            self.cell += data


def rows_of(page: str, section: str) -> list[list[str]]:
    parser = Tables(section)
    parser.feed(page)
    return parser.rows


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        assert response.status == 200
        return response.read().decode("utf-8")


def number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.fixture(scope="module")
def crawl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real 2-round crawl (with index) of a loopback site with a 404 and a redirect."""
    root = tmp_path_factory.mktemp("dashboard")
    crawl_dir = root / "crawl"
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
        site.route("/", body=b"<html><head><title>Home</title></head><body><a href='/a.html'>a</a> "
                             b"<a href='/b.html'>b</a> <a href='/missing.html'>gone</a> "
                             b"<a href='/moved.html'>moved</a></body></html>", headers=HTML)
        for name in ("a", "b"):
            site.route(f"/{name}.html", body=f"<html><head><title>{name}</title></head><body>page {name} "
                       f"<a href='/deep-{name}.html'>deeper</a></body></html>".encode(), headers=HTML)
        site.route("/moved.html", status=301, headers={"Location": site.url("/a.html")})
        seeds = write_lines(root / "seeds.txt", [site.url("/")])
        assert run_main("crawl", seeds, "-d", crawl_dir, "-r", "2", "--index", *SETTINGS) == 0
    return crawl_dir


@pytest.fixture(scope="module")
def served(crawl: Path):
    with serve_app(create_app(crawl, load_settings(crawl))) as base:
        yield base


def test_status_counts_match_readdb_stats(crawl: Path, served: str, cli) -> None:
    result = cli("readdb", crawl / "crawldb", "-stats")
    assert result.code == 0, result.err
    expected = {m.group(1): int(m.group(2)) for m in re.finditer(r"status \d+ \((\w+)\):\t(\d+)", result.out)}
    assert expected.get("db_gone") == 1 and expected.get("db_fetched", 0) >= 3
    page = get(served + "/dashboard")
    rows = rows_of(page, "status-counts")
    shown = {r[0]: number(r[1]) for r in rows[1:] if r[0] != "total"}
    assert shown == expected
    assert ["total", f"{int(stats_value(result.out, 'TOTAL urls')):,}", "100%"] in rows
    data = json.loads(get(served + "/api/crawl/stats"))
    assert data["crawldb"]["status"] == expected
    assert data["crawldb"]["total"] == sum(expected.values()) == crawl_summary(crawl)["urls"]


def test_hosts_table(crawl: Path, served: str) -> None:
    rows = rows_of(get(served + "/dashboard"), "hosts")
    assert rows[0] == ["host", "fetched", "unfetched", "gone", "redirects", "errors", "other", "total"]
    (host,) = rows[1:]
    data = json.loads(get(served + "/api/crawl/stats"))
    db = data["crawldb"]
    assert host[0] == "127.0.0.1" and number(host[-1]) == db["total"]
    assert number(host[1]) == db["status"]["db_fetched"] and number(host[3]) == db["status"]["db_gone"]
    assert number(host[4]) == db["status"].get("db_redir_perm", 0) + db["status"].get("db_redir_temp", 0)
    assert sum(map(number, host[1:7])) == number(host[7])
    sorted_page = get(served + "/dashboard?host_sort=gone")
    assert 'class="sorted" aria-current="true">gone</a>' in sorted_page
    assert 'class="sorted" aria-current="true">total</a>' in get(served + "/dashboard?host_sort=%3Cx%3E")


def test_rounds_and_segments_match_readseg(crawl: Path, served: str) -> None:
    segments = list_segments(crawl / "segments")
    assert len(segments) == 2
    page = get(served + "/dashboard")
    rows = rows_of(page, "segments")[1:-1]
    data = json.loads(get(served + "/api/crawl/stats"))["segments"]
    for segment, row, item in zip(segments, rows, data, strict=True):
        info = segment_info(segment)
        assert row[:4] == [segment.name, f"{info.generated:,}", f"{info.fetched:,}", f"{info.parsed:,}"]
        assert (item["fetch_start"], item["fetch_end"]) == (info.fetcher_start, info.fetcher_end)
        assert item["size_bytes"] > 0
    assert data[0]["fetched"] == 1 and data[0]["new_urls"] == 4  # the seed; a, b, missing, moved
    second = data[1]
    assert second["gone"] == 1 and second["redirects"] == 1 and second["fetched"] == 4
    assert second["pages_per_second"] is not None and second["pages_per_second"] > 0
    assert second["new_urls"] == 2  # deep-a, deep-b (a.html, the redirect target, was known)
    rounds = rows_of(page, "rounds")
    assert [r[1] for r in rounds[1:]] == [s.name for s in segments]
    assert rounds[2][7] == "1" and rounds[2][11] == "2"


def test_charts_are_well_formed_svg(served: str) -> None:
    page = get(served + "/dashboard")
    charts = SVG_RE.findall(page)
    assert len(charts) == 4  # statuses, pages, pages/s, errors
    rounds = page[page.index('id="rounds"'):page.index('id="segments"')]
    assert len(SVG_RE.findall(rounds)) == 3
    for chart in charts:
        root = ET.fromstring(chart)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.find("{http://www.w3.org/2000/svg}title") is not None


def test_index_size(crawl: Path, served: str) -> None:
    description = IndexDescription.read(live_index(crawl / "index"))
    rows = dict((r[0], r[1]) for r in rows_of(get(served + "/dashboard"), "index-size"))
    assert number(rows["Documents"]) == description.docs and number(rows["Shards"]) == description.shards
    index = json.loads(get(served + "/api/crawl/stats"))["index"]
    assert index["docs"] == description.docs and index["bytes"] > 0


def test_cached_view_is_fast_and_follows_new_segments(tmp_path: Path) -> None:
    root, _ = make_crawl(tmp_path / "crawl", [Page("http://one.test/", "One", "first page")], index=False)
    first = dashboard_stats(root)
    start = time.perf_counter()
    again = dashboard_stats(root)
    assert time.perf_counter() - start < 0.05
    assert again.crawldb is first.crawldb and again.segments == first.segments and again.index is None
    write_segment(root / "segments", "20260102000000", [Page("http://two.test/", "Two", "x")])
    later = dashboard_stats(root)
    assert [s.name for s in later.segments] == ["20260101000000", "20260102000000"]
    assert later.crawldb is first.crawldb  # the crawldb did not change


def _evil_crawldb(crawldb: Path, urls: list[str]) -> None:
    version = crawldb / "current"
    version.mkdir(parents=True)
    writer = PartWriter(version / part_name(0), CRAWLDB_SCHEMA, 1024, "zstd")
    writer.write(datums_to_batch([(u, CrawlDatum(CrawlStatus.DB_UNFETCHED, now_millis())) for u in sorted(urls)]))
    writer.close()
    finish_version(version, TableDescription(kind="crawldb", parts=1, rows=len(urls), job="test"))


def test_crawled_strings_are_escaped(tmp_path: Path) -> None:
    root = tmp_path / "crawl"
    _evil_crawldb(root / "crawldb", ["http://<script>alert(1)<\\/script>.test/", 'http://a&b"<img src=x>.test/'])
    with serve_app(create_app(root, load_settings(root))) as base:
        page = get(base + "/dashboard")
        data = json.loads(get(base + "/api/crawl/stats"))
    assert "<script>alert" not in page and "<img src=x>" not in page
    assert "&lt;script&gt;alert(1)&lt;" in page and "a&amp;b&#34;&lt;img src=x&gt;.test" in page
    assert {h["host"] for h in data["crawldb"]["hosts"]} == {"<script>alert(1)<\\", 'a&b"<img src=x>.test'}
    assert data["crawldb"]["status"] == {"db_unfetched": 2}


def test_empty_crawl_renders_nothing_yet(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    with serve_app(create_app(root, load_settings(root))) as base:
        page = get(base + "/dashboard")
        data = json.loads(get(base + "/api/crawl/stats"))
    for section in ("status-counts", "hosts", "top-pages", "rounds", "segments", "index-size"):
        assert f'id="{section}"' in page
    assert page.count('class="nothing"') == 6 and "No index yet" in page
    assert data == {"crawl_dir": str(root), "crawldb": None, "segments": [], "index": None, "top_pages": None}
    assert crawl_summary(root)["urls"] == 0


def test_fixture_crawl_numbers(tmp_path: Path) -> None:
    pages = [Page("http://a.test/", "A", "alpha", outlinks=[("http://a.test/x", "x")]),
             Page("http://a.test/gone", "", "", status=CrawlStatus.FETCH_GONE),
             Page("http://b.test/", "B", "beta")]
    root, _ = make_crawl(tmp_path / "crawl", pages, shards=2)
    clear_cache()
    stats = dashboard_stats(root)
    assert stats.crawldb is not None and stats.crawldb.total == 3
    assert dict(stats.crawldb.statuses) == {"db_fetched": 2, "db_gone": 1}
    assert [(h.host, h.fetched, h.gone, h.total) for h in stats.hosts("gone")] == [("a.test", 1, 1, 2),
                                                                                  ("b.test", 1, 0, 1)]
    (segment,) = stats.segments
    assert (segment.generated, segment.fetched, segment.ok, segment.gone, segment.parsed) == (None, 3, 2, 1, 2)
    assert stats.index is not None and stats.index.shards == 2 and stats.index.docs == 2


def test_top_pages_come_from_the_crawldb_then_from_linkrank(tmp_path: Path) -> None:
    import numpy as np
    import pyarrow as pa

    from gossamer.graph import link_rank, write_graph

    pages = [Page(f"http://p{i}.test/", f"P{i}", "text") for i in range(4)]
    root, settings = make_crawl(tmp_path / "crawl", pages, index=False)
    clear_cache()
    before = dashboard_stats(root).top_pages
    assert before is not None and before.source == "crawldb" and len(before.pages) == 4
    urls = pa.array([p.url for p in pages])
    write_graph(root / "webgraph", urls, np.array([0, 1, 3, 2]), np.array([2, 2, 2, 0]), settings)
    link_rank(root / "webgraph", settings)
    with serve_app(create_app(root, load_settings(root))) as base:
        page = get(base + "/dashboard")
        data = json.loads(get(base + "/api/crawl/stats"))
    assert data["top_pages"]["source"] == "linkrank"
    assert [p["url"] for p in data["top_pages"]["pages"]][:2] == ["http://p2.test/", "http://p0.test/"]
    assert data["top_pages"]["pages"][0]["inlinks"] == 3
    rows = rows_of(page, "top-pages")
    assert rows[0] == ["#", "Page", "Score", "Inlinks"] and rows[1][1] == "http://p2.test/" and rows[1][3] == "3"


# --- charts ---------------------------------------------------------------------------------

def _svg(markup: str) -> ET.Element:
    return ET.fromstring(str(markup))


def _rects(root: ET.Element) -> list[ET.Element]:
    return [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.find("{*}title") is not None]


def test_bar_chart_scales_to_a_nice_maximum() -> None:
    root = _svg(bar_chart(["1", "2", "3"], [50, 100, 0], title="Pages"))
    heights = [float(r.get("height")) for r in _rects(root)]
    assert heights[1] == pytest.approx(2 * heights[0]) and heights[2] == 0
    assert [r.find("{*}title").text for r in _rects(root)] == ["1: 50", "2: 100", "3: 0"]
    assert nice_max(100) == 100 and nice_max(101) == 200 and nice_max(0) == 1 and nice_max(2.3e9) == 2.5e9
    assert axis_top([1, 0]) == 5 and axis_top([0.5]) == 0.5  # whole numbers: no fractional ticks


def test_charts_render_empty_and_huge_data() -> None:
    for chart in (bar_chart([], [], title="t"), hbar_chart([], [], title="t"), line_chart([], [], title="t"),
                  line_chart(["1"], [("s", [None])], title="t")):
        assert "no data yet" in _svg(chart).findall("{*}text")[-1].text
    huge = _svg(bar_chart(["a"], [7_300_000_000_000], title="big"))
    assert "10T" in [t.text for t in huge.iter("{http://www.w3.org/2000/svg}text")]
    assert format_number(1234) == "1.23k" and format_number(2.5) == "2.5" and format_number(999) == "999"
    with pytest.raises(ValueError):
        bar_chart(["a"], [1, 2], title="t")


def test_chart_labels_are_escaped() -> None:
    evil = '<script>alert("x")</script>&'
    for chart in (bar_chart([evil], [1], title=evil, tips=[evil]), hbar_chart([evil], [3], title=evil),
                  line_chart([evil, "b"], [(evil, [1, 2]), ("b", [2, None])], title=evil, tips=[evil, "b"])):
        assert "<script>" not in chart
        root = _svg(chart)
        assert root.find("{*}title").text == evil


def test_line_chart_breaks_at_missing_values() -> None:
    root = _svg(line_chart(list("abcde"), [("rate", [1, 2, None, 4, 5])], title="r", area=True))
    lines = list(root.iter("{http://www.w3.org/2000/svg}polyline"))
    assert len(lines) == 2 and len(list(root.iter("{http://www.w3.org/2000/svg}polygon"))) == 2
    assert len(list(root.iter("{http://www.w3.org/2000/svg}circle"))) == 4
    tops = [float(p.split(",")[1]) for p in lines[1].get("points").split()]
    assert tops[0] > tops[1]  # 4 is drawn below 5 (SVG y grows downwards)
