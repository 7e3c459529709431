"""protocol-file: local files and directory link pages, limits, symlinks, and the URL filter default."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from gossamer.core import TRUNCATED, ProtocolStatusCode, Settings
from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.plugins import PluginRepository, ProtocolSelector, URLFilter
from gossamer.plugins.api import ProtocolOutput
from gossamer.plugins.builtin.protocol_file import FileProtocol, file_url, local_path
from tests.fetch_server import items, settings


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    (root / "docs").mkdir(parents=True)
    (root / "index.html").write_bytes(b"<html><title>Local home</title><body>local pages</body></html>")
    (root / "docs" / "notes.txt").write_bytes(b"x" * 5000)
    (root / "docs" / "odd name #1.txt").write_bytes(b"odd")
    (root / "link.html").symlink_to(root / "index.html")
    return root


FOLLOW_LINKS = settings().with_values([("file.crawl.redirect_noncanonical", False)], "test")


def fetch(url: str, conf: Settings | None = None, modified: int = 0) -> ProtocolOutput:
    return FileProtocol(conf or settings()).fetch_now(url, modified)


def test_a_file_is_read_with_a_type_from_its_name(tree: Path) -> None:
    out = fetch(file_url(str(tree / "index.html")))
    assert out.status.code == ProtocolStatusCode.SUCCESS and out.content is not None
    assert out.content.content.startswith(b"<html>") and out.content.content_type == "text/html"
    assert out.status.last_modified == int((tree / "index.html").stat().st_mtime * 1000)
    assert out.exchange is not None and out.exchange.status == 200
    assert ("Content-Type", "text/html") in out.exchange.response_headers


def test_a_directory_is_a_link_page_with_its_parent(tree: Path) -> None:
    out = fetch(file_url(str(tree / "docs")) + "/")
    assert out.content is not None and out.content.content_type.startswith("text/html")
    page = out.content.content.decode()
    assert 'href="../"' in page and 'href="notes.txt"' in page and 'href="odd%20name%20%231.txt"' in page
    no_parent = fetch(file_url(str(tree / "docs")) + "/", settings(file_crawl_parent=False))
    assert no_parent.content is not None and b'href="../"' not in no_parent.content.content


def test_a_directory_without_slash_moves_and_names_are_decoded(tree: Path) -> None:
    moved = fetch(file_url(str(tree / "docs")))
    assert moved.status.code == ProtocolStatusCode.MOVED and moved.status.args[0] == file_url(str(tree / "docs")) + "/"
    odd = fetch(file_url(str(tree / "docs" / "odd name #1.txt")))
    assert odd.content is not None and odd.content.content == b"odd"
    assert "%20" in file_url("/a b") and local_path("file:///a%20b") == ("/a b", "")
    assert local_path("file://localhost/x") == ("/x", "")


def test_the_content_limit_truncates(tree: Path) -> None:
    out = fetch(file_url(str(tree / "docs" / "notes.txt")), settings(file_content_limit=1000))
    assert out.content is not None and len(out.content.content) == 1000
    assert out.content.metadata[TRUNCATED] == "true" and out.exchange is not None
    whole = fetch(file_url(str(tree / "docs" / "notes.txt")), settings(file_content_limit=-1))
    assert whole.content is not None and len(whole.content.content) == 5000


def test_missing_unreadable_special_and_remote(tree: Path) -> None:
    missing = fetch(file_url(str(tree / "nothing.html")))
    assert missing.status.code == ProtocolStatusCode.NOTFOUND and missing.content is None
    assert missing.exchange is not None and missing.exchange.status == 404
    os.mkfifo(tree / "pipe")
    fifo = fetch(file_url(str(tree / "pipe")))  # never opened: a FIFO would block the fetch
    assert fifo.status.code == ProtocolStatusCode.ACCESS_DENIED and "not a regular file" in fifo.status.args[0]
    remote = fetch("file://fileserver.example/etc/passwd")
    assert remote.status.code == ProtocolStatusCode.NOTFOUND and "local files only" in remote.status.args[0]
    (tree / "closed.txt").write_bytes(b"x")
    (tree / "closed.txt").chmod(0)
    if os.geteuid() != 0:  # root reads anything
        denied = fetch(file_url(str(tree / "closed.txt")))
        assert denied.status.code == ProtocolStatusCode.ACCESS_DENIED


def test_symlinks_redirect_to_the_canonical_name_unless_told_otherwise(tree: Path) -> None:
    moved = fetch(file_url(str(tree / "link.html")))
    assert moved.status.code == ProtocolStatusCode.MOVED and moved.status.args[0] == file_url(str(tree / "index.html"))
    followed = fetch(file_url(str(tree / "link.html")), FOLLOW_LINKS)
    assert followed.content is not None and followed.content.content.startswith(b"<html>")
    (tree / "loop").symlink_to(tree / "loop")
    loop = fetch(file_url(str(tree / "loop")), FOLLOW_LINKS)
    assert loop.status.code == ProtocolStatusCode.GONE


def test_not_modified_since_the_datum(tree: Path) -> None:
    mtime = int((tree / "index.html").stat().st_mtime * 1000)
    assert fetch(file_url(str(tree / "index.html")), modified=mtime).status.code == ProtocolStatusCode.NOTMODIFIED
    assert fetch(file_url(str(tree / "index.html")), modified=mtime - 5000).status.code == ProtocolStatusCode.SUCCESS


def test_the_fetcher_queues_file_urls_and_the_default_url_filter_rejects_them(tree: Path) -> None:
    conf = settings(plugin_includes="protocol-(http|file)|urlfilter-regex")
    urls = [file_url(str(tree / "index.html")), file_url(str(tree / "docs")) + "/"]

    async def main() -> ListSink:
        selector = ProtocolSelector(PluginRepository(conf))
        sink = ListSink()
        summary = await fetch_all(items(*urls), conf, sink, protocol=selector, redirects=RedirectTargets.passthrough())
        await selector.close()
        assert summary.by_status == {"fetch_success": 2}
        return sink
    results = asyncio.run(main()).by_url()
    assert all(results[u].content is not None for u in urls)
    url_filter, = PluginRepository(conf).chain(URLFilter)
    assert url_filter.filter(urls[0]) is None  # Nutch's default regex-urlfilter.txt: -^(?:file|ftp|mailto):
    assert url_filter.filter("ftp://example.com/") is None


def test_protocol_file_is_off_by_default() -> None:
    assert ProtocolSelector(PluginRepository(settings())).protocol_for("file:/etc/passwd") is None
    assert "protocol-file" in {s.info.id for s in PluginRepository(settings()).states()}


def test_gossamer_plugins_lists_both_protocols_off(cli) -> None:
    result = cli("plugins")
    rows = {line.split()[0]: line.split()[2] for line in result.out.splitlines() if line.startswith("protocol-")}
    assert rows["protocol-file"] == "no" and rows["protocol-ftp"] == "no" and rows["protocol-http"] == "yes"
    on = cli("plugins", "-D", "plugin.includes=protocol-(http|file|ftp)")
    assert all(line.split()[2] == "yes" for line in on.out.splitlines() if line.startswith("protocol-"))
