"""Search: the query language, scoring with whole-index statistics, the searcher and the broker.

Public API: :func:`open_searcher` (a :class:`Broker` over the crawl's index or over
search nodes) with its results (:class:`SearchResults`, :class:`Hit`),
:func:`cached_page` and :func:`anchors`, and :func:`explained_factors` (the factors of a score's
explanation, as ``--explain`` prints them); the query language (:func:`parse_query`,
:class:`Query`, :class:`Clause`, :class:`DateRange`, :class:`QuerySyntaxError`,
:func:`tokenize`); local shards (:class:`ShardSet`, BM25 scoring in :mod:`.scoring`) and
search nodes (:func:`serve_node`, :mod:`.remote`).  The built-in QueryFilters
(``query-basic``, ``query-fields``) live here (:mod:`.query_filter_basic`,
:mod:`.query_filter_fields`) and register by entry point.
"""

from gossamer.core import HIGHLIGHT_FIELDS, Clause, ClauseKind, DateRange, Query, lazy_attributes

# Imported when first read (a plugin process that loads the QueryFilters imports neither the
# broker nor the node server and its aiohttp): see gossamer.core.lazy.
__getattr__ = lazy_attributes(__name__, {
    "HitDetails": "backend", "SearchPage": "backend",
    "Broker": "broker", "Hit": "broker", "SearchResults": "broker", "SearchUnavailable": "broker",
    "serve_node": "node_server:serve",
    "DEFAULT_FIELDS": "query_parse", "RAW_FIELDS": "query_parse", "QuerySyntaxError": "query_parse",
    "parse_query": "query_parse", "tokenize": "query_parse",
    "CachedPage": "searcher", "anchors": "searcher", "cached_page": "searcher", "open_searcher": "searcher",
    "ShardSet": "shards", "explained_factors": "scoring",
})

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
    "explained_factors",
    "open_searcher",
    "parse_query",
    "serve_node",
    "tokenize",
]
