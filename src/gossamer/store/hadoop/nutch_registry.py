"""Nutch's record codecs in a :class:`WritableRegistry`, under their Java class names.

:func:`register_nutch_codecs` adds every Nutch codec to a registry; codecs that hold a
``MapWritable`` (CrawlDatum, Outlink, ParseData) resolve its classes through that same
registry, so a ``ProtocolStatus`` under ``_pst_`` in CrawlDatum metadata is found.
Importing this module registers them in
:data:`~gossamer.store.hadoop.registry.DEFAULT_REGISTRY` too (the Nutch class names are
new there; nothing already registered is replaced).  :func:`nutch_registry` gives a fresh
registry with the Hadoop and Nutch codecs.

| class | codec | value |
|---|---|---|
| ``org.apache.nutch.crawl.CrawlDatum`` | v1–7 read, v7 written | :class:`NutchCrawlDatum` |
| ``org.apache.nutch.crawl.Inlinks`` / ``Inlink`` | | ``list[NutchInlink]`` / :class:`NutchInlink` |
| ``org.apache.nutch.protocol.Content`` | −1 form (+ 0.8 compressed on read) | :class:`NutchContent` |
| ``org.apache.nutch.parse.ParseData`` / ``ParseText`` / ``ParseStatus`` / ``Outlink`` | v5 / v2 / v2 / | |
| ``org.apache.nutch.protocol.ProtocolStatus`` | v2 (v1 read) | :class:`NutchProtocolStatus` |
| ``org.apache.nutch.metadata.Metadata`` | (container layer) | ``dict[str, list[str]]`` |
| ``net.nutch.db.Page``, ``net.nutch.pagedb.FetchListEntry``, ``net.nutch.fetcher.*`` | 0.4/0.5 | |
| ``net.nutch.protocol.Content``, ``net.nutch.parse.ParseText`` / ``ParseData`` | 0.5 | |
"""

from __future__ import annotations

from gossamer.store.hadoop.nutch_crawldatum import CrawlDatumCodec
from gossamer.store.hadoop.nutch_legacy import (
    FETCH_LIST_ENTRY,
    FETCHER_CONTENT,
    FETCHER_OUTPUT,
    FETCHER_TEXT,
    LEGACY_OUTLINK,
    LEGACY_OUTLINK_ALIASES,
    PAGE,
)
from gossamer.store.hadoop.nutch_legacy05 import LEGACY_CONTENT, LEGACY_PARSE_DATA, LEGACY_PARSE_TEXT
from gossamer.store.hadoop.nutch_segment_records import (
    INLINK,
    ContentCodec,
    InlinksCodec,
    OutlinkCodec,
    ParseDataCodec,
    ParseTextCodec,
)
from gossamer.store.hadoop.nutch_status import PARSE_STATUS, PROTOCOL_STATUS
from gossamer.store.hadoop.registry import DEFAULT_REGISTRY, new_registry
from gossamer.store.hadoop.writable import WritableRegistry


def register_nutch_codecs(registry: WritableRegistry) -> WritableRegistry:
    """Register every Nutch codec (1.x, 0.5, 0.4) in ``registry``; returns ``registry``."""
    for codec in (CrawlDatumCodec(registry), INLINK, InlinksCodec(), ContentCodec(), ParseDataCodec(registry),
                  ParseTextCodec(), OutlinkCodec(registry), PARSE_STATUS, PROTOCOL_STATUS,
                  PAGE, FETCH_LIST_ENTRY, FETCHER_OUTPUT, FETCHER_CONTENT, FETCHER_TEXT,
                  LEGACY_CONTENT, LEGACY_PARSE_DATA, LEGACY_PARSE_TEXT):
        registry.register(codec)
    registry.register(LEGACY_OUTLINK, LEGACY_OUTLINK_ALIASES)
    return registry


def nutch_registry() -> WritableRegistry:
    """A new registry with the Hadoop codecs and every Nutch codec."""
    return register_nutch_codecs(new_registry())


register_nutch_codecs(DEFAULT_REGISTRY)
