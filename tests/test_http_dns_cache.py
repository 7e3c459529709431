"""The per-process DNS cache of protocol-http: one query per name and TTL, the SSRF guard on every answer."""

from __future__ import annotations

import asyncio
import socket

import pytest
from aiohttp.abc import AbstractResolver, ResolveResult

from gossamer.core import AddressPolicy, CrawlDatum, ProtocolStatusCode
from gossamer.plugins.builtin.http_dns_cache import CachingResolver
from gossamer.plugins.builtin.http_guard import AddressRefused, GuardedResolver
from gossamer.plugins.builtin.protocol_http import HttpProtocol
from tests.fetch_server import Site, settings


class CountingDns(AbstractResolver):
    """Answers every name with ``answers``, counting the queries; ``fail`` makes it raise."""

    def __init__(self, answers: list[str]) -> None:
        self.answers, self.queries, self.fail, self.closed = answers, [], False, False
        self.gate: asyncio.Event | None = None

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        self.queries.append(host)
        if self.gate is not None:
            await self.gate.wait()
        if self.fail:
            raise OSError(f"no such host {host}")
        return [ResolveResult(hostname=host, host=a, port=port, family=socket.AF_INET, proto=0, flags=0)
                for a in self.answers]

    async def close(self) -> None:
        self.closed = True


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_is_reused_until_its_ttl_ends_then_asked_again() -> None:
    async def main() -> None:
        dns, clock = CountingDns(["127.0.0.1"]), Clock()
        cache = CachingResolver(dns, ttl=300, clock=clock)
        first = await cache.resolve("a.test", 80)
        clock.now += 299
        assert await cache.resolve("A.test", 80) == first  # names are case-insensitive
        assert dns.queries == ["a.test"]
        await cache.resolve("a.test", 443)  # another port, another entry (as aiohttp keys them)
        assert len(dns.queries) == 2
        clock.now += 2  # the port-80 answer is 301 s old
        dns.answers = ["127.0.0.9"]
        assert [a["host"] for a in await cache.resolve("a.test", 80)] == ["127.0.0.9"]
        assert len(dns.queries) == 3
        await cache.close()
        assert dns.closed
    asyncio.run(main())


def test_failures_are_not_cached_and_ttl_0_caches_nothing() -> None:
    async def main() -> None:
        dns = CountingDns(["127.0.0.1"])
        cache = CachingResolver(dns, ttl=300)
        dns.fail = True
        with pytest.raises(OSError):
            await cache.resolve("a.test", 80)
        dns.fail = False
        assert [a["host"] for a in await cache.resolve("a.test", 80)] == ["127.0.0.1"]
        assert len(dns.queries) == 2
        off = CachingResolver(dns, ttl=0)
        await off.resolve("b.test", 80)
        await off.resolve("b.test", 80)
        assert dns.queries.count("b.test") == 2
    asyncio.run(main())


def test_concurrent_lookups_of_a_name_share_one_query_and_a_cancelled_caller_does_not_end_it() -> None:
    async def main() -> None:
        dns = CountingDns(["127.0.0.1"])
        dns.gate = asyncio.Event()
        cache = CachingResolver(dns, ttl=300)
        first = asyncio.ensure_future(cache.resolve("a.test", 80))
        second = asyncio.ensure_future(cache.resolve("a.test", 80))
        await asyncio.sleep(0)
        first.cancel()
        dns.gate.set()
        assert [a["host"] for a in await second] == ["127.0.0.1"]
        assert dns.queries == ["a.test"]
        assert first.cancelled()
    asyncio.run(main())


def test_entries_are_bounded_oldest_first() -> None:
    async def main() -> None:
        dns = CountingDns(["127.0.0.1"])
        cache = CachingResolver(dns, ttl=300, max_entries=2)
        for name in ("a.test", "b.test", "c.test"):
            await cache.resolve(name, 80)
        await cache.resolve("c.test", 80)
        await cache.resolve("b.test", 80)
        assert dns.queries == ["a.test", "b.test", "c.test"]
        await cache.resolve("a.test", 80)  # evicted: asked again
        assert dns.queries[-1] == "a.test" and len(dns.queries) == 4
    asyncio.run(main())


def test_the_guard_checks_cached_answers_too() -> None:
    """A cached answer with a refused address: refused on every lookup, the allowed one kept every time."""
    async def main() -> None:
        policy = AddressPolicy.from_settings(settings(http_filter_ipaddress_include="127.0.0.1"))
        dns = CountingDns(["127.0.0.2"])
        guard = GuardedResolver(policy, inner=lambda: CachingResolver(dns, ttl=300))
        for _ in range(2):
            with pytest.raises(AddressRefused):
                await guard.resolve("inside.test", 80)
        dns.answers = ["127.0.0.2", "127.0.0.1"]
        for _ in range(2):
            assert [a["host"] for a in await guard.resolve("mixed.test", 80)] == ["127.0.0.1"]
        assert dns.queries == ["inside.test", "mixed.test"]
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_protocol_http_resolves_a_name_once_for_many_connections() -> None:
    """Three fetches of one name, each on a new connection (the server closes it): one DNS query."""
    async def main() -> None:
        async with Site("127.0.0.1") as site:
            site.route("/", body=b"ok", headers={"Connection": "close"})
            protocol = HttpProtocol(settings(http_filter_ipaddress_include="127.0.0.1"))
            try:
                for _ in range(3):
                    out = await protocol.fetch(f"http://localhost:{site.port}/", CrawlDatum())
                    assert out.status.code == ProtocolStatusCode.SUCCESS
                cache = protocol.guard.resolver._inner  # noqa: SLF001 - the resolver the guard asks
                assert isinstance(cache, CachingResolver) and cache.ttl == 300
                assert cache.lookups == 1 and len(site.hits) == 3
            finally:
                await protocol.close()
    asyncio.run(main())
