"""The WebDB's records, :class:`Page` and :class:`Link`, and their Arrow schemas.

A :class:`Page` is unique by URL and carries the MD5 of its content (16 bytes); a
:class:`Link` originates in *content* (``from_md5``) and points at a URL, unique per
``(to_url, from_md5)`` pair.  Fields follow Nutch's 2004 ``net.nutch.db.Page``:
``fetch_time`` is when the page should be (re)fetched, in epoch milliseconds;
``retries`` the failed attempts; ``interval`` the fetch interval in days; ``score`` the
link-analysis score and ``next_score`` the one being computed for the next round.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyarrow as pa

MD5_BYTES = 16

PAGE_FIELDS = [
    pa.field("url", pa.string(), nullable=False),
    pa.field("md5", pa.binary(MD5_BYTES), nullable=False),
    pa.field("fetch_time", pa.int64(), nullable=False),
    pa.field("retries", pa.int16(), nullable=False),
    pa.field("interval", pa.int32(), nullable=False),
    pa.field("score", pa.float32(), nullable=False),
    pa.field("next_score", pa.float32(), nullable=False),
]
LINK_FIELDS = [
    pa.field("from_md5", pa.binary(MD5_BYTES), nullable=False),
    pa.field("to_url", pa.string(), nullable=False),
    pa.field("anchor", pa.string(), nullable=False),
]
PAGE_COLUMNS = [f.name for f in PAGE_FIELDS]
LINK_COLUMNS = [f.name for f in LINK_FIELDS]


def _check_md5(value: bytes, name: str) -> bytes:
    if not isinstance(value, bytes | bytearray) or len(value) != MD5_BYTES:
        raise ValueError(f"{name} must be {MD5_BYTES} bytes, got {value!r}")
    return bytes(value)


@dataclass(frozen=True, kw_only=True)
class Page:
    """A known web page (unique by ``url``); ``md5`` identifies its content."""

    url: str
    md5: bytes
    fetch_time: int = 0
    retries: int = 0
    interval: int = 30
    score: float = 1.0
    next_score: float = 1.0

    def __post_init__(self) -> None:
        if not self.url:
            raise ValueError("a Page needs a url")
        object.__setattr__(self, "md5", _check_md5(self.md5, "md5"))

    def row(self) -> dict[str, object]:
        """The page as a table row."""
        return {name: getattr(self, name) for name in PAGE_COLUMNS}

    @classmethod
    def from_row(cls, row: dict[str, object]) -> Page:
        """A page from a table row (extra columns ignored); float32 scores come back as floats."""
        return cls(**{name: row[name] for name in PAGE_COLUMNS})  # type: ignore[arg-type]


@dataclass(frozen=True, kw_only=True)
class Link:
    """A hyperlink from the content ``from_md5`` to ``to_url`` (unique per URL–MD5 pair)."""

    from_md5: bytes
    to_url: str
    anchor: str = ""

    def __post_init__(self) -> None:
        if not self.to_url:
            raise ValueError("a Link needs a to_url")
        object.__setattr__(self, "from_md5", _check_md5(self.from_md5, "from_md5"))

    def row(self) -> dict[str, object]:
        """The link as a table row."""
        return {name: getattr(self, name) for name in LINK_COLUMNS}

    @classmethod
    def from_row(cls, row: dict[str, object]) -> Link:
        """A link from a table row (extra columns ignored)."""
        return cls(**{name: row[name] for name in LINK_COLUMNS})  # type: ignore[arg-type]


def _first(fields: list[pa.Field], first: list[str]) -> pa.Schema:
    by_name = {f.name: f for f in fields}
    return pa.schema([by_name[n] for n in first] + [f for f in fields if f.name not in first])


PAGES_BY_URL_SCHEMA = _first(PAGE_FIELDS, ["url", "md5"])
PAGES_BY_MD5_SCHEMA = _first(PAGE_FIELDS, ["md5", "url"])
LINKS_BY_MD5_SCHEMA = _first(LINK_FIELDS, ["from_md5", "to_url"])
LINKS_BY_URL_SCHEMA = _first(LINK_FIELDS, ["to_url", "from_md5"])


def url_key(url: str, md5: bytes = b"") -> str:
    """Sort key of URL-major order: the URL, then the MD5 (hex) after a NUL (which sorts first)."""
    return f"{url}\x00{md5.hex()}"


def md5_key(md5: bytes, url: str = "") -> str:
    """Sort key of MD5-major order: hex MD5 (same order as the bytes), NUL, then the URL."""
    return f"{md5.hex()}\x00{url}"


def rows_of(batches: Iterator[pa.RecordBatch]) -> Iterator[dict[str, object]]:
    """Stream batches as row dicts."""
    for batch in batches:
        yield from batch.to_pylist()
