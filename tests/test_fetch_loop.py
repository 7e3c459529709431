"""fetch_all against real loopback servers: politeness, robots, statuses, redirects, limits."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from gossamer.core.datum import META_PROTOCOL_CODE, META_PROTOCOL_STATUS, META_REPR_URL, CrawlDatum
from gossamer.crawl.fetch.fetcher import FetchRobots, ListSink, RedirectTargets, fetch_all, time_limit_seconds
from tests.fetch_server import Site, items, settings


def run(coro):  # noqa: ANN001, ANN201
    return asyncio.run(coro)


async def fetch(site_urls, conf, **kwargs):  # noqa: ANN001, ANN201
    sink = ListSink()
    kwargs.setdefault("redirects", RedirectTargets.passthrough())
    summary = await fetch_all(items(*site_urls) if isinstance(site_urls, tuple) else site_urls, conf, sink,
                              **kwargs)
    return sink, summary


def gaps(hits) -> list[float]:  # noqa: ANN001
    return [b.start - a.end for a, b in zip(hits, hits[1:], strict=False)]


def test_one_host_is_fetched_politely_and_two_hosts_in_parallel() -> None:
    async def main() -> None:
        async with Site() as site:
            for i in range(4):
                site.route(f"/p{i}", body=b"x")
            urls = [site.url(f"/p{i}", h) for i in range(4) for h in ("127.0.0.1", "localhost")]
            sink, summary = await fetch(tuple(urls), settings(fetcher_server_delay=0.3))
            assert summary.by_status == {"fetch_success": 8}
            for host in ("127.0.0.1", "localhost"):
                hits = site.page_hits(host)
                assert len(hits) == 4
                assert min(gaps(hits)) >= 0.29, gaps(hits)
            # in parallel, not one after the other: some request of one host starts within the other's
            # delay (serial fetching would space every two requests by ≥ 0.3 s); no wall-clock total,
            # which start-up on a busy machine would decide
            pairs = zip(site.page_hits("127.0.0.1"), site.page_hits("localhost"), strict=True)
            assert min(abs(a.start - b.start) for a, b in pairs) < 0.29
    run(main())


def test_threads_per_queue_allows_parallel_requests_to_one_host() -> None:
    async def main() -> None:
        async with Site() as site:
            for i in range(6):
                site.route(f"/p{i}", body=b"x", delay=0.2)
            urls = tuple(site.url(f"/p{i}") for i in range(6))
            _, summary = await fetch(urls, settings(fetcher_threads_per_queue=2, fetcher_server_min_delay=0.0,
                                                    fetcher_server_delay=5.0))
            assert summary.by_status == {"fetch_success": 6}
            assert site.max_active == 2
            site.max_active = 0
            _, summary = await fetch(urls, settings(fetcher_server_delay=0.0))
            assert site.max_active == 1
    run(main())


def test_status_mapping() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/ok", body=b"<html>ok</html>", headers={"ETag": '"v1"'})
            site.route("/perm", 301, headers={"Location": "/ok"})
            site.route("/perm308", 308, headers={"Location": "/ok"})
            site.route("/temp", 302, headers={"Location": "http://other.test/x"})
            site.route("/temp307", 307, headers={"Location": "/ok"})
            site.route("/nm", 304)
            site.route("/gone", 410)
            site.route("/bad", 400)
            site.route("/auth", 401)
            site.route("/forbidden", 403)
            site.route("/err", 500)
            site.route("/nocontent", 204)
            names = ["/ok", "/perm", "/perm308", "/temp", "/temp307", "/nm", "/missing", "/gone", "/bad", "/auth",
                     "/forbidden", "/err", "/nocontent"]
            sink, summary = await fetch(tuple(site.url(n) for n in names),
                                        settings(fetcher_max_exceptions_per_queue=-1))
            got = {url.rsplit("/", 1)[1]: r for url, r in sink.by_url().items()}
            expected = {"ok": "fetch_success", "perm": "fetch_redir_perm", "perm308": "fetch_redir_perm",
                        "temp": "fetch_redir_temp", "temp307": "fetch_redir_temp", "nm": "fetch_notmodified",
                        "missing": "fetch_gone", "gone": "fetch_gone", "bad": "fetch_gone", "auth": "fetch_gone",
                        "forbidden": "fetch_retry", "err": "fetch_retry", "nocontent": "fetch_retry"}
            assert {k: r.datum.status_name for k, r in got.items()} == expected
            ok = got["ok"].datum
            assert ok.metadata[META_PROTOCOL_CODE] == "200"
            assert ok.metadata[META_PROTOCOL_STATUS].startswith("success(1)")
            assert ok.metadata["Content-Type"] == "text/html" and ok.metadata["ETag"] == '"v1"'
            assert got["ok"].content.content == b"<html>ok</html>"
            assert got["ok"].content.metadata["_fst_"] == str(0x21)
            assert got["missing"].datum.metadata[META_PROTOCOL_STATUS].startswith("notfound(14)")
            assert got["forbidden"].datum.metadata[META_PROTOCOL_STATUS].startswith("exception(16)")
            assert got["perm"].linked[0][0] == site.url("/ok")
            linked = got["temp"].linked[0]
            assert linked[0] == "http://other.test/x" and linked[1].status_name == "linked"
            assert linked[1].metadata[META_REPR_URL] == site.url("/temp")
            assert got["perm"].linked[0][1].metadata[META_REPR_URL] == site.url("/ok")
            assert summary.errors == 3 and summary.pages == len(names)
    run(main())


def test_timeouts_and_refused_connections_are_retries() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/slow", body=b"late", delay=2.0)
            closed = Site()
            async with closed:
                dead = closed.url("/x")
            sink, summary = await fetch((site.url("/slow"), dead), settings(http_timeout=300))
            results = sink.by_url()
            slow, refused = results[site.url("/slow")], results[dead]
            assert slow.datum.status_name == "fetch_retry" and "Timeout" in slow.datum.metadata["_pst_"]
            assert refused.datum.status_name == "fetch_retry" and refused.content is None
            assert summary.errors == 2
    run(main())


def test_exceptions_block_a_queue_and_back_off() -> None:
    async def main() -> None:
        async with Site() as site:
            for i in range(4):
                site.route(f"/e{i}", 500)
            sink, summary = await fetch(tuple(site.url(f"/e{i}") for i in range(4)),
                                        settings(fetcher_max_exceptions_per_queue=2,
                                                 fetcher_exceptions_per_queue_delay=0.2))
            assert summary.by_status == {"fetch_retry": 2}
            assert summary.dropped == {"queue blocked": 2}
            hits = site.page_hits()
            assert len(hits) == 2 and gaps(hits)[0] >= 0.19  # 0 s delay + 0.2 × 2^0 back-off
    run(main())


def test_429_retry_after_slows_the_host_and_a_long_one_blocks_it() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/busy", 429, headers={"Retry-After": "1"})
            site.route("/next", body=b"ok")
            _, summary = await fetch((site.url("/busy"), site.url("/next")), settings())
            assert summary.by_status == {"fetch_retry": 1, "fetch_success": 1}
            assert gaps(site.page_hits())[0] >= 0.95
            site.hits.clear()
            site.route("/busy", 503, headers={"Retry-After": "3600"})
            sink, summary = await fetch((site.url("/busy"), site.url("/next")), settings())
            assert summary.dropped == {"retry-after": 1} and len(site.page_hits()) == 1
            assert "Retry-After 3600" in sink.drops[0][2]
    run(main())


def test_robots_denial_crawl_delay_skip_and_crawl_delay() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/robots.txt", body=b"User-agent: *\nDisallow: /private/\nCrawl-delay: 0.4\n",
                       headers={"Content-Type": "text/plain"})
            for p in ("/a", "/b", "/private/x"):
                site.route(p, body=b"x")
            sink, summary = await fetch((site.url("/a"), site.url("/private/x"), site.url("/b")),
                                        settings(fetcher_min_crawl_delay=0.1))
            results = sink.by_url()
            denied = results[site.url("/private/x")].datum
            assert denied.status_name == "fetch_gone"
            assert denied.metadata["_pst_"].startswith("robots_denied(18)") and "Disallow: /private/" in \
                denied.metadata["_pst_"]
            hits = site.page_hits()
            assert [h.path for h in hits] == ["/a", "/b"] and gaps(hits)[0] >= 0.39
            # Crawl-delay above fetcher.max.crawl.delay: every URL of the host skipped
            site.route("/robots.txt", body=b"User-agent: *\nCrawl-delay: 60\n", headers={"Content-Type": "text/plain"})
            site.hits.clear()
            sink, summary = await fetch((site.url("/a"), site.url("/b")), settings())
            assert summary.by_status == {"fetch_gone": 2} and not site.page_hits()
            assert "exceeds fetcher.max.crawl.delay=30" in sink.results[0].datum.metadata["_pst_"]
    run(main())


def test_robots_5xx_defers_while_other_hosts_keep_the_run_busy_then_drops() -> None:
    async def main() -> None:
        async with Site() as site:
            async def robots(request: web.Request) -> web.Response:  # 503 for 127.0.0.1 only
                return web.Response(status=404 if request.host.startswith("localhost") else 503)
            site.routes["/robots.txt"] = robots
            site.route("/a", body=b"x")
            for i in range(6):
                site.route(f"/slow{i}", body=b"x", delay=0.1)
            busy = [site.url(f"/slow{i}", host="localhost") for i in range(6)]
            sink, summary = await fetch((site.url("/a"), site.url("/b"), *busy),
                                        settings(http_robots_503_defer_visits_delay=100,
                                                 http_robots_503_defer_visits_retries=2))
            assert summary.pages == 6 and summary.dropped == {"robots deferred": 2}
            robots = [h for h in site.hits if h.path == "/robots.txt" and h.host == "127.0.0.1"]
            assert len(robots) == 3 and not site.page_hits("127.0.0.1")
            assert min(gaps(robots)) >= 0.09
    run(main())


def test_robots_5xx_alone_does_not_idle_the_run() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/robots.txt", 503)
            started = time.monotonic()
            sink, summary = await fetch((site.url("/a"), site.url("/b")),
                                        settings(http_robots_503_defer_visits_delay=30_000))
            assert summary.pages == 0 and summary.dropped == {"robots deferred": 2}
            assert time.monotonic() - started < 10
            assert len([h for h in site.hits if h.path == "/robots.txt"]) == 1
    run(main())


def test_redirects_followed_inline_with_loop_detection_and_limit() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/r1", 301, headers={"Location": "/r2"})
            site.route("/r2", 302, headers={"Location": "/ok"})
            site.route("/ok", body=b"final")
            site.route("/l1", 301, headers={"Location": "/l2"})
            site.route("/l2", 301, headers={"Location": "/l1"})
            sink, summary = await fetch((site.url("/r1"), site.url("/l1")), settings(http_redirect_max=3))
            statuses = [(r.url.rsplit("/", 1)[1], r.datum.status_name) for r in sink.results]
            assert sorted(statuses) == [("l1", "fetch_redir_perm"), ("l2", "fetch_redir_perm"),
                                        ("ok", "fetch_success"), ("r1", "fetch_redir_perm"),
                                        ("r2", "fetch_redir_temp")]
            ok = sink.by_url()[site.url("/ok")]
            assert ok.datum.metadata[META_REPR_URL] == site.url("/r2") and not ok.linked
            assert summary.redirects_followed == 3 and summary.redirect_loops == 1
            assert summary.dropped == {"redirect loop": 1}
            # limit reached: the last target is recorded as linked for a later round
            sink, summary = await fetch((site.url("/r1"),), settings(http_redirect_max=1))
            r2 = sink.by_url()[site.url("/r2")]
            assert r2.datum.status_name == "fetch_redir_temp" and r2.linked[0][0] == site.url("/ok")
            sink, summary = await fetch((site.url("/r1"),), settings(http_redirect_max=1,
                                                                     http_redirect_max_exceeded_skip=True))
            assert not sink.by_url()[site.url("/r2")].linked
    run(main())


def test_redirect_targets_go_through_the_fetcher_url_chain() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/r", 301, headers={"Location": "/a/../target#frag"})
            site.route("/q", 301, headers={"Location": "/target?b=1"})  # default regex-urlfilter rejects '?'
            sink, _ = await fetch((site.url("/r"), site.url("/q")), settings(), redirects=None)
            results = sink.by_url()
            assert results[site.url("/r")].linked[0][0] == site.url("/target")
            assert results[site.url("/q")].datum.status_name == "fetch_redir_perm"
            assert not results[site.url("/q")].linked
    run(main())


def test_conditional_get_gives_notmodified() -> None:
    async def main() -> None:
        async with Site() as site:
            async def conditional(request: web.Request) -> web.Response:
                if request.headers.get("If-None-Match") == '"abc"' or request.headers.get("If-Modified-Since"):
                    return web.Response(status=304)
                return web.Response(body=b"fresh")
            site.routes["/c"] = conditional
            datum = CrawlDatum(fetch_time=0, modified_time=1_700_000_000_000, metadata={"ETag": '"abc"'})
            sink, _ = await fetch([(site.url("/c"), datum)], settings())
            assert sink.results[0].datum.status_name == "fetch_notmodified"
            headers = site.page_hits()[0].headers
            assert headers["If-Modified-Since"] == "Tue, 14 Nov 2023 22:13:20 GMT"
            assert headers["If-None-Match"] == '"abc"'
            assert headers["User-Agent"].startswith("gossamer-test/")
            sink, _ = await fetch([(site.url("/c"), CrawlDatum())],
                                  settings(http_enable_if_modified_since_header=False))
            assert sink.results[0].datum.status_name == "fetch_success"
    run(main())


def test_timelimit_empties_the_queues() -> None:
    async def main() -> None:
        async with Site() as site:
            for i in range(20):
                site.route(f"/p{i}", body=b"x")
            sink, summary = await fetch(tuple(site.url(f"/p{i}") for i in range(20)),
                                        settings(fetcher_server_delay=0.2), time_limit=0.5)
            # 0.2 s between requests: a fifth page needs 0.8 s, so at most 4 came before the limit and
            # every other URL was dropped, not waited for (a count, not a clock: a slow machine fetches fewer)
            assert 1 <= summary.pages <= 4 and summary.dropped["timelimit"] == 20 - summary.pages
            assert summary.stopped == "fetcher.timelimit reached"
    assert time_limit_seconds(settings()) is None
    assert time_limit_seconds(settings(fetcher_timelimit_mins=2)) == 120.0
    run(main())


def test_throughput_threshold_stops_a_slow_fetch() -> None:
    async def main() -> None:
        async with Site() as site:
            for i in range(30):
                site.route(f"/p{i}", body=b"x")
            seen = []
            _, summary = await fetch(tuple(site.url(f"/p{i}") for i in range(30)),
                                     settings(fetcher_server_delay=0.1, fetcher_throughput_threshold_pages=1000,
                                              fetcher_throughput_threshold_check_after=0,
                                              fetcher_throughput_threshold_retries=2),
                                     monitor_interval=0.2, progress=lambda s, q: seen.append((s.pages, q)))
            assert summary.stopped.startswith("throughput") and summary.dropped["throughput"] > 15
            assert seen and seen[0][1] == 1
    run(main())


def test_byip_queue_drops_unresolvable_hosts(monkeypatch) -> None:  # noqa: ANN001
    async def main() -> None:
        async with Site() as site:
            site.route("/a", body=b"x")
            loop = asyncio.get_running_loop()
            real = loop.getaddrinfo

            async def fake(host, *args, **kwargs):  # noqa: ANN001, ANN202
                if host == "nowhere.invalid":
                    raise OSError("unknown host")
                return await real(host, *args, **kwargs)
            monkeypatch.setattr(loop, "getaddrinfo", fake)
            sink, summary = await fetch((site.url("/a"), "http://nowhere.invalid/x"),
                                        settings(fetcher_queue_mode="byIP"), robots=FetchRobots(settings()))
            assert summary.by_status == {"fetch_success": 1} and summary.dropped == {"unresolvable": 1}
            assert "nowhere.invalid" in sink.drops[0][2]
    run(main())


def test_streaming_input_is_bounded_by_the_feed_buffer() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/p", body=b"x")
            pulled = []

            async def source():  # noqa: ANN202
                for i in range(40):
                    pulled.append(i)
                    yield site.url(f"/p?i={i}"), CrawlDatum()
            sink = ListSink()
            ahead = []
            real_result = sink.result

            def result(r) -> None:  # noqa: ANN001
                ahead.append(len(pulled) - len(sink.results))
                real_result(r)
            sink.result = result  # type: ignore[method-assign]
            await fetch_all(source(), settings(fetcher_threads_fetch=1, fetcher_queue_depth_multiplier=3,
                                     fetcher_queue_readahead=1),
                            sink, redirects=RedirectTargets.passthrough())
            assert len(sink.results) == 40 and max(ahead) <= 5
    run(main())


def test_a_failing_input_iterator_raises_without_leaving_tasks() -> None:
    def broken():  # noqa: ANN202
        yield "http://127.0.0.1:9/x", CrawlDatum()
        raise RuntimeError("bad fetch list")

    async def main() -> None:
        try:
            await fetch_all(broken(), settings(http_timeout=300), ListSink(), redirects=RedirectTargets.passthrough())
        except RuntimeError as exc:
            assert "bad fetch list" in str(exc)
        else:
            raise AssertionError("expected the input error")
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        assert not pending
    run(main())


def test_the_robots_txt_request_counts_for_the_host_delay() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
            site.route("/a", body=b"x")
            await fetch((site.url("/a"),), settings(fetcher_server_delay=0.3))
            robots, page = site.hits
            assert robots.path == "/robots.txt" and page.path == "/a"
            assert page.start - robots.end >= 0.29
    run(main())


def test_a_host_shared_by_two_loops_gets_its_crawl_delay_times_two() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/robots.txt", body=b"User-agent: *\nCrawl-delay: 0.2\n", headers={"Content-Type": "text/plain"})
            for p in ("/a", "/b", "/c"):
                site.route(p, body=b"x")
            await fetch(tuple(site.url(p) for p in ("/a", "/b", "/c")),
                        settings(fetcher_min_crawl_delay=0.1, fetcher_threads_per_queue=1), sharers=2)
            assert min(gaps(site.page_hits())) >= 0.39  # this loop's half of the host's rate
    run(main())


def test_last_value_and_the_status_text_match_their_plain_forms() -> None:
    """The emit path's shortcuts: a header's last value without a dict, status texts and names made once."""
    from gossamer.core import ProtocolStatus, ProtocolStatusCode
    from gossamer.crawl.fetch.loop_helpers import CODE_NAMES, last_value

    for fields in ([], [("ETag", "a")], [("etag", "a"), ("X", "b"), ("ETAG", "c")], [("E-Tag", "x"), ("etags", "y")]):
        assert last_value(fields, "etag") == dict((k.lower(), v) for k, v in fields).get("etag")
    for code in ProtocolStatusCode:
        assert CODE_NAMES[code] == code.name.lower()
        for args, modified in (((), 0), (("http://x/", "y"), 1795815001444)):
            text = f"{code.name.lower()}({int(code)}), lastModified={modified}"
            text += ": " + ", ".join(args) if args else ""
            assert ProtocolStatus(code, args, modified).to_text() == text
