"""Nutch 1.x ``org.apache.nutch.crawl.CrawlDatum``: versions 1–7 read, version 7 written.

Version 7 (``CUR_VERSION``), big-endian::

    byte version (7) | byte status | long fetchTime | byte retries | int fetchInterval |
    float score | long modifiedTime | byte sigLen (0 = null) | sigLen bytes |
    boolean hasMeta | [MapWritable metadata]          (hasMeta only if non-empty)

Older versions, as Nutch 1.x's ``readFields`` reads them:

* v ≤ 5: ``fetchInterval`` is a float, rounded with Java's ``Math.round(float)`` (halves up,
  NaN → 0, clamped to the int range);
* v ≤ 2: no ``modifiedTime``, no signature (0 and ``null``);
* v ≤ 3: no ``hasMeta``/metadata; v4–v6 carry a Hadoop ``MapWritable`` like v7;
* v ≤ 4: status bytes of the old numbering, mapped: 0 signature, 1 db_unfetched,
  2 db_fetched, 3 db_gone, 4 linked, 5 fetch_success, 6 fetch_retry, 7 fetch_gone; any
  other old code becomes db_unfetched (as in Nutch).

Version 0 (Nutch 0.8-dev, no score) is refused: Nutch 1.x would misread it.

One departure from Java: the signature length byte is read as *unsigned* (Java reads it
signed, so a 128–255 byte signature it wrote cannot be read back there); lengths above 255
are refused when writing (Java's limit of 256 writes a length byte of 0 and breaks the record).
A metadata map that is empty is written as ``hasMeta = false``, as Java does.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from typing import Any

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.nutch_common import check_int, write_float32
from gossamer.store.hadoop.primitives import INT_MAX, INT_MIN, Cursor, Output
from gossamer.store.hadoop.writable import WritableCodec, WritableRegistry
from gossamer.store.hadoop.writables_basic import HADOOP_IO
from gossamer.store.hadoop.writables_compound import read_version, write_version

CRAWL_DATUM_CLASS = "org.apache.nutch.crawl.CrawlDatum"
CUR_VERSION = 7
MAP_WRITABLE_CLASS = HADOOP_IO + "MapWritable"

OLD_STATUS = {0: 0x41, 1: 0x01, 2: 0x02, 3: 0x03, 4: 0x43, 5: 0x21, 6: 0x22, 7: 0x25}
"""Status codes of CrawlDatum versions before 5 → current codes."""

STATUS_NAMES = {
    0x01: "db_unfetched", 0x02: "db_fetched", 0x03: "db_gone", 0x04: "db_redir_temp", 0x05: "db_redir_perm",
    0x06: "db_notmodified", 0x07: "db_duplicate", 0x08: "db_orphan", 0x09: "db_parse_failed",
    0x21: "fetch_success", 0x22: "fetch_retry", 0x23: "fetch_redir_temp", 0x24: "fetch_redir_perm",
    0x25: "fetch_gone", 0x26: "fetch_notmodified", 0x41: "signature", 0x42: "injected", 0x43: "linked",
    0x44: "parse_metadata", 0x45: "parse_failed",
}


@dataclass(slots=True)
class NutchCrawlDatum:
    """A CrawlDatum as Nutch holds it; ``metadata`` is the decoded ``MapWritable`` (typed) or ``None``.

    ``version`` is the version the record was read with (informational: writing always
    produces version 7); it takes no part in equality.
    """

    status: int
    fetch_time: int = 0
    retries: int = 0
    fetch_interval: int = 0
    score: float = 0.0
    modified_time: int = 0
    signature: bytes | None = None
    metadata: dict[Any, Any] | None = None
    version: int = field(default=CUR_VERSION, compare=False)

    @property
    def status_name(self) -> str:
        return STATUS_NAMES.get(self.status, "unknown")


def java_round(value: float) -> int:
    """Java's ``Math.round(float)``: ``floor(value + 0.5f)`` in float32, NaN → 0, clamped to int."""
    if math.isnan(value):
        return 0
    if not INT_MIN < value < INT_MAX:
        return INT_MAX if value > 0 else INT_MIN
    half = struct.unpack(">f", struct.pack(">f", value + 0.5))[0]
    return max(INT_MIN, min(INT_MAX, math.floor(half)))


class CrawlDatumCodec(WritableCodec):
    """``org.apache.nutch.crawl.CrawlDatum``; metadata classes are resolved through ``registry``."""

    java_class = CRAWL_DATUM_CLASS

    def __init__(self, registry: WritableRegistry) -> None:
        self.registry = registry

    def _map_codec(self) -> WritableCodec:
        return self.registry.get(MAP_WRITABLE_CLASS)

    def read(self, cursor: Cursor) -> NutchCrawlDatum:
        version = read_version(cursor, range(1, CUR_VERSION + 1), "CrawlDatum")
        status = cursor.read_ubyte()
        fetch_time = cursor.read_long()
        retries = cursor.read_byte()
        interval = cursor.read_int() if version > 5 else java_round(cursor.read_float())
        score = cursor.read_float()
        modified_time, signature, metadata = 0, None, None
        if version > 2:
            modified_time = cursor.read_long()
            size = cursor.read_ubyte()
            signature = cursor.read_bytes(size, "CrawlDatum signature") if size else None
        if version > 3 and cursor.read_boolean():
            metadata = self._map_codec().read(cursor)
        if version < 5:
            status = OLD_STATUS.get(status, 0x01)
        return NutchCrawlDatum(status, fetch_time, retries, interval, score, modified_time, signature,
                               metadata, version)

    def write(self, out: Output, value: NutchCrawlDatum) -> None:
        write_version(out, CUR_VERSION)
        if isinstance(value.status, bool) or not isinstance(value.status, int) or not 0 <= value.status <= 255:
            raise HadoopFormatError(f"CrawlDatum status: a byte 0..255, found {value.status!r}")
        out.write_byte(value.status)
        out.write_long(check_int(value.fetch_time, 64, "CrawlDatum fetchTime"))
        out.write_byte(check_int(value.retries, 8, "CrawlDatum retries"))
        out.write_int(check_int(value.fetch_interval, 32, "CrawlDatum fetchInterval"))
        write_float32(out, value.score, "CrawlDatum score")
        out.write_long(check_int(value.modified_time, 64, "CrawlDatum modifiedTime"))
        signature = value.signature
        if signature is None:
            out.write_byte(0)
        elif len(signature) > 255:
            raise HadoopFormatError(f"a CrawlDatum signature of at most 255 bytes, found {len(signature)}")
        else:
            out.write_byte(len(signature))
            out.write(signature)
        if value.metadata:
            out.write_boolean(True)
            self._map_codec().write(out, value.metadata)
        else:
            out.write_boolean(False)

    def to_json(self, value: NutchCrawlDatum) -> dict[str, Any]:
        return {
            "status": value.status,
            "status_name": value.status_name,
            "fetch_time": value.fetch_time,
            "retries": value.retries,
            "fetch_interval": value.fetch_interval,
            "score": value.score,
            "modified_time": value.modified_time,
            "signature": None if value.signature is None else value.signature.hex(),
            "metadata": None if value.metadata is None else self._map_codec().to_json(value.metadata),
        }
