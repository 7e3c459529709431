"""protocol-ftp against a real FTP server (pyftpdlib) on loopback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from gossamer.core import TRUNCATED, TRUNCATED_REASON, CrawlDatum, ProtocolStatusCode, Settings
from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.plugins import PluginRepository, ProtocolSelector
from gossamer.plugins.api import ProtocolOutput, RobotsRequest
from gossamer.plugins.builtin.ftp_client import parse_list_line
from gossamer.plugins.builtin.protocol_ftp import FtpProtocol
from tests.fetch_server import items, settings
from tests.ftp_server import PASSWORD, USER, FtpServer


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "ftp"
    (root / "pub" / "docs").mkdir(parents=True)
    (root / "pub" / "readme.txt").write_bytes(b"hello ftp\n")
    (root / "pub" / "page.html").write_bytes(b"<html><title>Ftp page</title><body>served over ftp</body></html>")
    (root / "pub" / "big.bin").write_bytes(bytes(range(256)) * 40)  # 10240 bytes
    (root / "pub" / "docs" / "a b.txt").write_bytes(b"spaced name")
    (root / "private").mkdir()
    (root / "private" / "secret.txt").write_bytes(b"for crawler only")
    (root / "robots.txt").write_bytes(b"User-agent: *\nDisallow: /pub/docs/\n")
    return root


def fetch(conf: Settings, *urls: str, protocol: FtpProtocol | None = None) -> list[ProtocolOutput]:
    async def main() -> list[ProtocolOutput]:
        plugin = protocol or FtpProtocol(conf)
        try:
            return [await plugin.fetch(url, CrawlDatum()) for url in urls]
        finally:
            if protocol is None:
                await plugin.close()
    return asyncio.run(main())


def test_a_listing_becomes_a_link_page_and_files_are_fetched(tree: Path) -> None:
    with FtpServer(tree) as server:
        listing, readme, html = fetch(settings(), server.url("/pub/"), server.url("/pub/readme.txt"),
                                      server.url("/pub/page.html"))
    assert listing.status.code == ProtocolStatusCode.SUCCESS and listing.content is not None
    page = listing.content.content.decode()
    assert listing.content.content_type.startswith("text/html")
    for link in ('href="../"', 'href="docs/"', 'href="readme.txt"', 'href="big.bin"'):
        assert link in page
    assert readme.content is not None and readme.content.content == b"hello ftp\n"  # binary: no CRLF
    assert readme.content.content_type == "text/plain" and readme.status.last_modified > 0
    assert html.content is not None and html.content.content_type == "text/html"
    assert readme.exchange is not None and readme.exchange.status == 200 and readme.exchange.ip == "127.0.0.1"


def test_missing_is_gone_a_directory_without_slash_moves_and_names_are_decoded(tree: Path) -> None:
    with FtpServer(tree) as server:
        missing, moved, spaced = fetch(settings(), server.url("/pub/nothing.txt"), server.url("/pub/docs"),
                                       server.url("/pub/docs/a%20b.txt"))
    assert missing.status.code == ProtocolStatusCode.NOTFOUND and "550" in missing.status.args[0]
    assert missing.content is None and missing.exchange is not None and missing.exchange.status == 404
    assert moved.status.code == ProtocolStatusCode.MOVED and moved.status.args[0] == server.url("/pub/docs/")
    assert spaced.content is not None and spaced.content.content == b"spaced name"


def test_the_content_limit_truncates_and_flags(tree: Path) -> None:
    with FtpServer(tree) as server:
        conf = settings(ftp_content_limit=1000)
        protocol = FtpProtocol(conf)
        big, readme = fetch(conf, server.url("/pub/big.bin"), server.url("/pub/readme.txt"), protocol=protocol)
        asyncio.run(protocol.close())
    assert big.status.code == ProtocolStatusCode.SUCCESS and big.content is not None
    assert big.content.content == (bytes(range(256)) * 40)[:1000]
    assert big.content.metadata[TRUNCATED] == "true" and big.content.metadata[TRUNCATED_REASON] == "length"
    assert big.exchange is not None and big.exchange.truncated == "length"
    assert readme.content is not None and readme.content.content == b"hello ftp\n"  # a fresh connection after the cut
    assert TRUNCATED not in readme.content.metadata


def test_a_slow_download_is_cut_at_the_time_limit(tree: Path) -> None:
    (tree / "pub" / "huge.bin").write_bytes(b"z" * 400_000)
    with FtpServer(tree, bytes_per_second=50_000) as server:
        slow, = fetch(settings(ftp_time_limit=1, ftp_content_limit=-1), server.url("/pub/huge.bin"))
    assert slow.status.code == ProtocolStatusCode.SUCCESS and slow.content is not None
    assert 0 < len(slow.content.content) < 400_000 and slow.content.metadata[TRUNCATED_REASON] == "time"


def test_a_connection_dropped_mid_file_is_a_retryable_exception(tree: Path) -> None:
    with FtpServer(tree, drop_after=3000) as server:
        dropped, = fetch(settings(), server.url("/pub/big.bin"))
        whole, = fetch(settings(), server.url("/pub/readme.txt"))  # shorter than the cut: complete
    assert dropped.status.code == ProtocolStatusCode.EXCEPTION and dropped.content is None
    assert "dropped mid-file" in dropped.status.args[0]
    assert whole.content is not None and whole.content.content == b"hello ftp\n"


def test_anonymous_and_user_logins(tree: Path) -> None:
    with FtpServer(tree) as server:
        anonymous, = fetch(settings(), server.url("/private/secret.txt"))
        by_url, = fetch(settings(), server.url("/secret.txt", user=f"{USER}:{PASSWORD}"))
        by_settings, = fetch(settings(ftp_username=USER, ftp_password=PASSWORD), server.url("/secret.txt"))
        wrong, = fetch(settings(ftp_username=USER, ftp_password="nope"), server.url("/secret.txt"))
    assert anonymous.content is not None and anonymous.content.content == b"for crawler only"
    assert by_url.content is not None and by_url.content.content == b"for crawler only"  # home: root/private
    assert by_settings.content is not None and by_settings.content.content == b"for crawler only"
    assert wrong.status.code == ProtocolStatusCode.ACCESS_DENIED and "530" in wrong.status.args[0]


def test_one_connection_per_host_is_reused_unless_keep_connection_is_off(tree: Path) -> None:
    urls = ("/pub/", "/pub/readme.txt", "/pub/nothing", "/pub/page.html")
    with FtpServer(tree) as server:
        kept = FtpProtocol(settings())
        fetch(settings(), *(server.url(u) for u in urls), protocol=kept)
        asyncio.run(kept.close())
        logins_kept = server.commands["USER"]
        fetch(settings(ftp_keep_connection=False), *(server.url(u) for u in urls))
    assert kept.connections == 1 and logins_kept == 1
    assert server.commands["USER"] == 1 + len(urls)


def test_active_mode_and_a_server_without_mlsd(tree: Path) -> None:
    with FtpServer(tree, mlsd=False) as server:
        listing, readme = fetch(settings(ftp_passive=False), server.url("/pub/"), server.url("/pub/readme.txt"))
    assert listing.content is not None and b'href="docs/"' in listing.content.content
    assert b'href="readme.txt"' in listing.content.content
    assert readme.content is not None and readme.content.content == b"hello ftp\n"
    assert server.commands.get("PORT", 0) + server.commands.get("EPRT", 0) >= 2 and "LIST" in server.commands


def test_list_lines_unix_and_dos() -> None:
    unix = parse_list_line("drwxr-xr-x   2 ftp ftp      4096 Jan  1 12:00 some dir")
    assert unix is not None and unix.name == "some dir" and unix.is_dir
    link = parse_list_line("lrwxrwxrwx   1 ftp ftp        11 Mar 10  2020 latest -> v1.2/file")
    assert link is not None and link.name == "latest" and not link.is_dir
    dos = parse_list_line("01-02-24  10:15AM       <DIR>          Docs")
    assert dos is not None and dos.name == "Docs" and dos.is_dir
    assert parse_list_line("total 12") is None


def test_the_address_policy_guards_ftp_like_http(tree: Path) -> None:
    with FtpServer(tree) as server:
        refused, = fetch(settings(http_filter_ipaddress_include=""), server.url("/pub/readme.txt"))
    assert refused.status.code == ProtocolStatusCode.ACCESS_DENIED
    assert refused.status.args[0].startswith("address refused: 127.0.0.1") and server.commands == {}


def test_robots_txt_over_ftp_and_the_fetcher_obeys_it(tree: Path) -> None:
    with FtpServer(tree) as server:
        conf = settings(plugin_includes="protocol-(http|ftp)")
        request = RobotsRequest("gossamer-test", 2.0, 10000, 3)

        async def main() -> ListSink:
            selector = ProtocolSelector(PluginRepository(conf))
            found = await selector.fetch_robots(server.url("/robots.txt"), request)
            assert found is not None and found.status == 200 and b"Disallow: /pub/docs/" in found.body
            sink = ListSink()
            await fetch_all(items(server.url("/pub/readme.txt"), server.url("/pub/docs/a%20b.txt")), conf, sink,
                            protocol=selector, redirects=RedirectTargets.passthrough())
            await selector.close()
            return sink
        results = asyncio.run(main()).by_url()
    assert results[server.url("/pub/readme.txt")].content is not None
    assert "robots" in results[server.url("/pub/docs/a%20b.txt")].datum.metadata["_pst_"]


def test_a_host_with_no_ftp_server_is_an_exception() -> None:
    outcome, = fetch(settings(ftp_timeout=2000), "ftp://127.0.0.1:9/x.txt")
    assert outcome.status.code == ProtocolStatusCode.EXCEPTION and outcome.content is None


def test_protocol_ftp_is_off_by_default() -> None:
    selector = ProtocolSelector(PluginRepository(settings()))
    assert selector.protocol_for("ftp://example.com/") is None
    assert selector.protocol_for("file:/tmp/") is None
