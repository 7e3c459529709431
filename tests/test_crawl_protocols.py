"""`gossamer crawl --index` over ftp:// (a real FTP server on loopback) and over a file: tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from gossamer.core.settings import load_settings
from gossamer.plugins.builtin.protocol_file import file_url
from gossamer.search.searcher import open_searcher
from tests.conftest import write_lines
from tests.ftp_server import FtpServer

INCLUDES = ("protocol-(http|file|ftp)|urlfilter-regex|parse-(html|text)|index-(basic|anchor|more|metadata)|"
            "indexer-tantivy|query-(basic|site|url|more)|scoring-opic|urlnormalizer-(pass|regex|basic)")


def _pages(root: Path, where: str) -> None:
    """Three pages; ``where`` makes their text (and so their signatures) differ from other copies."""
    label = where.encode()
    (root / "guide").mkdir(parents=True)
    (root / "index.html").write_bytes(b"<html><head><title>Archive home</title></head><body>"
                                      b"<a href='guide/kettle.html'>kettles</a> " + label + b"</body></html>")
    (root / "guide" / "kettle.html").write_bytes(b"<html><head><title>Kettle guide</title></head><body>"
                                                 b"descaling a copper samovar " + label + b"</body></html>")
    (root / "guide" / "notes.txt").write_bytes(b"plain notes about porcelain teapots " + label)


def _crawl(cli, tmp_path: Path, seeds: list[str]) -> set[str]:
    rules = write_lines(tmp_path / "urlfilter.txt", [*(f"+^{seed}" for seed in seeds), "-."])
    crawl_dir = tmp_path / "crawl"
    result = cli("crawl", write_lines(tmp_path / "seeds.txt", seeds), "-d", crawl_dir, "-r", "3", "--index",
                 "-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0",
                 "-D", f"plugin.includes={INCLUDES}", "-D", f"urlfilter.regex.file={rules}")
    assert result.code == 0, result.err + result.out
    searcher = open_searcher(crawl_dir, load_settings(crawl_dir))
    try:
        found: set[str] = set()
        for word in ("samovar", "porcelain", "archive"):
            found |= {hit.url for hit in searcher.search(word, per_site=0).hits}
        return found
    finally:
        searcher.close()


@pytest.mark.slow
def test_crawl_over_ftp_and_a_file_tree_lists_fetches_parses_and_indexes(cli, tmp_path: Path) -> None:
    """One crawl, two seeds: an FTP server's directory and a local directory the URL filters let in."""
    _pages(tmp_path / "ftp" / "pub", "served over ftp")
    _pages(tmp_path / "tree", "read from disk")
    top = file_url(str(tmp_path / "tree")) + "/"
    with FtpServer(tmp_path / "ftp") as server:
        pub = server.url("/pub/")
        found = _crawl(cli, tmp_path, [pub, top])
    pages = ("guide/kettle.html", "guide/notes.txt", "index.html")
    assert found == {base + page for base in (pub, top) for page in pages}
