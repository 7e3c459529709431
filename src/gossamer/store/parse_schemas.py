"""Parquet schemas of a segment's parse tables: parse_data, parse_text (and crawl_parse).

parse_data (one row per parsed page, sorted by ``url``):

==================  ======================================  ==========================================
column              type                                    meaning
==================  ======================================  ==========================================
url                 string, not null                        the page (sort key)
status              uint8, not null                         0 notparsed, 1 success, 2 failed
status_message      string                                  failure or skip reason; meta refresh note
title               string                                  page title
outlinks            list<struct<url string, anchor string>> kept outlinks, normalized, in page order
content_metadata    map<string, string>                     response headers and crawl facts
parse_metadata      map<string, string>                     what the parser learned (meta tags …)
==================  ======================================  ==========================================

parse_text: ``url`` (string, not null, sort key) and ``text`` (large_string).
crawl_parse uses the crawldb schema (:data:`~gossamer.store.crawldb_schema.CRAWLDB_SCHEMA`).

The parse job turns parsed pages into these batches with
:class:`~gossamer.crawl.parse.page_buffer.PageBuffer`.
"""

from __future__ import annotations

import pyarrow as pa

from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA

OUTLINK_TYPE = pa.struct([pa.field("url", pa.string(), nullable=False),
                          pa.field("anchor", pa.string(), nullable=False)])
METADATA_TYPE = pa.map_(pa.string(), pa.string())

PARSE_DATA_SCHEMA = pa.schema([
    pa.field("url", pa.string(), nullable=False),
    pa.field("status", pa.uint8(), nullable=False),
    pa.field("status_message", pa.string()),
    pa.field("title", pa.string()),
    pa.field("outlinks", pa.list_(pa.field("item", OUTLINK_TYPE, nullable=False))),
    pa.field("content_metadata", METADATA_TYPE),
    pa.field("parse_metadata", METADATA_TYPE),
])
PARSE_TEXT_SCHEMA = pa.schema([
    pa.field("url", pa.string(), nullable=False),
    pa.field("text", pa.large_string()),
])
SCHEMAS = {"parse_data": PARSE_DATA_SCHEMA, "parse_text": PARSE_TEXT_SCHEMA, "crawl_parse": CRAWLDB_SCHEMA}
"""Every parse table and its schema, in the order they are installed (crawl_parse last)."""
