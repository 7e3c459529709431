"""Nutch ``Content`` ↔ WARC ``response`` records (a segment's ``content/*.warc.gz``).

Writing (import): Nutch keeps the *decoded* body, the response headers and crawl-side
facts in one ``Metadata``, but not the HTTP status line nor the request.  So each record is
synthesized:

* status line ``HTTP/1.1 <code> <reason>``: the code from ``nutch.protocol.code`` when the
  content metadata has it, else from the fetch status ``_fst_`` (fetch_success 200,
  notmodified 304, redir_perm 301, redir_temp 302, gone 404, retry 503), else 200;
* headers: Nutch's metadata values in order, except ``Content-Encoding``,
  ``Transfer-Encoding`` and ``Content-Length``, which no longer describe the stored (decoded)
  body: they are renamed ``X-Crawler-Content-Encoding`` … (as Common Crawl does), and a
  ``Content-Length`` of the stored body is added;
* ``WARC-Date`` from ``_ftk_`` (fetch time, ms) or the segment's time; no ``request`` record;
* the whole Nutch record (url, base, content type, metadata) in a ``WARC-Nutch-Content``
  header (JSON), so export gives back the very same ``Content``.

Reading (export): a record with ``WARC-Nutch-Content`` becomes that Content again (body from
the block); any other response (fetched by Gossamer) becomes a Content with its response
headers as metadata, the body decoded (gzip, deflate, br), ``_fst_`` from the HTTP status and
``nutch.segment.name``.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import brotli
from fastwarc.stream_io import GzipWriter
from fastwarc.warc import ArchiveIterator, WarcRecord, WarcRecordType

from gossamer.core import CrawlStatus
from gossamer.store.hadoop import NutchContent

NUTCH_HEADER = "WARC-Nutch-Content"
RENAMED = {"content-encoding": "X-Crawler-Content-Encoding", "transfer-encoding": "X-Crawler-Transfer-Encoding",
           "content-length": "X-Crawler-Content-Length"}
FETCH_STATUS_HTTP = {0x21: 200, 0x26: 304, 0x24: 301, 0x23: 302, 0x25: 404, 0x22: 503}
REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 304: "Not Modified", 404: "Not Found",
           503: "Service Unavailable"}
CRAWL_KEYS = frozenset({"nutch.segment.name", "nutch.crawl.score", "_fst_", "_ftk_", "nutch.content.digest",
                        "nutch.protocol.code", "_warc_"})


def http_status(metadata: dict[str, list[str]]) -> int:
    """The HTTP status to write for a Nutch Content (see the module docstring)."""
    for key, table in (("nutch.protocol.code", None), ("_fst_", FETCH_STATUS_HTTP)):
        values = metadata.get(key)
        if values and values[0].strip().isdigit():
            number = int(values[0])
            if table is None and 100 <= number <= 599:
                return number
            if table is not None and number in table:
                return table[number]
    return 200


def fetch_status_of(http: int) -> int:
    """Nutch's fetch status byte for an HTTP status (the ``_fst_`` of exported content)."""
    if 200 <= http < 300:
        return int(CrawlStatus.FETCH_SUCCESS)
    return {304: 0x26, 301: 0x24, 308: 0x24, 302: 0x23, 303: 0x23, 307: 0x23, 404: 0x25, 410: 0x25}.get(http, 0x22)


def _warc_date(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ContentWarcWriter:
    """Writes Nutch Contents as WARC response records into one ``.warc.gz`` file (one gzip member each)."""

    def __init__(self, path: Path, segment_time_ms: int, info: str) -> None:
        self.path = path
        self.segment_time_ms = segment_time_ms
        self.records = 0
        path.parent.mkdir(parents=True, exist_ok=True)
        self._raw: BinaryIO = open(path, "xb")  # noqa: SIM115 - closed in close()
        self._gzip = GzipWriter(self._raw, compression_level=3)
        record = WarcRecord()
        record.init_headers(WarcRecordType.warcinfo)
        record.headers["WARC-Date"] = _warc_date(segment_time_ms)
        record.headers["WARC-Filename"] = path.name
        record.headers["Content-Type"] = "application/warc-fields"
        record.set_bytes_content(f"software: Gossamer import-nutch\r\nisPartOf: {info}\r\n".encode())
        self._write(record, None)

    def _write(self, record: WarcRecord, digest: bytes | None) -> None:
        record.write(self._gzip, checksum_data=True, payload_digest=digest)
        self._gzip.finish()

    def write(self, content: NutchContent) -> str:
        """Append one response record; its locator ``<file>:<offset>``."""
        locator = f"{self.path.name}:{self._raw.tell()}"
        status = http_status(content.metadata)
        lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
        for name, values in content.metadata.items():
            if name in CRAWL_KEYS:
                continue
            shown = RENAMED.get(name.lower(), name)
            lines.extend(f"{shown}: {_one_line(value)}" for value in values)
        lines.append(f"Content-Length: {len(content.content)}")
        block = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8", errors="replace") + content.content
        fetched = content.metadata.get("_ftk_", [""])[0]
        millis = int(fetched) if fetched.isdigit() else self.segment_time_ms
        record = WarcRecord()
        record.init_headers(WarcRecordType.response)
        record.headers["WARC-Date"] = _warc_date(millis)
        record.headers["WARC-Target-URI"] = content.url
        record.headers["Content-Type"] = "application/http; msgtype=response"
        record.headers[NUTCH_HEADER] = json.dumps(
            {"url": content.url, "base": content.base, "type": content.content_type, "meta": content.metadata},
            ensure_ascii=True, separators=(",", ":"))
        record.set_bytes_content(block)
        self._write(record, hashlib.sha1(content.content).digest())
        self.records += 1
        return locator

    def close(self) -> None:
        """Finish the file."""
        self._gzip.close()
        self._raw.close()


def _one_line(value: str) -> str:
    return value.replace("\r", " ").replace("\n", " ")


def _decoded(body: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    try:
        if encoding in ("gzip", "x-gzip"):
            return zlib.decompress(body, 16 + zlib.MAX_WBITS)
        if encoding == "deflate":
            try:
                return zlib.decompress(body)
            except zlib.error:
                return zlib.decompress(body, -zlib.MAX_WBITS)
        if encoding == "br":
            return brotli.decompress(body)
    except (zlib.error, brotli.error):
        return body
    return body


def read_contents(path: Path, segment: str) -> Iterator[NutchContent]:
    """Every response record of one WARC file as a Nutch Content (see the module docstring)."""
    with open(path, "rb") as stream:
        for record in ArchiveIterator(stream, record_types=WarcRecordType.response, parse_http=True,
                                      auto_decode="none"):
            url = record.headers.get("WARC-Target-URI")
            http = record.http_headers
            if not url or http is None:
                continue
            body = record.reader.read()
            saved = record.headers.get(NUTCH_HEADER)
            if saved:
                data = json.loads(saved)
                meta = {str(k): [str(v) for v in values] for k, values in data["meta"].items()}
                yield NutchContent(data["url"], data["base"], body, data["type"], meta)
                continue
            metadata: dict[str, list[str]] = {}
            for name, value in http.astuples():
                metadata.setdefault(str(name), []).append(str(value))
            encoding = http.get("Content-Encoding") or ""
            metadata.setdefault("nutch.segment.name", [segment])
            metadata.setdefault("_fst_", [str(fetch_status_of(http.status_code or 0))])
            yield NutchContent(url, url, _decoded(body, encoding), http.get("Content-Type") or "", metadata)
