"""HtmlParseFilters end to end: a loopback page with license, meta tags, headings and tags, indexed and searched."""

from __future__ import annotations

import json
from pathlib import Path

from gossamer.core.settings import load_settings
from gossamer.search.searcher import open_searcher
from tests.conftest import write_lines
from tests.fetch_server import ThreadedSite
from tests.test_index import _docs

HTML = {"Content-Type": "text/html; charset=utf-8"}
LICENSED = b"""<html><head><title>Oolong notes</title>
<meta name="description" content="Notes on brewing oolong tea">
<meta name="keywords" content="tea, oolong, brewing">
</head><body><h1>Brewing oolong</h1><h2>Water</h2><h2>Time</h2>
<p>Rinse the leaves, then steep them briefly.</p>
<a rel="tag" href="/tags/tea/">tea</a> <a rel="tag" href="/tags/green%20leaves">green leaves</a>
<a rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/">CC BY-SA 4.0</a>
</body></html>"""
OTHER = (b"<html><head><title>Oolong prices</title></head><body><p>oolong costs money</p>"
         b"<a rel=license href='https://creativecommons.org/licenses/by-nc-sa/4.0/'>CC BY-NC-SA</a></body></html>")
INCLUDES = ("protocol-http|urlfilter-regex|parse-(html|metatags)|headings|creativecommons.*|microformats-reltag.*|"
            "index-(basic|metadata)|indexer-tantivy|query-(basic|site)|scoring-opic|urlnormalizer-(pass|basic)")
CONF = f'''"plugin.includes" = "{INCLUDES}"\n"index.parse.md" = "metatag.description,metatag.keywords,h1"\n'''


def test_license_tags_and_meta_tags_are_indexed_and_searchable(cli, tmp_path: Path) -> None:
    crawl_dir = tmp_path / "crawl"
    crawl_dir.mkdir()
    (crawl_dir / "gossamer.toml").write_text(CONF)
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
        site.route("/notes.html", body=LICENSED, headers=HTML)
        site.route("/prices.html", body=OTHER, headers=HTML)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/notes.html"), site.url("/prices.html")])
        result = cli("crawl", seeds, "-d", crawl_dir, "-r", "1", "--index", "-D", "http.agent.name=test",
                     "-D", "fetcher.server.delay=0.01")
        assert result.code == 0, result.err
        notes = site.url("/notes.html")
    answer = cli("search", "-d", crawl_dir, "cc:by-sa", "--json")
    assert answer.code == 0, answer.err
    assert [h["url"] for h in json.loads(answer.out)["hits"]] == [notes]  # by-nc-sa is not by-sa
    searcher = open_searcher(crawl_dir, load_settings(crawl_dir))
    try:
        assert {h.url for h in searcher.search("oolong cc:sa", per_site=0).hits} == {notes, site.url("/prices.html")}
        assert [h.url for h in searcher.search("oolong -cc:nc").hits] == [notes]
        assert [h.url for h in searcher.search("tag:green-leaves").hits] == [notes]
        assert [h.url for h in searcher.search("steep").hits] == [notes]
        assert not searcher.search("tag:coffee").hits
    finally:
        searcher.close()
    doc = _docs(crawl_dir)[notes]
    assert doc["meta"] == [{"metatag.description": "Notes on brewing oolong tea",
                            "metatag.keywords": "tea, oolong, brewing", "h1": "Brewing oolong"}]
    assert doc["tag"] == ["green leaves", "tea"]
    assert doc["cc"] == ["license=https://creativecommons.org/licenses/by-sa/4.0/", "by-sa", "4.0", "meta=rel"]
