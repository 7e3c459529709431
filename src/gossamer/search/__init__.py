"""Search: the query language, scoring with whole-index statistics, the searcher and the broker.

Public API: :func:`open_searcher` (a :class:`Broker` over the crawl's index or over
search nodes) with its results (:class:`SearchResults`, :class:`Hit`),
:func:`cached_page` and :func:`anchors`; the query language (:func:`parse_query`,
:class:`Query`, :class:`Clause`, :class:`DateRange`, :class:`QuerySyntaxError`,
:func:`tokenize`); local shards (:class:`ShardSet`, BM25 scoring in :mod:`.scoring`) and
search nodes (:func:`serve_node`, :mod:`.remote`).  The built-in QueryFilters
(``query-basic``, ``query-fields``) live here (:mod:`.query_filter_basic`,
:mod:`.query_filter_fields`) and register by entry point.
"""

from gossamer.core import HIGHLIGHT_FIELDS, Clause, ClauseKind, DateRange, Query
from gossamer.search.backend import HitDetails, SearchPage
from gossamer.search.broker import Broker, Hit, SearchResults, SearchUnavailable
from gossamer.search.node_server import serve as serve_node
from gossamer.search.query_parse import DEFAULT_FIELDS, RAW_FIELDS, QuerySyntaxError, parse_query, tokenize
from gossamer.search.searcher import CachedPage, anchors, cached_page, open_searcher
from gossamer.search.shards import ShardSet

__all__ = [
    "DEFAULT_FIELDS",
    "HIGHLIGHT_FIELDS",
    "RAW_FIELDS",
    "Broker",
    "CachedPage",
    "Clause",
    "ClauseKind",
    "DateRange",
    "Hit",
    "HitDetails",
    "Query",
    "QuerySyntaxError",
    "SearchPage",
    "SearchResults",
    "SearchUnavailable",
    "ShardSet",
    "anchors",
    "cached_page",
    "open_searcher",
    "parse_query",
    "serve_node",
    "tokenize",
]
