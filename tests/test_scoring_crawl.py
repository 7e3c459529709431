"""scoring-depth and scoring-link in real crawls on a loopback site: seed metadata, depth limits, index boosts."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
import tantivy

from gossamer.index.ballast import BALLAST_ID
from gossamer.index.store import IndexDescription, shard_name
from gossamer.store.install import live_version_dir
from tests.conftest import write_lines
from tests.fetch_server import Site, ThreadedSite

SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0",
            "-D", "db.ignore.external.links=true")
DEPTH_PLUGINS = "protocol-http|urlfilter-regex|parse-html|scoring-(opic|depth)|urlnormalizer-(pass|basic)"
HTML = {"Content-Type": "text/html; charset=utf-8"}


def _page(site: Site, path: str, *links: str) -> None:
    anchors = " ".join(f"<a href='{link}'>{link}</a>" for link in links)
    site.route(path, body=f"<html><body>{path} {anchors}</body></html>".encode(), headers=HTML)


def _chains(site: Site) -> None:
    """Two chains: /x/1 → /x/2 → /x/3 → /x/4 and /y/1 → /y/2 → /y/3 ⇒(301) /y/3b → /y/4; /y/2 also links /x/2."""
    site.route("/robots.txt", body=b"", headers={"Content-Type": "text/plain"})
    for n in (1, 2, 3):
        _page(site, f"/x/{n}", f"/x/{n + 1}")
    _page(site, "/x/4")
    _page(site, "/y/1", "/y/2")
    _page(site, "/y/2", "/y/3", "/x/2")
    site.route("/y/3", 301, headers={"Location": "/y/3b"})
    _page(site, "/y/3b", "/y/4")
    _page(site, "/y/4")


def _crawldb(crawl: Path) -> dict[str, tuple[float, dict[str, str]]]:
    table = pq.read_table(crawl / "crawldb" / "current", columns=["url", "score", "metadata"]).to_pylist()
    return {row["url"]: (row["score"], dict(row["metadata"] or [])) for row in table}


@pytest.mark.parametrize("inline_parse", [False, True], ids=["parse-job", "fetcher-parse"])
def test_depth_limit_per_seed(cli, tmp_path: Path, inline_parse: bool) -> None:
    with ThreadedSite() as site:
        _chains(site)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/x/1") + "\t_maxdepth_=2", site.url("/y/1")])
        crawl = tmp_path / "crawl"
        result = cli("crawl", seeds, "-d", crawl, "-r", "6", *SETTINGS, "-D", f"plugin.includes={DEPTH_PLUGINS}",
                     "-D", f"fetcher.parse={str(inline_parse).lower()}")
        assert result.code == 0, result.err
        fetched = {hit.path for hit in site.hits}
    db = _crawldb(crawl)
    depths = {url.removeprefix(site.url("")): (meta.get("_depth_"), meta.get("_maxdepth_"))
              for url, (_, meta) in db.items()}
    # the x seed stops at depth 2: /x/3 never enters the crawldb, although /y/2 (limit 1000) links /x/2 too
    assert depths == {
        "/x/1": ("1", "2"), "/x/2": ("2", "2"),
        "/y/1": ("1", "1000"), "/y/2": ("2", "1000"), "/y/3": ("3", "1000"),
        "/y/3b": ("3", "1000"),  # a redirect target keeps its source's depth (Nutch hands metadata on)
        "/y/4": ("4", "1000"),
    }
    assert {"/x/1", "/x/2", "/y/1", "/y/2", "/y/3", "/y/3b", "/y/4"} <= fetched
    assert not {"/x/3", "/x/4"} & fetched
    assert all(score > 0 for score, _ in db.values())  # scoring-opic still ran alongside


def test_inject_reports_a_bad_maxdepth(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", ["http://a.example/\t_maxdepth_=deep", "http://b.example/\t_maxdepth_=3"])
    result = cli("inject", tmp_path / "crawldb", seeds, "-D", "plugin.includes=scoring-depth")
    assert result.code == 0, result.err
    assert "Total new urls injected: 1" in result.out and "Total bad seed lines (skipped): 1" in result.out
    assert "seeds.txt:1: " in result.err and "_maxdepth_='deep'" in result.err
    out = cli("readdb", tmp_path / "crawldb", "-url", "http://b.example/").out
    assert "\t_maxdepth_=3" in out and "\t_depth_=1" in out


def _boosts(crawl: Path) -> dict[str, float]:
    live = live_version_dir(crawl / "index")
    assert live is not None
    boosts: dict[str, float] = {}
    for i in range(IndexDescription.read(live).shards):
        searcher = tantivy.Index.open(str(live / shard_name(i))).searcher()
        for _, address in searcher.search(tantivy.Query.all_query(), 100).hits:
            doc = searcher.doc(address).to_dict()
            if doc["id"][0] != BALLAST_ID:
                boosts[doc["id"][0]] = doc["boost"][0]
    return boosts


def test_link_scoring_boost_follows_the_crawldb_score(cli, tmp_path: Path) -> None:
    plugins = ("protocol-http|urlfilter-regex|parse-html|index-basic|indexer-tantivy|scoring-link|"
               "urlnormalizer-(pass|basic)")
    with ThreadedSite() as site:
        site.route("/robots.txt", body=b"", headers={"Content-Type": "text/plain"})
        _page(site, "/a", "/c")
        _page(site, "/b", "/c")
        _page(site, "/c")
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/a") + "\tnutch.score=4.0",
                                                     site.url("/b") + "\tnutch.score=0.25"])
        crawl = tmp_path / "crawl"
        result = cli("crawl", seeds, "-d", crawl, "-r", "2", "--index", *SETTINGS, "-D", f"plugin.includes={plugins}",
                     "-D", "link.analyze.normalize.score=2.0")
        assert result.code == 0, result.err
    scores = {url: score for url, (score, _) in _crawldb(crawl).items()}
    # nothing flows along links and updatedb keeps the score: the seeds keep theirs, /c starts at 0
    assert scores == {site.url("/a"): 4.0, site.url("/b"): 0.25, site.url("/c"): 0.0}
    assert _boosts(crawl) == {url: 2.0 * score for url, score in scores.items()}
