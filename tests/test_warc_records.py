"""``crawl.fetch.warc``'s records as composed bytes: digests, ids, heads FastWARC and warcio read, WARC-Date text."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import uuid
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from fastwarc.warc import ArchiveIterator as FastIterator
from fastwarc.warc import WarcRecordType
from hypothesis import given
from hypothesis import strategies as st
from warcio.archiveiterator import ArchiveIterator

from gossamer.core import HttpExchange
from gossamer.crawl.fetch.warc import WarcFileWriter, record_id, sha1_text, warc_date, warc_record


@given(st.binary(min_size=20, max_size=20))
def test_sha1_text_is_base32_of_the_digest(digest: bytes) -> None:
    assert sha1_text(digest) == "sha1:" + base64.b32encode(digest).decode("ascii")


def test_record_ids_are_distinct_version_4_uuids() -> None:
    ids = {record_id() for _ in range(5000)}
    assert len(ids) == 5000
    for text in list(ids)[:500]:
        assert text.startswith("<urn:uuid:") and text.endswith(">")
        value = uuid.UUID(text[10:-1])
        assert (value.version, value.variant, str(value)) == (4, uuid.RFC_4122, text[10:-1])


def _exchange(url: str, body: bytes, **extra: object) -> HttpExchange:
    return HttpExchange(url=url, method="GET", request_target="/p", http_version="1.1",
                        request_headers=[("Host", "h.test"), ("User-Agent", "gossamer-test")],
                        status=200, reason="OK",
                        response_headers=[("Content-Type", "text/html"), ("Transfer-Encoding", "chunked")],
                        raw_body=body, date=datetime(2026, 11, 27, 21, 0, 0, tzinfo=UTC), **extra)


def test_records_verify_in_fastwarc_and_read_in_warcio(tmp_path: Path) -> None:
    bodies = [b"", b"<html>\xe9t\xc3\xa9 caf\xc3\xa9</html>", bytes(range(256)) * 300]
    with WarcFileWriter(tmp_path, info={"isPartOf": "seg-\u00e9"}) as writer:
        locators = [writer.write_exchange(_exchange(f"http://h.test/p{i}", body, ip="127.0.0.1",
                                                    truncated="length" if i == 2 else ""))
                    for i, body in enumerate(bodies)]
    [path] = writer.files
    kinds = []
    with open(path, "rb") as stream:
        for record in FastIterator(stream, parse_http=False):
            kinds.append(record.record_type)
            assert record.verify_block_digest(), record.headers["WARC-Type"]
    with open(path, "rb") as stream:
        for record in FastIterator(stream, record_types=WarcRecordType.response):
            assert record.verify_payload_digest()
    assert kinds == [WarcRecordType.warcinfo] + [WarcRecordType.response, WarcRecordType.request] * 3
    with open(path, "rb") as stream:
        records = [(r.rec_headers, r.http_headers, r.content_stream().read()) for r in ArchiveIterator(stream)]
    assert b"isPartOf: seg-\xc3\xa9" in records[0][2]
    for i, body in enumerate(bodies):
        (head, http, payload), (request_head, request_http, _) = records[1 + 2 * i], records[2 + 2 * i]
        assert payload == body and http.get_statuscode() == "200"
        assert http.get_header("X-Crawler-Transfer-Encoding") == "chunked"
        assert head.get_header("WARC-Payload-Digest") == sha1_text(hashlib.sha1(body).digest())
        assert head.get_header("WARC-Truncated") == ("length" if i == 2 else None)
        assert head.get_header("WARC-Date") == "2026-11-27T21:00:00Z"
        assert request_head.get_header("WARC-Concurrent-To") == head.get_header("WARC-Record-ID")
        assert request_http.protocol == "GET" and request_http.get_header("Host") == "h.test"
        name, offset = locators[i].rsplit(":", 1)
        with open(tmp_path / name, "rb") as stream:
            stream.seek(int(offset))
            [first] = [next(iter(ArchiveIterator(stream)))]
            assert first.rec_headers.get_header("WARC-Target-URI") == f"http://h.test/p{i}"


def test_line_breaks_in_field_values_are_percent_encoded() -> None:
    record = warc_record("response", "2026-11-27T21:00:00Z", record_id(),
                         [("WARC-Target-URI", "http://h.test/a\r\nWARC-Type: evil\nb")], b"HTTP/1.1 200 OK\r\n\r\n",
                         b"x", "application/http;\r\n msgtype=response")
    head = record.split(b"\r\n\r\n", 1)[0].decode()
    assert "WARC-Target-URI: http://h.test/a%0D%0AWARC-Type: evil%0Ab" in head.split("\r\n")
    assert [line for line in head.split("\r\n") if line.startswith("WARC-Type")] == ["WARC-Type: response"]
    [parsed] = [(r.rec_headers.get_header("WARC-Type"), r.content_stream().read())
                for r in ArchiveIterator(io.BytesIO(gzip.compress(record)))]
    assert parsed == ("response", b"x")


def _plain(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_same_text_as_formatting_every_time() -> None:
    start = datetime(2026, 11, 27, 18, 59, 58, 999_000, tzinfo=UTC)
    moments = [start + timedelta(microseconds=k * 250_000) for k in range(12)]
    moments += [start, start - timedelta(days=400), start + timedelta(seconds=1)]
    for moment in moments:
        assert warc_date(moment) == _plain(moment)


def test_other_zones_and_naive_times_are_converted() -> None:
    aware = datetime(2026, 11, 27, 20, 0, 1, 5, tzinfo=timezone(timedelta(hours=2)))
    assert warc_date(datetime(2026, 11, 27, 18, 0, 1, tzinfo=UTC)) == "2026-11-27T18:00:01Z"
    assert warc_date(aware) == "2026-11-27T18:00:01Z"
    naive = datetime(2026, 11, 27, 18, 0, 1)
    assert warc_date(naive) == _plain(naive)
