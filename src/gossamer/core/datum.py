"""CrawlDatum: what the crawldb knows about one URL.

Fields and units follow Nutch (reference §4): ``fetch_time`` and ``modified_time``
are milliseconds since the epoch (UTC), ``fetch_interval`` is seconds, ``retries``
counts failed fetches since the last success, ``score`` is a float32 in Nutch
(stored as float32 in Parquet), ``signature`` is the content digest (≤ 256
bytes or ``None``) and ``metadata`` maps text keys to text values.  Keys that
Nutch stores as typed Writables (``_ngt_`` a long, ``fixedInterval`` a float,
``_pst_`` a protocol status) are kept as their text form; :data:`META_*` name
them.
"""

from __future__ import annotations

import math
import struct
import time
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime

from gossamer.core.status import CrawlStatus, has_db_status, has_fetch_status, status_name

META_GENERATE_TIME = "_ngt_"
META_PROTOCOL_STATUS = "_pst_"
META_PROTOCOL_CODE = "nutch.protocol.code"
META_CONTENT_TYPE = "Content-Type"
META_REPR_URL = "_repr_"
META_FIXED_INTERVAL = "fixedInterval"
META_VARIABLE_FETCH_DELAY = "_variableFetchDelay_"
META_RESPONSE_TIME = "_rs_"

SIGNATURE_MAX_BYTES = 256
MILLIS_PER_DAY = 86_400_000
SECONDS_PER_DAY = 86_400


def now_millis() -> int:
    """Current time in milliseconds since the epoch."""
    return time.time_ns() // 1_000_000


@dataclass(slots=True)
class CrawlDatum:
    """Mutable record of one URL's crawl state (Nutch's CrawlDatum, version 7).

    The defaults mirror Nutch's no-argument constructor except ``fetch_time``,
    which callers set explicitly (Nutch uses "now"; use :func:`now_millis`).
    """

    status: int = CrawlStatus.DB_UNFETCHED
    fetch_time: int = 0
    retries: int = 0
    fetch_interval: int = 0
    score: float = 0.0
    signature: bytes | None = None
    modified_time: int = 0
    metadata: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.signature is not None and len(self.signature) > SIGNATURE_MAX_BYTES:
            raise ValueError(f"signature longer than {SIGNATURE_MAX_BYTES} bytes")

    @property
    def status_name(self) -> str:
        """Nutch's name of :attr:`status`."""
        return status_name(self.status)

    def has_db_status(self) -> bool:
        """True when the status is a crawldb state (``db_*``)."""
        return has_db_status(self.status)

    def has_fetch_status(self) -> bool:
        """True when the status is a fetch result (``fetch_*`` or ``parse_failed``)."""
        return has_fetch_status(self.status)

    def copy(self) -> CrawlDatum:
        """An independent copy (the metadata dict is copied too).

        Built positionally (:data:`DATUM_FIELDS` guards the order): several times cheaper than
        ``dataclasses.replace``, and the fetcher copies a datum per fetched page.
        """
        return CrawlDatum(self.status, self.fetch_time, self.retries, self.fetch_interval, self.score,
                          self.signature, self.modified_time, dict(self.metadata))

    def merge_metadata(self, other: dict[str, str]) -> None:
        """Overlay ``other`` on this datum's metadata (other's values win)."""
        self.metadata.update(other)

    def set_fetch_interval(self, seconds: float) -> None:
        """Set the interval in seconds as Nutch's ``setFetchInterval(float)``: float32, ``Math.round``.

        Java rounds halves up (``floor(x + 0.5f)``), Python's ``round`` to even.
        """
        value = to_float32(seconds)
        self.fetch_interval = int(math.floor(to_float32(value + 0.5)))

    def signature_hex(self) -> str | None:
        """Lower-case hex of the signature, or ``None``."""
        return None if self.signature is None else self.signature.hex()

    def to_text(self) -> str:
        """Nutch's ``CrawlDatum.toString()`` layout, as ``readdb -url`` / ``-dump`` print it."""
        days = self.fetch_interval // SECONDS_PER_DAY
        lines = [
            "Version: 7",
            f"Status: {self.status} ({self.status_name})",
            f"Fetch time: {java_date(self.fetch_time)}",
            f"Modified time: {java_date(self.modified_time)}",
            f"Retries since fetch: {self.retries}",
            f"Retry interval: {self.fetch_interval} seconds ({days} days)",
            f"Score: {java_float(self.score)}",
            f"Signature: {self.signature_hex() or 'null'}",
            "Metadata: ",
        ]
        lines.extend(f" \t{key}={value}" for key, value in self.metadata.items())
        return "\n".join(lines) + "\n"


DATUM_FIELDS = ("status", "fetch_time", "retries", "fetch_interval", "score", "signature", "modified_time",
                "metadata")
"""CrawlDatum's fields in order: :meth:`CrawlDatum.copy` builds a copy positionally."""
if tuple(f.name for f in fields(CrawlDatum)) != DATUM_FIELDS:  # pragma: no cover - guards CrawlDatum.copy
    raise ImportError("CrawlDatum's fields changed: update CrawlDatum.copy")


def to_float32(value: float) -> float:
    """``value`` rounded to the nearest float32, as Java's ``float`` holds it."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def java_date(millis: int) -> str:
    """Format epoch milliseconds like Java's ``Date.toString()`` in UTC."""
    moment = datetime.fromtimestamp(millis / 1000, tz=UTC)
    return moment.strftime("%a %b %d %H:%M:%S UTC %Y")


def java_float(value: float) -> str:
    """Render a value stored as float32 the way Java prints a float (``1.0``, ``0.1``, ``1.0E7``).

    The shortest decimal that round-trips through float32 is used, so a score read
    back from Parquet as ``0.10000000149011612`` prints as ``0.1``.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    packed = struct.pack("<f", value)
    digits = 1
    while digits < 9 and struct.pack("<f", float(f"{value:.{digits}g}")) != packed:
        digits += 1
    short = float(f"{value:.{digits}g}")
    if short == 0 or 1e-3 <= abs(short) < 1e7:
        return repr(short)
    mantissa, exponent = f"{short:.{digits - 1}e}".split("e")
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}E{int(exponent)}"
