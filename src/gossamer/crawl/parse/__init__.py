"""Parsing fetched pages: the ``parse`` job and the per-page parser the fetcher also uses.

* :class:`PageParser` — one page in, its parse_data / parse_text / crawl_parse rows out
  (:mod:`.page`, outlink rules in :mod:`.outlinks`, parser choice in :mod:`.parsers`);
* :class:`ParseOutputs` and :func:`finish_parse_tables` — writing and installing the
  three tables of a segment (:mod:`.outputs`, batches built by :mod:`.page_buffer`; schemas
  in :mod:`gossamer.store.parse_schemas`);
* :func:`parse_segment` — the standalone job over a segment's WARC content (:mod:`.job`), its
  groups of WARC files run as engine tasks (:func:`gossamer.engine.run_tasks`).

docs/parsing.md describes the behaviour, every setting read and the table schemas.
"""

from gossamer.crawl.parse.job import STAGING as PARSE_STAGING
from gossamer.crawl.parse.job import ParseReport, parse_segment
from gossamer.crawl.parse.outputs import TABLES, ParseOutputs, complete_parse_tables, finish_parse_tables
from gossamer.crawl.parse.page import PageParser, ParsedPage
from gossamer.store import PARSE_DATA_SCHEMA, PARSE_TEXT_SCHEMA

__all__ = [
    "PARSE_DATA_SCHEMA",
    "PARSE_STAGING",
    "PARSE_TEXT_SCHEMA",
    "PageParser",
    "ParseOutputs",
    "ParseReport",
    "ParsedPage",
    "TABLES",
    "complete_parse_tables",
    "finish_parse_tables",
    "parse_segment",
]
