"""Language-aware text analysis: stemmed, case- and accent-folded *shadow fields*.

The text fields (``title``, ``anchor``, ``content`` …) keep their exact analysis
(:func:`gossamer.index.schema.analyze`: split on non-alphanumerics, lower-case), so
the original form of a word is still matched exactly.  Beside each field named
by ``index.analysis.fields`` the index writes ``<field>_stem``: the same text
split the same way, lower-cased, reduced by the Snowball stemmer of the page's
language and folded to ASCII (``cafés`` → ``cafe``) (the ``lang`` field the
``language-identifier`` filter sets; ``index.analysis.default.language`` for a
page whose language is unknown or has no stemmer).  The search side stems query
words with the same analyzers (``query.stem.languages``) and scores matches in
the shadow fields with a lower boost (``query.stem.boost``), so an exact match
always scores above a stemmed-only one.

Stemming runs in tantivy (its Snowball ``Filter.stemmer``); the stemmed tokens
are written joined by spaces, which the field's ``default`` analyzer splits
back into exactly those tokens.  The shadow fields are indexed with term
frequencies but no positions (they never take part in phrases) and not stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

import tantivy

from gossamer.core import Settings
from gossamer.plugins import IndexField

STEM_SUFFIX = "_stem"
MAX_TOKEN = 40
STEMMERS = {
    "ar": "arabic", "da": "danish", "de": "german", "el": "greek", "en": "english", "es": "spanish",
    "fi": "finnish", "fr": "french", "hu": "hungarian", "it": "italian", "nl": "dutch", "no": "norwegian",
    "nb": "norwegian", "nn": "norwegian", "pt": "portuguese", "ro": "romanian", "ru": "russian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish",
}
"""ISO 639-1 code → the Snowball stemmer tantivy has for it."""


def stem_field(name: str) -> str:
    """The shadow field of text field ``name``."""
    return name + STEM_SUFFIX


def is_stem_field(name: str) -> bool:
    """Whether ``name`` is a shadow field (indexed without positions)."""
    return name.endswith(STEM_SUFFIX)


@cache
def _analyzer(language: str | None) -> tantivy.TextAnalyzer:
    builder = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
               .filter(tantivy.Filter.remove_long(MAX_TOKEN))
               .filter(tantivy.Filter.lowercase()))
    if language is not None:
        builder = builder.filter(tantivy.Filter.stemmer(language))
    return builder.filter(tantivy.Filter.ascii_fold()).build()


def stemmer_of(code: str | None, default: str | None = None) -> str | None:
    """The stemmer name for language ``code`` (``None``: folding only), else for ``default``."""
    for candidate in (code, default):
        if candidate:
            name = STEMMERS.get(candidate.strip().lower()[:2])
            if name is not None:
                return name
    return None


def stem_tokens(text: str, code: str | None, default: str | None = None) -> list[str]:
    """The shadow-field tokens of ``text`` for a page (or query) in language ``code``."""
    return _analyzer(stemmer_of(code, default)).analyze(text)


def query_stems(token: str, codes: Sequence[str]) -> list[str]:
    """The distinct shadow-field forms of one query token under each language of ``codes`` (in order)."""
    found: dict[str, None] = {}
    for code in codes or ("",):
        found.update(dict.fromkeys(stem_tokens(token, code)))
    return list(found)


class Analysis:
    """Which text fields get shadow fields, and how a document's shadow values are made."""

    def __init__(self, settings: Settings) -> None:
        self.fields = tuple(name for name in settings.get_list("index.analysis.fields") if name)
        self.default = settings.get_str("index.analysis.default.language").strip().lower() or None

    def shadow_fields(self, declared: Iterable[IndexField]) -> list[IndexField]:
        """A shadow field for each declared text field named by ``index.analysis.fields``."""
        return [IndexField(stem_field(f.name), "text", stored=False,
                           description=f"{f.name}: stemmed and folded by the page's language")
                for f in declared if f.kind == "text" and f.name in self.fields]

    def apply(self, doc: dict[str, Any]) -> dict[str, Any]:
        """``doc`` with the shadow value of each analysed field it has (a list stays a list)."""
        if not self.fields:
            return doc
        lang = doc.get("lang")
        code = lang if isinstance(lang, str) else None
        for name in self.fields:
            value = doc.get(name)
            if isinstance(value, str):
                doc[stem_field(name)] = " ".join(stem_tokens(value, code, self.default))
            elif isinstance(value, list):
                doc[stem_field(name)] = [" ".join(stem_tokens(v, code, self.default))
                                         for v in value if isinstance(v, str)]
        return doc
