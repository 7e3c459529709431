"""Protocols are plugins: the fetcher picks one by URL scheme, for pages and robots.txt, over one session."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import aiohttp
import pytest

from gossamer.core.datum import CrawlDatum
from gossamer.core.records import Content, ProtocolStatus, ProtocolStatusCode
from gossamer.core.settings import Settings
from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.plugins import (
    PluginInfo,
    PluginRepository,
    Protocol,
    ProtocolOutput,
    ProtocolSelector,
    RobotsRequest,
    RobotsResponse,
)
from gossamer.plugins.builtin.http_pool import Pool
from gossamer.plugins.registry import discover
from tests.fetch_server import Site, items, settings


class MemoProtocol(Protocol):
    """A third-party-style protocol for the made-up scheme ``memo:``: pages and robots.txt from a dict."""

    schemes = ("memo",)

    def __init__(self, _: Settings) -> None:
        self.pages = {"memo://notes/a": b"<html><body>note a</body></html>",
                      "memo://notes/secret": b"<html><body>hidden</body></html>"}
        self.robots_requests: list[str] = []

    async def fetch(self, url: str, datum: CrawlDatum) -> ProtocolOutput:
        body = self.pages.get(url)
        if body is None:
            return ProtocolOutput(ProtocolStatus(ProtocolStatusCode.NOTFOUND, (url,)))
        return ProtocolOutput(ProtocolStatus(ProtocolStatusCode.SUCCESS), Content(url, url, body, "text/html"))

    async def fetch_robots(self, robots_url: str, request: RobotsRequest) -> RobotsResponse:
        self.robots_requests.append(robots_url)
        return RobotsResponse(200, b"User-agent: *\nDisallow: /secret\n", "text/plain")


MEMO = PluginInfo(id="protocol-memo", point="Protocol", factory=MemoProtocol, description="test protocol")


def repository(conf: Settings) -> PluginRepository:
    """The discovered plugins plus ``protocol-memo``, which ``plugin.includes`` activates."""
    found, _ = discover()
    includes = conf.get_str("plugin.includes") + "|protocol-memo"
    return PluginRepository(conf.with_values([("plugin.includes", includes)], "test"), [*found, (MEMO, "test")])


async def _fetch(urls: tuple[str, ...], protocol: ProtocolSelector) -> tuple[ListSink, object]:
    sink = ListSink()
    summary = await fetch_all(items(*urls), settings(), sink, protocol=protocol,
                              redirects=RedirectTargets.passthrough())
    return sink, summary


@pytest.mark.usefixtures("http_client")
def test_the_fetcher_picks_the_protocol_by_scheme_and_robots_go_through_it() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/page", body=b"<html>hi</html>")
            selector = ProtocolSelector(repository(settings()))
            memo = selector.protocol_for("memo://notes/a")
            assert isinstance(memo, MemoProtocol) and selector.protocol_for(site.url("/page")) is not memo
            sink, summary = await _fetch(("memo://notes/a", "memo://notes/secret", site.url("/page")), selector)
            await selector.close()
        results = sink.by_url()
        assert results["memo://notes/a"].content.content.startswith(b"<html>")
        assert summary.by_status["fetch_success"] == 2 and summary.by_protocol["success"] == 2
        assert summary.by_protocol["robots_denied"] == 1  # robots.txt of memo://notes said no
        assert results["memo://notes/secret"].content is None
        assert memo.robots_requests == ["memo://notes/robots.txt"]
    asyncio.run(main())


def test_a_scheme_no_plugin_serves_is_counted_not_a_crash() -> None:
    async def main() -> None:
        selector = ProtocolSelector(PluginRepository(settings()))
        sink, summary = await _fetch(("gopher://old.example/", "memo://notes/a"), selector)
        await selector.close()
        assert summary.by_protocol == {"proto_not_found": 2}
        assert sink.by_url()["gopher://old.example/"].datum.status is not None
    asyncio.run(main())


def test_without_protocol_http_nothing_is_fetched_over_http() -> None:
    conf = settings(plugin_excludes="protocol-http")
    selector = ProtocolSelector(PluginRepository(conf))
    assert selector.protocol_for("http://example.com/") is None and selector.schemes == ()


def test_pages_and_robots_share_one_connection_pool(monkeypatch: pytest.MonkeyPatch, http_client: str) -> None:
    """One pool (lean) or one aiohttp session per fetch loop, for pages and robots.txt alike."""
    sessions: list[aiohttp.ClientSession] = []
    pools: list[Pool] = []
    for cls, made in ((aiohttp.ClientSession, sessions), (Pool, pools)):
        monkeypatch.setattr(cls, "__init__", _counting(cls.__init__, made))

    async def main() -> None:
        async with Site() as site:
            site.route("/robots.txt", body=b"User-agent: *\nDisallow: /private\n",
                       headers={"Content-Type": "text/plain"})
            for path in ("/a", "/b", "/private"):
                site.route(path, body=b"<html>x</html>")
            sink = ListSink()
            summary = await fetch_all(items(*(site.url(p) for p in ("/a", "/b", "/private"))), settings(), sink,
                                      redirects=RedirectTargets.passthrough())
            assert summary.by_status == {"fetch_success": 2, "fetch_gone": 1}  # /private: robots_denied
            assert [h.path for h in site.hits].count("/robots.txt") == 1
            assert "/private" not in [h.path for h in site.hits]
    asyncio.run(main())
    assert len(pools) == 1, f"{len(pools)} connection pools for one fetch loop"
    if http_client == "aiohttp":
        assert len(sessions) == 1, f"{len(sessions)} aiohttp sessions for one fetch loop"
    else:
        assert sessions == [] and pools[0].connects == 1  # robots.txt and both pages on one kept-alive connection


def _counting(init: Callable[..., None], made: list) -> Callable[..., None]:
    def counting_init(self: object, *args: object, **kwargs: object) -> None:
        made.append(self)
        init(self, *args, **kwargs)
    return counting_init
