"""Plugins for the filter fields: query-site, query-url, query-more (type, date) and query-lang.

Each matches without adding to the score (Nutch gave these clauses boost 0):

* ``site:docs.python.org`` — the page's host, exactly; ``host:python`` — words of the host name;
* ``url:`` — a raw value matches the URL exactly (``id``) or as a token sequence
  of the tokenized url (``url:library/os`` matches ``…/library/os.html``);
* ``type:`` — a MIME type or one of its parts (``type:html``, ``type:application/pdf``);
* ``date:YYYYMMDD-YYYYMMDD`` — the ``date`` field (last modified, else fetch time), days inclusive;
* ``lang:de`` — the ``lang`` field;
* ``cc:by-sa`` — words of the ``cc`` field in order (Creative Commons license type,
  version, work type; plugin ``creativecommons-query``);
* ``tag:python`` — words of the ``tag`` field in order (rel-tag microformat tags;
  plugin ``microformats-reltag-query``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import tantivy

from gossamer.core import Clause, Settings
from gossamer.plugins import PluginInfo, QueryFilter
from gossamer.search.query_build import QueryContext


class _FieldFilter(QueryFilter):
    def __init__(self, settings: Settings) -> None:
        self.settings = settings


class SiteQueryFilter(_FieldFilter):
    """site: (exact host) and host: (words of the host name, in order)."""

    fields = ("site", "host")

    def translate(self, clause: Clause, ctx: QueryContext) -> Any | None:
        if clause.kind != "raw" or clause.field not in ctx.field_names:
            return None
        if clause.field == "site":
            return ctx.raw("site", clause.raw or "")
        terms = ctx.tokens([clause.raw or ""])
        return ctx.filter(ctx.phrase("host", terms)) if terms else None


class UrlQueryFilter(_FieldFilter):
    """url: (exact URL or token sequence)."""

    fields = ("url",)

    def translate(self, clause: Clause, ctx: QueryContext) -> Any | None:
        options = []
        if clause.kind == "raw" and clause.raw:
            options.append(tantivy.Query.term_query(ctx.schema, "id", clause.raw))
        terms = ctx.tokens(clause.tokens)
        if terms and "url" in ctx.field_names:
            options.append(ctx.phrase("url", terms))
        return ctx.filter(ctx.any_of(options)) if options else None


TYPE_SHORTCUTS = {"text": "text/plain", "xhtml": "application/xhtml+xml"}


class MoreQueryFilter(_FieldFilter):
    """type: (MIME type or part) and date: (day range)."""

    fields = ("type", "date")

    def translate(self, clause: Clause, ctx: QueryContext) -> Any | None:
        if clause.kind == "raw" and clause.field == "type" and "type" in ctx.field_names:
            return ctx.raw("type", TYPE_SHORTCUTS.get(clause.raw or "", clause.raw or ""))
        if clause.kind == "date" and clause.date_range is not None and "date" in ctx.field_names:
            start, end = clause.date_range.start, clause.date_range.end
            low = _midnight(start) if start else dt.datetime(1, 1, 1, tzinfo=dt.UTC)
            high = _midnight(end + dt.timedelta(days=1)) if end else dt.datetime(9999, 12, 31, tzinfo=dt.UTC)
            return ctx.filter(tantivy.Query.range_query(ctx.schema, "date", tantivy.FieldType.Date, low, high,
                                                        include_lower=True, include_upper=False))
        return None


def _midnight(day: dt.date) -> dt.datetime:
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


class LangQueryFilter(_FieldFilter):
    """lang: (language code)."""

    fields = ("lang",)

    def translate(self, clause: Clause, ctx: QueryContext) -> Any | None:
        if clause.kind != "raw" or "lang" not in ctx.field_names:
            return None
        return ctx.raw("lang", clause.raw or "")


class FieldWordsQueryFilter(_FieldFilter):
    """The words of a clause, in order, in the one text field this filter handles (``fields[0]``)."""

    def translate(self, clause: Clause, ctx: QueryContext) -> Any | None:
        name = self.fields[0]
        if clause.field != name or name not in ctx.field_names:
            return None
        terms = ctx.tokens([clause.raw] if clause.kind == "raw" and clause.raw else clause.tokens)
        return ctx.filter(ctx.phrase(name, terms)) if terms else None


class CCQueryFilter(FieldWordsQueryFilter):
    """cc: (Creative Commons license features)."""

    fields = ("cc",)


class TagQueryFilter(FieldWordsQueryFilter):
    """tag: (rel-tag microformat tags)."""

    fields = ("tag",)


SITE_PLUGIN = PluginInfo(id="query-site", point="QueryFilter", factory=SiteQueryFilter,
                         description="site: — pages of one host; host: — words of the host name",
                         aliases=("SiteQueryFilter",))
URL_PLUGIN = PluginInfo(id="query-url", point="QueryFilter", factory=UrlQueryFilter,
                        description="url: — exact URL or words of the URL", aliases=("URLQueryFilter",))
MORE_PLUGIN = PluginInfo(id="query-more", point="QueryFilter", factory=MoreQueryFilter,
                         description="type: (MIME type or part), date: (YYYYMMDD-YYYYMMDD)",
                         aliases=("TypeQueryFilter", "DateQueryFilter"))
LANG_PLUGIN = PluginInfo(id="query-lang", point="QueryFilter", factory=LangQueryFilter,
                         description="lang: — pages in one language", aliases=("LanguageQueryFilter",))
CC_PLUGIN = PluginInfo(id="creativecommons-query", point="QueryFilter", factory=CCQueryFilter,
                       description="cc: — pages under a license (cc:by-sa, cc:nc, cc:4.0, cc:text)",
                       aliases=("org.creativecommons.nutch.CCQueryFilter", "CCQueryFilter"))
TAG_PLUGIN = PluginInfo(id="microformats-reltag-query", point="QueryFilter", factory=TagQueryFilter,
                        description="tag: — pages with a rel-tag", aliases=("RelTagQueryFilter",))
