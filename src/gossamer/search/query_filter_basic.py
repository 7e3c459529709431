"""Plugin ``query-basic``: bare terms and phrases, and ``title:`` / ``anchor:`` / ``content:``.

A bare term matches in any of the default fields — ``url`` (``query.url.boost``
4.0), ``anchor`` (2.0), ``title`` (1.5), ``host`` (2.0) and ``content`` (1.0), as
in Nutch's query-basic — and scores in every field it occurs in.  A phrase (or a
compound term such as ``os.path``) must occur as a phrase in one of those fields;
its words score like bare terms.  A ``field:`` clause on one text field matches
and scores in that field only.  A word also matches (and scores, with a lower
boost) by its stems in the field's stemmed shadow field when the index has one
(``crawl`` finds ``Crawling``; see :mod:`gossamer.index.analysis`).
"""

from __future__ import annotations

from typing import Any

import tantivy

from gossamer.core import Clause, Settings
from gossamer.plugins import PluginInfo, QueryFilter
from gossamer.search.query_build import QueryContext

DEFAULT_FIELDS = ("url", "anchor", "title", "host", "content", "opening")
TEXT_FIELDS = ("title", "anchor", "content", "opening")


class BasicQueryFilter(QueryFilter):
    """Default-field and text-field terms and phrases."""

    fields = ("", *TEXT_FIELDS)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def translate(self, clause: Clause, ctx: QueryContext) -> Any | None:
        if clause.kind not in ("term", "phrase"):
            return None
        fields = [f for f in ((clause.field,) if clause.field else DEFAULT_FIELDS) if f in ctx.field_names]
        terms = ctx.tokens(clause.tokens)
        if not fields or not terms:
            return None
        if clause.excluded:  # no scoring: just what must not match
            return ctx.any_of([ctx.phrase(f, terms) for f in fields])
        if len(terms) == 1:
            return ctx.any_of([leaf for f in fields for leaf in ctx.term_leaves(f, terms[0])])
        matches = ctx.filter(ctx.any_of([ctx.phrase(f, terms) for f in fields]))
        scores = [leaf for term in dict.fromkeys(terms) for f in fields for leaf in ctx.term_leaves(f, term)]
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, matches)]
                                           + [(tantivy.Occur.Should, q) for q in scores])


PLUGIN = PluginInfo(
    id="query-basic",
    point="QueryFilter",
    factory=BasicQueryFilter,
    description="terms and phrases over url, anchor, title, host and content (with boosts); title:/anchor:/"
                "content:",
    aliases=("org.apache.nutch.searcher.basic.BasicQueryFilter",),
)
