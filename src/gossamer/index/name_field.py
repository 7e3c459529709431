"""Plugin ``index-name``: the names a page goes by, for known-item search (the ``name`` field).

Someone who types a page's name (``xml.dom``, ``HashMap``, ``CREATE TABLE``, ``gen_server``)
wants that page, not the pages that mention the name most.  A page's *names* are:

* each segment of its title, cut at the usual separators (`` — ``, `` – ``, `` - ``, `` -- ``,
  `` | ``, `` · ``, `` :: `` and brackets: ``HashMap (Java SE 17 & JDK 17)`` → ``HashMap``,
  ``Java SE 17 & JDK 17``), and the whole title;
* the file name of its URL without the extension, and that name's last dot-separated part
  (``…/struct.Command.html`` → ``struct.Command``, ``Command``); never ``index``/``default``.

Only names of at most :data:`MAX_NAME_TOKENS` words are kept.  Each is indexed twice in the raw
``name`` field: folded (:data:`FOLDED` + its index tokens joined by single spaces, ``~xml dom``) and
as written (:data:`EXACT` + its text with white space collapsed, ``=xml.dom``).  The search side
(:mod:`gossamer.search.name_match`) multiplies the score of a page one of whose names *is* the
whole query (``query.name.boost``, and ``query.name.exact.boost`` more when the case and
punctuation match too).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote, urlsplit

from gossamer.core import Settings
from gossamer.index.schema import analyze
from gossamer.plugins import IndexBatch, IndexField, IndexingFilter, IndexInput, PluginInfo

FOLDED, EXACT = "~", "="
"""Prefixes of the two forms of a name in the ``name`` field."""
MAX_NAME_TOKENS = 8
MAX_NAMES = 16
TITLE_SEPARATORS = re.compile(r"\s+(?:—|–|-{1,2}|\||·|::)\s+|[()\[\]]")
GENERIC_STEMS = frozenset({"index", "default", "main", "home"})


def exact_key(text: str) -> str:
    """The as-written form of a name or query: white space collapsed."""
    return EXACT + " ".join(text.split())


def folded_key(tokens: list[str] | tuple[str, ...]) -> str:
    """The folded form of a name or query, from its index tokens."""
    return FOLDED + " ".join(tokens)


def name_candidates(title: str, url: str) -> list[str]:
    """The page's names as written (see the module docstring), first occurrences in order."""
    names = [part.strip() for part in TITLE_SEPARATORS.split(title)]
    names.append(title.strip())
    try:
        path = unquote(urlsplit(url).path)
    except ValueError:
        path = ""
    file_name = path.rsplit("/", 1)[-1]
    stem = file_name.rsplit(".", 1)[0] if "." in file_name else file_name
    if stem and stem.lower() not in GENERIC_STEMS:
        names += [stem, stem.rsplit(".", 1)[-1]]
    return list(dict.fromkeys(n for n in names if n))


def page_name_keys(title: str, url: str) -> list[str]:
    """The ``name`` field's values of a page: each name folded and as written (at most :data:`MAX_NAMES`)."""
    keys: dict[str, None] = {}
    for name in name_candidates(title, url):
        tokens = analyze(name)
        if 0 < len(tokens) <= MAX_NAME_TOKENS:
            keys[folded_key(tokens)] = None
            keys[exact_key(name)] = None
    return list(keys)[: 2 * MAX_NAMES]


class NameIndexingFilter(IndexingFilter):
    """``name``: the page's names, folded and as written (a raw field, not stored)."""

    reads_inlink_sources = False

    fields = (IndexField("name", "raw", stored=False, description="names of the page (title parts, file name)"),)

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        _fill(doc, page.parse.data.title or "", page.url)
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        for doc, title, url in zip(docs, batch.titles, batch.urls, strict=True):
            if doc is not None:
                _fill(doc, title, url)


def _fill(doc: dict[str, Any], title: str, url: str) -> None:
    keys = page_name_keys(title, url)
    if keys:
        doc["name"] = keys


PLUGIN = PluginInfo(
    id="index-name",
    point="IndexingFilter",
    factory=NameIndexingFilter,
    description="name: the page's names (title segments, URL file name) for known-item matching",
)
