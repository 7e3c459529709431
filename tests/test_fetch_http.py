"""protocol-http (limits, bombs, headers, mapping), WARC round trips through warcio, and the queues."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from datetime import UTC, datetime
from pathlib import Path

import brotli
import pytest
from warcio.archiveiterator import ArchiveIterator

from gossamer.core.datum import CrawlDatum
from gossamer.core.http import agent_string, http_date, retry_after_seconds
from gossamer.core.metadata import TRUNCATED, TRUNCATED_REASON
from gossamer.core.records import ProtocolStatusCode
from gossamer.crawl.fetch.fetcher import ListSink, RedirectTargets, fetch_all
from gossamer.crawl.fetch.queues import FetchItem, FetchQueues
from gossamer.crawl.fetch.warc import WarcFileWriter
from gossamer.plugins.builtin.protocol_http import HttpProtocol, status_for_http
from gossamer.plugins.builtin.protocol_http_plugin import PLUGIN
from gossamer.plugins.registry import PluginRepository
from tests.fetch_server import Site, settings

BOMB = 50 * 1024 * 1024


async def get(url: str, conf=None, **kwargs):  # noqa: ANN001, ANN201
    protocol = HttpProtocol(conf or settings(), **kwargs)
    try:
        return await protocol.fetch(url, CrawlDatum())
    finally:
        await protocol.close()


def test_agent_string_and_required_name() -> None:
    assert agent_string(settings(http_agent_version="")) == "gossamer-test"
    assert agent_string(settings(http_agent_description="test crawler", http_agent_email="a@b.c")) == \
        "gossamer-test/Gossamer-0.1 (test crawler; a@b.c)"
    with pytest.raises(ValueError, match="http.agent.name"):
        HttpProtocol(settings(http_agent_name=""))
    info = PluginRepository(settings(), plugins=[(PLUGIN, "gossamer")])
    assert "org.apache.nutch.protocol.http.Http" in PLUGIN.names()
    assert isinstance(info._instance(PLUGIN), HttpProtocol)


def test_status_for_http_is_nutchs_table() -> None:
    code = {c: status_for_http(c, "http://h/p", "/t").code for c in
            (200, 201, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 403, 404, 410, 429, 500, 503)}
    s = ProtocolStatusCode
    assert code == {200: s.SUCCESS, 201: s.EXCEPTION, 300: s.MOVED, 301: s.MOVED, 302: s.TEMP_MOVED,
                    303: s.TEMP_MOVED, 304: s.NOTMODIFIED, 305: s.MOVED, 307: s.TEMP_MOVED, 308: s.MOVED,
                    400: s.GONE, 401: s.ACCESS_DENIED, 403: s.EXCEPTION, 404: s.NOTFOUND, 410: s.GONE,
                    429: s.EXCEPTION, 500: s.EXCEPTION, 503: s.EXCEPTION}
    assert status_for_http(301, "http://h/a/b", "c").args == ("http://h/a/c",)
    assert retry_after_seconds("120") == 120 and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470) == 10


@pytest.mark.usefixtures("http_client")
def test_content_limit_truncates_and_bombs_are_capped() -> None:
    async def main() -> None:
        async with Site() as site:
            site.route("/big", body=b"a" * 5000, headers={"Content-Type": "text/plain"})
            site.route("/gz", body=gzip.compress(b"\0" * BOMB), headers={"Content-Encoding": "gzip"})
            site.route("/br", body=brotli.compress(b"\0" * BOMB, quality=1), headers={"Content-Encoding": "br"})
            site.route("/deflate", body=zlib.compress(b"\0" * BOMB), headers={"Content-Encoding": "deflate"})
            small = gzip.compress(b"hello world")
            site.route("/small", body=small, headers={"Content-Encoding": "gzip"})
            out = await get(site.url("/big"), settings(http_content_limit=1000))
            assert out.status.code == ProtocolStatusCode.SUCCESS and len(out.content.content) == 1000
            assert out.content.metadata == {TRUNCATED: "true", TRUNCATED_REASON: "length"}
            assert out.exchange.truncated == "length"
            for path in ("/gz", "/br", "/deflate"):
                out = await get(site.url(path))  # http.content.limit (10 MiB) caps the decoded size
                assert len(out.content.content) == 10 * 1048576 and out.content.metadata[TRUNCATED] == "true", path
                assert len(out.exchange.raw_body) < 200_000
                out = await get(site.url(path), settings(http_content_limit=-1), decompressed_limit=10_000)
                assert len(out.content.content) == 10_000, path
            out = await get(site.url("/small"))
            assert out.content.content == b"hello world" and not out.content.metadata
            assert out.exchange.raw_body == small
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_network_errors_never_raise() -> None:
    async def main() -> None:
        out = await get("http://127.0.0.1:9/x", settings(http_timeout=500))
        assert out.status.code == ProtocolStatusCode.EXCEPTION and out.content is None
        out = await get("ftp://example.com/x")
        assert out.status.code == ProtocolStatusCode.PROTO_NOT_FOUND
    asyncio.run(main())


@pytest.mark.usefixtures("http_client")
def test_warc_round_trip_through_warcio(tmp_path: Path) -> None:
    async def main() -> tuple[ListSink, list[Path]]:
        async with Site() as site:
            site.route("/a", body=b"<html>page a</html>", headers={"X-Custom": "1"})
            site.route("/z", body=gzip.compress(b"zipped " * 100),
                       headers={"Content-Encoding": "gzip", "Content-Type": "text/plain"})
            site.route("/r", 301, headers={"Location": "/a"})
            for i in range(6):
                site.route(f"/p{i}", body=bytes([65 + i]) * 3000)
            urls = [site.url(p) for p in ("/a", "/z", "/r", *(f"/p{i}" for i in range(6)))]
            sink = ListSink()
            with WarcFileWriter(tmp_path, max_bytes=2000) as writer:
                class Both(ListSink):
                    def result(self, result) -> None:  # noqa: ANN001
                        sink.result(result)
                        if result.exchange is not None:
                            writer.write_exchange(result.exchange)
                await fetch_all([(u, CrawlDatum()) for u in urls], settings(), Both(),
                                redirects=RedirectTargets.passthrough())
            return sink, writer.files

    sink, files = asyncio.run(main())
    assert len(files) > 1  # rotated
    seen = {}
    for path in files:
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream):
                kind = record.rec_headers.get_header("WARC-Type")
                if kind in ("response", "request"):
                    seen[(kind, record.rec_headers.get_header("WARC-Target-URI"))] = (
                        record, record.content_stream().read())
    assert len(seen) == 2 * len(sink.results)
    for result in sink.results:
        record, payload = seen[("response", result.url)]
        assert payload == result.content.content
        assert record.http_headers.headers == result.exchange.response_headers
        assert record.http_headers.get_statuscode() == str(result.exchange.status)
        assert record.rec_headers.get_header("WARC-IP-Address") == "127.0.0.1"
        assert record.rec_headers.get_header("WARC-Payload-Digest").startswith("sha1:")
        request, _ = seen[("request", result.url)]
        assert request.http_headers.get_header("User-Agent").startswith("gossamer-test/")
        assert request.rec_headers.get_header("WARC-Concurrent-To") == record.rec_headers.get_header(
            "WARC-Record-ID")


def test_queue_heap_picks_ready_queues_in_time_order() -> None:
    queues = FetchQueues(settings(fetcher_server_delay=1.0))
    for queue_id in ("a", "b"):
        for i in range(2):
            queues.add(FetchItem(f"http://{queue_id}/{i}", CrawlDatum(), queue_id))
    first = queues.acquire(0.0)
    second = queues.acquire(0.0)
    assert {first.queue_id, second.queue_id} == {"a", "b"} and queues.acquire(0.0) is None
    queues.finish(first, 0.5)
    queues.finish(second, 0.2)
    assert queues.next_ready() == 1.2
    assert queues.acquire(1.1) is None and queues.acquire(1.2).queue_id == second.queue_id
    assert queues.acquire(1.5).queue_id == first.queue_id
    assert queues.queued == 0 and queues.in_progress == 2
    queues.record_exception(first.queue_id)
    assert queues.queues[first.queue_id].exceptions == 1


def test_queued_items_share_their_queue_id_string() -> None:
    """Tens of thousands of queued items hold one queue id string per queue, not one each."""
    queues = FetchQueues(settings(fetcher_server_delay=1.0))
    items = [FetchItem(f"http://h.test/{i}", CrawlDatum(), "".join(["h.", "test"])) for i in range(3)]
    assert len({id(item.queue_id) for item in items}) == 3
    for item in items:
        assert queues.add(item) is None
    assert {id(item.queue_id) for item in items} == {id(queues.queues["h.test"].id)}


@pytest.mark.usefixtures("http_client")
def test_warc_request_records_carry_the_version_sent_and_the_peer_address(tmp_path: Path) -> None:
    """A server answering HTTP/1.0 (Python's http.server): the request record still says HTTP/1.1, as sent."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Old(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            body = b"<html>old server</html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Old)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/old"
    try:
        sink = ListSink()
        with WarcFileWriter(tmp_path) as writer:
            class Both(ListSink):
                def result(self, result) -> None:  # noqa: ANN001
                    sink.result(result)
                    if result.exchange is not None:
                        writer.write_exchange(result.exchange)
            asyncio.run(fetch_all([(url, CrawlDatum())], settings(), Both()))
            files = writer.files
    finally:
        server.shutdown()
    records = {}
    with open(files[0], "rb") as stream:
        for record in ArchiveIterator(stream):
            records[record.rec_headers.get_header("WARC-Type")] = record
    assert records["request"].http_headers.protocol == "GET"
    assert records["request"].http_headers.statusline == "/old HTTP/1.1"
    assert records["response"].http_headers.protocol == "HTTP/1.0"
    assert records["response"].rec_headers.get_header("WARC-IP-Address") == "127.0.0.1"
    assert records["request"].rec_headers.get_header("WARC-IP-Address") == "127.0.0.1"


def test_http_date_parses_header_dates_and_gives_none_for_bad_ones() -> None:
    assert http_date("Wed, 21 Oct 2015 07:28:00 GMT") == datetime(2015, 10, 21, 7, 28, tzinfo=UTC)
    for bad in ("", "yesterday", "Wed, 99 Foo 2015 07:28:00 GMT", "Wed, 21 Oct"):
        assert http_date(bad) is None
