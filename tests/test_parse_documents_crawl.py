"""End to end: a loopback web server serves a DOCX and an RSS feed; fetch, then ``gossamer parse``."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests import docsamples as d
from tests.conftest import write_lines
from tests.fetch_server import ThreadedSite

SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.01", "-D", "fetcher.parse=false")


@pytest.mark.slow  # a whole crawl round (inject … index): about 8 s
def test_a_crawl_round_parses_a_docx_and_a_feed_into_text_and_crawldb_entries(cli, tmp_path: Path) -> None:
    with ThreadedSite() as site:
        site.route("/robots.txt", 404)
        site.route("/files/report.docx", body=d.docx(["Quarterly report on looms"], [(site.url("/more.html"), "More")],
                                                      "Report"), headers={"Content-Type": d.DOCX})
        items = [(site.url("/news/1.html"), "Loom news", "Wed, 01 May 2024 10:00:00 GMT"),
                 (site.url("/news/2.html"), "Engine news", "Thu, 02 May 2024 10:00:00 GMT")]
        site.route("/feed.rss", body=d.rss(items, "Site news"), headers={"Content-Type": "application/rss+xml"})
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/files/report.docx"), site.url("/feed.rss")])
        crawl = tmp_path / "crawl"
        result = cli("crawl", seeds, "-d", crawl, "-r", "1", *SETTINGS)
    assert result.code == 0, result.err
    segment = next(p for p in (crawl / "segments").iterdir() if p.name.isdigit())
    texts = dict(zip(*pq.read_table(segment / "parse_text").select(["url", "text"]).to_pydict().values(),
                     strict=True))
    assert texts[site.url("/files/report.docx")].startswith("Quarterly report on looms")
    assert "Loom news" in texts[site.url("/feed.rss")]
    db = pq.read_table(crawl / "crawldb" / "current").to_pylist()
    by_url = {row["url"]: row for row in db}
    for path in ("/more.html", "/news/1.html", "/news/2.html"):
        assert site.url(path) in by_url, sorted(by_url)
    item = by_url[site.url("/news/1.html")]
    assert "2024-05-01T10:00:00Z" in str(item.get("metadata"))  # the item's date reached its crawldb entry
