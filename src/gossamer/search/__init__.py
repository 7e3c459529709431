"""Search side of Gossamer: the query language (parser and AST)."""

from gossamer.search.query_ast import HIGHLIGHT_FIELDS, Clause, ClauseKind, DateRange, Query
from gossamer.search.query_parse import DEFAULT_FIELDS, RAW_FIELDS, QuerySyntaxError, parse_query, tokenize

__all__ = [
    "DEFAULT_FIELDS",
    "HIGHLIGHT_FIELDS",
    "RAW_FIELDS",
    "Clause",
    "ClauseKind",
    "DateRange",
    "Query",
    "QuerySyntaxError",
    "parse_query",
    "tokenize",
]
