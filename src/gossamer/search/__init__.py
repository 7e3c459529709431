"""Search: the query language, scoring with whole-index statistics, the searcher and the broker.

Public API: :func:`open_searcher` (a :class:`Broker` over the crawl's index or over
search nodes) with its results (:class:`SearchResults`, :class:`Hit`),
:func:`cached_page` and :func:`anchors`; the query language (:func:`parse_query`,
:class:`Query`, :class:`Clause`, :class:`DateRange`, :class:`QuerySyntaxError`,
:func:`tokenize`).  Search nodes: :mod:`gossamer.search.node_server` and
:mod:`gossamer.search.remote`.
"""

from gossamer.search.query_ast import HIGHLIGHT_FIELDS, Clause, ClauseKind, DateRange, Query
from gossamer.search.query_parse import DEFAULT_FIELDS, RAW_FIELDS, QuerySyntaxError, parse_query, tokenize

__all__ = [
    "DEFAULT_FIELDS",
    "HIGHLIGHT_FIELDS",
    "RAW_FIELDS",
    "Broker",
    "Clause",
    "ClauseKind",
    "DateRange",
    "Hit",
    "Query",
    "QuerySyntaxError",
    "SearchResults",
    "SearchUnavailable",
    "anchors",
    "cached_page",
    "open_searcher",
    "parse_query",
    "tokenize",
]

_LAZY = {
    "Broker": "gossamer.search.broker", "Hit": "gossamer.search.broker", "SearchResults": "gossamer.search.broker",
    "SearchUnavailable": "gossamer.search.broker", "open_searcher": "gossamer.search.searcher",
    "cached_page": "gossamer.search.searcher", "anchors": "gossamer.search.searcher",
}


def __getattr__(name: str) -> object:
    """The searcher's names, loaded on first use.

    Query plugins import this package's parser while the plugin registry is
    still loading, so the searcher cannot be imported eagerly.
    """
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'gossamer.search' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
