"""What the index job's documents are made of: row kinds, actions, the parse as read back, JSON encoding.

Shared by the row grouping (:mod:`~gossamer.index.page_rows`), the document builder
(:mod:`~gossamer.index.documents`) and the writers (:class:`JsonDocument`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any

import orjson
import pyarrow as pa

from gossamer.core import CrawlStatus, ParseData, ParseStatusCode, ParseText
from gossamer.plugins import ParseResult

KIND_DB, KIND_LINKS, KIND_FETCH, KIND_PARSE_DATA, KIND_PARSE_TEXT, KIND_NODE = 0, 1, 2, 3, 4, 5
DELETE_DB_STATUSES = pa.array([CrawlStatus.DB_GONE, CrawlStatus.DB_REDIR_TEMP, CrawlStatus.DB_REDIR_PERM,
                               CrawlStatus.DB_DUPLICATE], pa.uint8())
DELETE_DB_STATUS_SET = frozenset(DELETE_DB_STATUSES.to_pylist())
"""Crawldb statuses that delete a URL's document (with ``-deleteGone``)."""
ADD, DELETE, SKIP = 1, 2, 0
"""Actions of :meth:`DocumentBuilder.document`: add the document, delete it, leave the index alone."""


def indexed_parse(title: str, content_metadata: Iterable[tuple[str, str]] | Mapping[str, str],
                  parse_metadata: Iterable[tuple[str, str]] | Mapping[str, str], text: str) -> ParseResult:
    """A successful parse as the index job reads it back from parse_data and parse_text (no outlinks)."""
    return ParseResult(ParseData(ParseStatusCode.SUCCESS, title, [], dict(content_metadata), dict(parse_metadata)),
                       ParseText(text))


def json_value(value: Any) -> Any:
    """JSON encoding of document values: datetimes as RFC 3339 strings."""
    if isinstance(value, datetime):
        return value.isoformat()
    raise TypeError(f"cannot index a {type(value).__name__}")


def document_json(doc: Mapping[str, Any]) -> str:
    """A document as compact JSON (orjson; datetimes by :func:`json_value`, as ``datetime.isoformat``).

    Raises ValueError for a value it cannot hold (an integer beyond 64 bits, an object of another type).
    """
    return document_json_bytes(doc).decode()


def document_json_bytes(doc: Mapping[str, Any]) -> bytes:
    """:func:`document_json` as UTF-8 bytes, not decoded (the index job's output column takes them as they are).

    A document of plain values (:func:`_plain`) is encoded by orjson alone: its datetimes come out as
    ``datetime.isoformat`` writes them.  Any other goes through :func:`json_value` for each datetime, which
    cost ~7 µs a document (three datetimes) of the ~9 µs of the whole encoding.
    """
    try:
        if _plain(doc):
            return orjson.dumps(doc)
        # orjson's own datetimes would drop the seconds of a UTC offset (+05:30:10): datetimes stay ours
        return orjson.dumps(doc, default=json_value, option=orjson.OPT_PASSTHROUGH_DATETIME)
    except orjson.JSONEncodeError as exc:
        raise ValueError(f"document not encodable as JSON: {exc}") from exc


_PLAIN_SCALARS = frozenset((str, int, float, bool, type(None)))


def _plain(doc: Mapping[str, Any]) -> bool:
    """Whether orjson encodes ``doc`` exactly as :func:`document_json` promises without help (:func:`_plain_items`)."""
    return type(doc) is dict and _plain_items(doc.values())


def _plain_items(values: Iterable[Any]) -> bool:
    """Whether every value is plain (orjson alone encodes it as :func:`json_value` would).

    Plain: a string, number, boolean or None; a list, tuple or dict (string keys) of plain values; a
    datetime whose UTC offset (if any) is whole minutes.  Not a subclass of any of these, nor a ``date``
    or ``time`` alone (which :func:`json_value` refuses).  It runs for every document: a loop over the values,
    recursing only into containers.
    """
    for value in values:
        kind = type(value)
        if kind in _PLAIN_SCALARS:
            continue
        if kind is datetime:
            offset = value.utcoffset()
            if offset is not None and (offset.seconds % 60 or offset.microseconds):
                return False
        elif kind is list or kind is tuple:
            if not _plain_items(value):
                return False
        elif kind is dict:
            if not (all(type(key) is str for key in value) and _plain_items(value.values())):
                return False
        else:
            return False
    return True


class JsonDocument(Mapping[str, Any]):
    """A document read back as JSON text: ``id`` is known at once, the rest is decoded on first use.

    Writers that store JSON (the built-in tantivy writer) read :attr:`json` and
    never pay for decoding; any other writer sees an ordinary mapping.  The ``index``
    command's documents come as ASCII JSON (every other character a ``\\u`` escape, when
    :mod:`~gossamer.index.ascii_json` escapes natively): the same values.  :attr:`vector`
    is the page vector the index job embedded (``search.semantic``), else ``None``.
    """

    __slots__ = ("_fields", "json", "url", "vector")

    def __init__(self, url: str, text: str, vector: Any = None) -> None:
        self.url = url
        self.json = text
        self.vector = vector
        self._fields: dict[str, Any] | None = None

    def _decoded(self) -> dict[str, Any]:
        if self._fields is None:
            self._fields = orjson.loads(self.json)
        return self._fields

    def __getitem__(self, key: str) -> Any:
        if key == "id" and self._fields is None:
            return self.url
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())
