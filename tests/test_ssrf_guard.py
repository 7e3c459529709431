"""The SSRF guard: special addresses refused after DNS, on every hop and for robots.txt, unless allowed.

Real fetches only go to loopback servers while loopback is refused (or only part of it is
allowed): 127.0.0.1 plays the allowed site and 127.0.0.2 the internal address an attacker
points the crawler at.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from pathlib import Path

import pytest
from aiohttp.abc import AbstractResolver

from gossamer.core import CrawlDatum, ProtocolStatusCode, SettingsError
from gossamer.core.address_policy import AddressPolicy, embedded_ipv4, special_kind
from gossamer.core.datum import META_PROTOCOL_STATUS
from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.plugins.builtin.http_guard import GuardedResolver
from gossamer.plugins.builtin.protocol_http import HttpProtocol
from tests.conftest import write_lines
from tests.fetch_server import Site, ThreadedSite, items, settings

SPECIAL = {
    "0.0.0.0": "unspecified", "0.1.2.3": "unspecified", "::": "unspecified",
    "127.0.0.1": "loopback", "127.255.0.9": "loopback", "::1": "loopback",
    "10.1.2.3": "private", "172.16.0.1": "private", "172.31.255.255": "private", "192.168.1.1": "private",
    "100.64.0.1": "private", "fd12:3456::1": "private", "fec0::1": "private",
    "169.254.169.254": "metadata", "169.254.170.2": "metadata", "100.100.100.200": "metadata",
    "fd00:ec2::254": "metadata", "192.0.0.192": "metadata",
    "169.254.1.1": "linklocal", "fe80::1": "linklocal",
    "224.0.0.1": "multicast", "239.1.2.3": "multicast", "ff02::1": "multicast",
    "255.255.255.255": "reserved", "240.0.0.1": "reserved", "192.0.2.7": "reserved", "2001:db8::1": "reserved",
    "198.18.0.1": "reserved",
    # IPv6 forms carrying an IPv4 address are judged by it too
    "::ffff:127.0.0.1": "loopback", "::ffff:10.0.0.1": "private", "::ffff:169.254.169.254": "metadata",
    "::127.0.0.1": "loopback", "64:ff9b::a9fe:a9fe": "metadata", "2002:7f00:1::": "loopback",
    "2002:c0a8:0101::1": "private",
}
PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2001:4860:4860::8888",
          "2606:4700::1111", "::ffff:8.8.8.8", "2002:0808:0808::1"]


@pytest.mark.parametrize(("address", "kind"), sorted(SPECIAL.items()))
def test_special_addresses_are_refused_by_default(address: str, kind: str) -> None:
    assert special_kind(ipaddress.ip_address(address)) == kind
    reason = AddressPolicy().refusal(address)
    assert reason is not None and kind in reason and "http.filter.ipaddress.include" in reason


@pytest.mark.parametrize("address", PUBLIC)
def test_public_addresses_are_allowed_by_default(address: str) -> None:
    assert AddressPolicy().refusal(address) is None


def test_teredo_and_nat64_carry_their_ipv4_address() -> None:
    teredo = ipaddress.ip_address("2001:0:4136:e378:8000:63bf:80ff:fffe")  # client 127.0.0.1 (obfuscated)
    assert embedded_ipv4(teredo) == ipaddress.ip_address("127.0.0.1")
    assert AddressPolicy().refusal(teredo) is not None
    assert embedded_ipv4(ipaddress.ip_address("64:ff9b::808:808")) == ipaddress.ip_address("8.8.8.8")


def test_include_lists_what_may_be_fetched_and_exclude_always_wins() -> None:
    only_loopback = AddressPolicy(include=["loopback"])
    assert only_loopback.refusal("127.0.0.5") is None and only_loopback.refusal("::1") is None
    assert "not in http.filter.ipaddress.include" in (only_loopback.refusal("8.8.8.8") or "")  # Nutch's rule
    lan_and_internet = AddressPolicy(include=["public", "10.0.0.0/8"])
    assert lan_and_internet.refusal("8.8.8.8") is None and lan_and_internet.refusal("10.9.9.9") is None
    assert lan_and_internet.refusal("192.168.0.1") is not None and lan_and_internet.refusal("127.0.0.1") is not None
    assert AddressPolicy(include=["sitelocal"]).refusal("172.20.0.1") is None
    assert AddressPolicy(include=["localhost"]).refusal("127.0.0.1") is None
    assert AddressPolicy(include=["::ffff:0:0/96"]).refusal("::ffff:10.0.0.1") is None
    assert AddressPolicy(include=["10.0.0.0/8"]).refusal("::ffff:10.0.0.1") is None  # the mapped form matches too
    carved = AddressPolicy(include=["loopback"], exclude=["127.0.0.2", "fe80::/10"])
    assert "excluded by http.filter.ipaddress.exclude" in (carved.refusal("127.0.0.2") or "")
    assert carved.refusal("127.0.0.3") is None
    assert "excluded" in (AddressPolicy(exclude=["8.8.0.0/16"]).refusal("8.8.8.8") or "")
    assert AddressPolicy(exclude=["8.8.0.0/16"]).refusal("1.1.1.1") is None


@pytest.mark.parametrize("entry", ["bogus", "10.0.0.0/33", "300.1.2.3", "loopbacks"])
def test_a_bad_entry_is_a_settings_error_naming_the_property(entry: str) -> None:
    with pytest.raises(SettingsError, match=r"http\.filter\.ipaddress\.exclude'?: .* is not an IP address"):
        settings(http_filter_ipaddress_exclude=entry)
    with pytest.raises(ValueError, match=r"^http\.filter\.ipaddress\.include: .* is not an IP address"):
        AddressPolicy(include=[entry])


async def _fetch(urls: list[str], **values: object) -> ListSink:
    sink = ListSink()
    await fetch_all(items(*urls), settings(**values), sink, redirects=RedirectTargets.passthrough())
    return sink


def _status(sink: ListSink, url: str) -> str:
    return sink.by_url()[url].datum.metadata[META_PROTOCOL_STATUS]


@pytest.mark.usefixtures("http_client")
def test_loopback_is_refused_by_default_by_literal_and_by_name_without_a_connection() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/", body=b"<html>secret</html>")
            urls = [site.url("/"), site.url("/", "localhost"), f"http://[::ffff:127.0.0.1]:{site.port}/",
                    *(site.url("/", legacy) for legacy in ("2130706433", "127.1", "0x7f000001", "0177.0.0.01"))]
            sink = await _fetch(urls, http_filter_ipaddress_include="")
            for url in urls:
                status = _status(sink, url)
                assert status.startswith("access_denied(17)") and "address refused" in status, status
                assert "loopback" in status, status
                assert sink.by_url()[url].datum.status_name == "fetch_gone"
            assert site.hits == []  # not even robots.txt was requested
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_every_redirect_hop_is_checked() -> None:
    async def main() -> None:
        async with Site("127.0.0.1") as public, Site("127.0.0.2") as internal:
            internal.route("/", body=b"internal")
            public.route("/go", 302, headers={"Location": internal.url("/")})
            sink = await _fetch([public.url("/go")], http_filter_ipaddress_include="127.0.0.1",
                                http_redirect_max=3)
            hop = sink.by_url()[internal.url("/")]
            assert "address 127.0.0.2 is not in http.filter.ipaddress.include" in \
                hop.datum.metadata[META_PROTOCOL_STATUS]
            sink = await _fetch([public.url("/go")], http_filter_ipaddress_include="loopback",
                                http_filter_ipaddress_exclude="127.0.0.2", http_redirect_max=3)
            assert "excluded by http.filter.ipaddress.exclude" in \
                sink.by_url()[internal.url("/")].datum.metadata[META_PROTOCOL_STATUS]
            assert internal.hits == [] and [h.path for h in public.page_hits()] == ["/go", "/go"]
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_robots_txt_and_its_redirects_are_checked() -> None:
    async def main() -> None:
        async with Site("127.0.0.1") as public, Site("127.0.0.2") as internal:
            public.route("/robots.txt", 301, headers={"Location": internal.url("/robots.txt")})
            public.route("/page", body=b"<html>ok</html>")
            internal.route("/robots.txt", body=b"User-agent: *\nDisallow: /\n", headers={"Content-Type": "text/plain"})
            sink = await _fetch([public.url("/page")], http_filter_ipaddress_include="127.0.0.1")
            assert _status(sink, public.url("/page")).startswith("success(1)")  # robots unreachable: allowed
            assert internal.hits == []
    asyncio.run(main())


class ScriptedDns(AbstractResolver):
    """A DNS answer chosen by the test: the name resolves to the refused address first."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET) -> list:
        return [{"hostname": host, "host": a, "port": port, "family": socket.AF_INET, "proto": 0, "flags": 0}
                for a in self.answers]

    async def close(self) -> None:
        return None


@pytest.mark.usefixtures("http_client")
def test_only_the_checked_addresses_are_connected_to() -> None:
    """A name that resolves to a refused address and an allowed one: the connection goes to the allowed one."""

    async def main() -> None:
        async with Site("127.0.0.2") as internal:
            async with Site("127.0.0.1", port=internal.port) as public:
                internal.route("/", body=b"internal")
                public.route("/", body=b"public")
                protocol = HttpProtocol(settings(http_filter_ipaddress_include="127.0.0.1"))
                dns = ScriptedDns(["127.0.0.2", "127.0.0.1"])
                protocol.guard.resolver = GuardedResolver(protocol.guard.policy, inner=lambda: dns)
                try:
                    out = await protocol.fetch(f"http://rebind.test:{public.port}/", CrawlDatum())
                    assert out.content is not None and out.content.content == b"public"
                    assert out.exchange is not None and out.exchange.ip == "127.0.0.1"
                    dns.answers = ["127.0.0.2"]  # a new name that points inside only
                    out = await protocol.fetch(f"http://rebound.test:{public.port}/", CrawlDatum())
                    assert out.status.code == ProtocolStatusCode.ACCESS_DENIED
                    assert "rebound.test: address 127.0.0.2 is not in" in out.status.args[0]
                finally:
                    await protocol.close()
                assert internal.hits == [] and len(public.hits) == 1
    asyncio.run(main())


def test_a_crawl_steered_inside_by_base_href_is_refused_with_a_reason(cli, tmp_path: Path) -> None:
    """Only 127.0.0.1 allowed: a page whose <base href> points at 127.0.0.2 leads nowhere, and readdb says why."""
    with ThreadedSite("127.0.0.1") as public, ThreadedSite("127.0.0.2", port=0) as internal:
        internal.route("/admin", body=b"<html>internal</html>")
        public.route("/", body=f"<html><head><base href='{internal.url('/')}'></head>"
                               f"<body><a href='admin'>admin</a></body></html>".encode())
        seeds = write_lines(tmp_path / "seeds.txt", [public.url("/")])
        crawl = tmp_path / "crawl"
        result = cli("crawl", seeds, "-d", crawl, "-r", "2", "-D", "http.agent.name=gossamer-test",
                     "-D", "fetcher.server.delay=0", "-D", "http.filter.ipaddress.include=127.0.0.1")
        assert result.code == 0, result.err
        assert internal.hits == []
    entry = cli("readdb", crawl / "crawldb", "-url", internal.url("/admin"))
    assert "db_gone" in entry.out and "address refused: 127.0.0.2:" not in entry.out
    assert "address 127.0.0.2 is not in http.filter.ipaddress.include" in entry.out, entry.out


def test_a_bad_filter_entry_stops_the_command_at_start_with_one_line(cli, tmp_path: Path) -> None:
    seeds = write_lines(tmp_path / "seeds.txt", ["http://127.0.0.1:9/"])
    result = cli("crawl", seeds, "-d", tmp_path / "crawl", "-r", "1", "-D", "http.agent.name=gossamer-test",
                 "-D", "http.filter.ipaddress.exclude=10.0.0.0/40")
    assert result.code == 2, result.err
    assert "http.filter.ipaddress.exclude': '10.0.0.0/40' is not an IP address" in result.err
    assert len(result.err.strip().splitlines()) == 1, result.err
    assert "Traceback" not in result.err
