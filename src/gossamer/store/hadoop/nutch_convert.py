"""Nutch 1.x records ↔ Gossamer's core records (``gossamer.core``), so Nutch → Gossamer → Nutch is equal.

Every ``to_core_*`` has a ``from_core_*`` inverse; for records read from Nutch files the pair
gives back an equal record (Java's ``equals`` sense: a ``Metadata`` key with no values, which
Java's reader never creates, is dropped).  Where a Gossamer record has no field for a Nutch
detail, the detail goes into a reserved metadata key and comes back on export:

* **CrawlDatum, Outlink metadata** (typed ``MapWritable``): :mod:`.nutch_metadata_map`
  (text forms, ``_nutch_types_``).  Status bytes, times, retries, interval, score (float32)
  and signature map one to one (Gossamer uses Nutch's status codes).
* **Content**: a Nutch ``Metadata`` entry goes to ``Content.metadata`` when its name is one
  of the crawl-side keys (:data:`CONTENT_CRAWL_KEYS`) and it has one value; every other
  value becomes a ``(name, value)`` pair of ``Content.headers``, in order.  Export groups
  headers by name (first appearance) and adds the metadata entries.
* **ParseData**: multi-valued ``Metadata`` keys keep their first value in the dict and all
  values in :data:`MULTI_KEY` (JSON ``{name: [values]}``); a ``ParseStatus`` that is not just
  a major code with an optional single non-empty message (minor code ≠ 0, several or null
  args, an unknown major code) is kept whole in ``parse_metadata[`` :data:`PARSE_STATUS_KEY` ``]``.
* **ProtocolStatus**: a ``null`` args array and an empty one both become ``()`` (exported as
  ``null``); a ``null`` arg becomes ``""``.  Inside CrawlDatum metadata (``_pst_``) the
  mapping is exact.
"""

from __future__ import annotations

import json
from typing import Any

from gossamer.core import (
    DECODING_ERROR,
    DIGEST_KEY,
    TRUNCATED,
    TRUNCATED_REASON,
    WARC_RECORD_KEY,
    Content,
    CrawlDatum,
    Inlink,
    Outlink,
    ParseData,
    ParseStatusCode,
    ParseText,
    ProtocolStatus,
    ProtocolStatusCode,
)
from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.nutch_crawldatum import NutchCrawlDatum
from gossamer.store.hadoop.nutch_metadata_map import load_json, map_to_strings, strings_to_map
from gossamer.store.hadoop.nutch_segment_records import NutchContent, NutchInlink, NutchOutlink, NutchParseData
from gossamer.store.hadoop.nutch_status import NutchParseStatus, NutchProtocolStatus
from gossamer.store.hadoop.registry import DEFAULT_REGISTRY
from gossamer.store.hadoop.writable import WritableRegistry

CONTENT_CRAWL_KEYS = frozenset({
    "nutch.segment.name", "nutch.crawl.score", "_fst_", "_ftk_", DIGEST_KEY, WARC_RECORD_KEY,
    TRUNCATED, TRUNCATED_REASON, DECODING_ERROR,
})
"""Content metadata names Nutch and Gossamer set themselves (not response headers)."""

MULTI_KEY = "_nutch_multi_"
PARSE_STATUS_KEY = "_nutch_parse_status_"


def _registry(registry: WritableRegistry | None) -> WritableRegistry:
    return registry or DEFAULT_REGISTRY


# -- CrawlDatum -------------------------------------------------------------------------------------------------

def to_core_datum(datum: NutchCrawlDatum, registry: WritableRegistry | None = None) -> CrawlDatum:
    """A Nutch CrawlDatum as Gossamer's (metadata by :func:`map_to_strings`)."""
    return CrawlDatum(status=datum.status, fetch_time=datum.fetch_time, retries=datum.retries,
                      fetch_interval=datum.fetch_interval, score=datum.score, signature=datum.signature,
                      modified_time=datum.modified_time,
                      metadata=map_to_strings(datum.metadata, _registry(registry)))


def from_core_datum(datum: CrawlDatum, registry: WritableRegistry | None = None) -> NutchCrawlDatum:
    """Gossamer's CrawlDatum as Nutch's (version 7); inverse of :func:`to_core_datum`."""
    return NutchCrawlDatum(int(datum.status), datum.fetch_time, datum.retries, datum.fetch_interval,
                           datum.score, datum.modified_time, datum.signature,
                           strings_to_map(datum.metadata, _registry(registry)))


# -- ProtocolStatus, links, text --------------------------------------------------------------------------------

def to_core_protocol_status(status: NutchProtocolStatus) -> ProtocolStatus:
    """A ``ProtocolStatus``; a code Gossamer does not know is a :class:`HadoopFormatError`."""
    try:
        code = ProtocolStatusCode(status.code)
    except ValueError:
        raise HadoopFormatError(f"a known ProtocolStatus code, found {status.code}") from None
    args = tuple("" if arg is None else arg for arg in status.args or ())
    return ProtocolStatus(code, args, status.last_modified)


def from_core_protocol_status(status: ProtocolStatus) -> NutchProtocolStatus:
    return NutchProtocolStatus(int(status.code), status.last_modified, list(status.args) if status.args else None)


def to_core_outlink(outlink: NutchOutlink, registry: WritableRegistry | None = None) -> Outlink:
    meta = map_to_strings(outlink.metadata, _registry(registry))
    return Outlink(outlink.to_url, outlink.anchor, tuple(meta.items()))


def from_core_outlink(outlink: Outlink, registry: WritableRegistry | None = None) -> NutchOutlink:
    return NutchOutlink(outlink.to_url, outlink.anchor, strings_to_map(dict(outlink.metadata), _registry(registry)))


def to_core_inlinks(inlinks: list[NutchInlink]) -> list[Inlink]:
    return [Inlink(inlink.from_url, inlink.anchor) for inlink in inlinks]


def from_core_inlinks(inlinks: list[Inlink]) -> list[NutchInlink]:
    return [NutchInlink(inlink.from_url, inlink.anchor) for inlink in inlinks]


# -- Content -----------------------------------------------------------------------------------------------------

def to_core_content(content: NutchContent) -> Content:
    """A Nutch ``Content``: crawl-side single values to ``metadata``, everything else to ``headers``."""
    headers: list[tuple[str, str]] = []
    metadata: dict[str, str] = {}
    for name, values in content.metadata.items():
        if name in CONTENT_CRAWL_KEYS and len(values) == 1:
            metadata[name] = values[0]
        else:
            headers.extend((name, value) for value in values)
    return Content(content.url, content.base, content.content, content.content_type, headers, metadata)


def from_core_content(content: Content) -> NutchContent:
    """Gossamer's ``Content`` as Nutch's; inverse of :func:`to_core_content`."""
    metadata: dict[str, list[str]] = {}
    for name, value in content.headers:
        metadata.setdefault(name, []).append(value)
    for name, value in content.metadata.items():
        metadata.setdefault(name, []).append(value)
    return NutchContent(content.url, content.base_url, content.content, content.content_type, metadata)


# -- ParseData ---------------------------------------------------------------------------------------------------

def _single_valued(metadata: dict[str, list[str]]) -> dict[str, str]:
    result = {name: values[0] for name, values in metadata.items() if values}
    multi = {name: values for name, values in metadata.items() if len(values) > 1}
    for reserved in (MULTI_KEY, PARSE_STATUS_KEY):
        if reserved in metadata:
            raise HadoopFormatError(f"parse metadata named {reserved!r} is reserved; it cannot be mapped")
    if multi:
        result[MULTI_KEY] = json.dumps(multi, ensure_ascii=False, separators=(",", ":"))
    return result


def _multi_valued(metadata: dict[str, str]) -> dict[str, list[str]]:
    multi: dict[str, list[str]] = load_json(metadata[MULTI_KEY], MULTI_KEY) if MULTI_KEY in metadata else {}
    return {name: list(multi.get(name, [value])) for name, value in metadata.items()
            if name not in (MULTI_KEY, PARSE_STATUS_KEY)}


def _canonical(status: NutchParseStatus) -> bool:
    args_plain = status.args is None or (len(status.args) == 1 and bool(status.args[0]))
    return status.minor == 0 and status.major in ParseStatusCode._value2member_map_ and args_plain


def to_core_parse_data(data: NutchParseData, registry: WritableRegistry | None = None) -> ParseData:
    """A Nutch ``ParseData`` as Gossamer's (see the module docstring for what goes to reserved keys)."""
    status = data.status
    parse_meta = _single_valued(data.parse_meta)
    if not _canonical(status):
        parse_meta[PARSE_STATUS_KEY] = json.dumps({"major": status.major, "minor": status.minor,
                                                   "args": status.args}, ensure_ascii=False)
    known = status.major in ParseStatusCode._value2member_map_
    message = status.args[0] if status.args and status.args[0] else ""
    return ParseData(ParseStatusCode(status.major) if known else ParseStatusCode.FAILED, data.title,
                     [to_core_outlink(link, registry) for link in data.outlinks],
                     _single_valued(data.content_meta), parse_meta, message)


def from_core_parse_data(data: ParseData, registry: WritableRegistry | None = None) -> NutchParseData:
    """Gossamer's ``ParseData`` as Nutch's; inverse of :func:`to_core_parse_data`."""
    saved: dict[str, Any] | None = (load_json(data.parse_metadata[PARSE_STATUS_KEY], PARSE_STATUS_KEY)
                                    if PARSE_STATUS_KEY in data.parse_metadata else None)
    if saved is not None:
        status = NutchParseStatus(saved["major"], saved["minor"], saved["args"])
    else:
        status = NutchParseStatus(int(data.status), 0, [data.status_message] if data.status_message else None)
    return NutchParseData(status, data.title, [from_core_outlink(link, registry) for link in data.outlinks],
                          _multi_valued(data.content_metadata), _multi_valued(data.parse_metadata))


def to_core_parse_text(text: str) -> ParseText:
    return ParseText(text)


def from_core_parse_text(text: ParseText) -> str:
    return text.text
