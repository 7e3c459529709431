"""CJK shadow fields: each ideograph and kana of a Chinese or Japanese page a token of its own.

The text fields' analyzer (:data:`gossamer.index.schema.ANALYZER_NAME`) splits text on what is not a letter or a
digit, which leaves a run of Chinese or Japanese — a whole clause, written without spaces — as one token, and
drops it when it is longer than 40 bytes (13 characters). So beside each field named by ``index.cjk.fields`` the
index has a shadow field ``<field>_cjk`` (not stored, with positions), tokenized by :data:`CJK_ANALYZER`: every
character of :data:`gossamer.core.cjk.CJK_CHARS` a token, every other run of letters and digits a word, lower-cased
— the query parser's own split (:func:`gossamer.search.query_parse.tokenize`), so a query's run of CJK
characters, which it makes a phrase of characters, matches in the shadow field as a phrase. A query with a CJK
character looks every one of its words up in the CJK shadow fields too (``Python编程`` is one token of the field
``content`` but two of ``content_cjk``); other queries never touch them. A page's text goes
there when its ``lang`` (the ``language-identifier`` filter's) is Chinese or Japanese (:data:`CJK_LANGUAGES`):
deciding by language costs nothing per page, where looking for CJK characters in every non-ASCII text cost
~60 µs a page (the doc web: +20 % of the index job's CPU). The regex tokenizer is ~3× slower than the simple
one, which is why only those pages go through it.
"""

from __future__ import annotations

from functools import cache

import tantivy

from gossamer.core import CJK_CHARS

CJK_SUFFIX = "_cjk"
CJK_ANALYZER = "cjk"
"""The name the CJK shadow fields' analyzer is registered under on an index."""
CJK_LANGUAGES = frozenset({"zh", "ja"})
"""Page languages (ISO 639-1, the first two letters of ``lang``) whose text goes to the CJK shadow fields."""
MAX_TOKEN = 40


def cjk_field(name: str) -> str:
    """The CJK shadow field of text field ``name``."""
    return name + CJK_SUFFIX


def is_cjk_field(name: str) -> bool:
    """Whether ``name`` is a CJK shadow field."""
    return name.endswith(CJK_SUFFIX) and len(name) > len(CJK_SUFFIX)


def is_cjk_language(lang: object) -> bool:
    """Whether a page whose ``lang`` field is ``lang`` (``zh``, ``zh-TW``, ``ja`` …) goes to the CJK shadow fields."""
    return isinstance(lang, str) and lang[:2].lower() in CJK_LANGUAGES


@cache
def cjk_analyzer() -> tantivy.TextAnalyzer:
    """The CJK shadow fields' analyzer: one token per CJK character, else runs of letters and digits, lower case."""
    words = rf"[[\p{{Alphabetic}}\p{{N}}]&&[^{CJK_CHARS}]]+"
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(rf"[{CJK_CHARS}]|{words}"))
            .filter(tantivy.Filter.remove_long(MAX_TOKEN))
            .filter(tantivy.Filter.lowercase())
            .build())


def cjk_tokens(text: str) -> list[str]:
    """The tokens a CJK shadow field makes of ``text``."""
    return cjk_analyzer().analyze(text)


__all__ = ["CJK_ANALYZER", "CJK_LANGUAGES", "cjk_analyzer", "cjk_field", "cjk_tokens", "is_cjk_field",
           "is_cjk_language"]
