"""Language-aware text analysis: stemmed, case- and accent-folded *shadow fields*, one per language.

The text fields (``title``, ``anchor``, ``content`` …) keep their exact analysis
(:func:`gossamer.index.schema.analyze`: split on non-alphanumerics, lower-case), so
the original form of a word is still matched exactly.  Beside each field named
by ``index.analysis.fields`` the index has one shadow field per language of
``index.analysis.languages`` (``content_stem_en``, ``content_stem_de`` …).  A page's
text goes, as it is, into the shadow field of its language (the ``lang`` field
the ``language-identifier`` filter sets; a language that is not listed, or
unknown, counts as ``index.analysis.default.language``; when that is empty too
the page gets no shadow value).  The shadow field's tokenizer (registered on
the index as ``stem_<code>``, :func:`register_analyzers`) splits the text like
the exact fields, lower-cases it, reduces it by that language's Snowball stemmer
and folds it to ASCII (``cafés`` → ``cafe``): stemming runs inside tantivy, with
no Python work per token.  The search side stems a query word with the analyzer
of each language of ``query.stem.languages`` and looks it up in that language's
shadow field, with a lower boost (``query.stem.boost``), so an exact match
always scores above a stemmed-only one.  Shadow fields are indexed with term
frequencies but no positions (they never take part in phrases) and not stored.

Indexes written before 2026-11-27 have one shadow field per text field
(``content_stem``, the stems joined by spaces); the search side still matches in
those (:func:`shadow_terms`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from functools import cache, lru_cache
from typing import Any

import tantivy

from gossamer.core import Settings
from gossamer.index.cjk import CJK_ANALYZER, cjk_analyzer, cjk_field, is_cjk_field, is_cjk_language
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
CANONICAL = {"nb": "no", "nn": "no"}
"""Codes that share another code's stemmer, and so its shadow field."""


def stem_field(name: str, code: str | None = None) -> str:
    """The shadow field of text field ``name`` for language ``code`` (``None``: the pre-2026-11-27 form)."""
    return name + STEM_SUFFIX + (f"_{code}" if code else "")


def stem_language(name: str) -> str | None:
    """The language code of shadow field ``name`` (``content_stem_en`` → ``en``), else ``None``."""
    base, sep, code = name.rpartition(STEM_SUFFIX + "_")
    return code if sep and base and code in STEMMERS else None


def is_stem_field(name: str) -> bool:
    """Whether ``name`` is a shadow field (indexed without positions)."""
    return name.endswith(STEM_SUFFIX) or stem_language(name) is not None


def analyzer_name(code: str) -> str:
    """The name the shadow fields of language ``code`` are tokenized by."""
    return f"stem_{code}"


def code_of(code: str | None) -> str | None:
    """The canonical code (``nb`` → ``no``) of a language code or tag (``en-GB``), if it has a stemmer."""
    if not code:
        return None
    short = code.strip().lower()[:2]
    return CANONICAL.get(short, short) if short in STEMMERS else None


@cache
def _analyzer(language: str | None) -> tantivy.TextAnalyzer:
    builder = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
               .filter(tantivy.Filter.remove_long(MAX_TOKEN))
               .filter(tantivy.Filter.lowercase()))
    if language is not None:
        builder = builder.filter(tantivy.Filter.stemmer(language))
    return builder.filter(tantivy.Filter.ascii_fold()).build()


def register_analyzers(index: tantivy.Index, field_names: Iterable[str]) -> None:
    """Register on ``index`` the analyzers its shadow fields ``field_names`` are tokenized by.

    The analyzer of every language some stemmed shadow field has, and the CJK analyzer when there is a CJK
    shadow field (:mod:`gossamer.index.cjk`). Needed before a writer adds documents (tantivy looks tokenizers
    up by name).
    """
    names = list(field_names)
    for code in sorted({c for c in map(stem_language, names) if c is not None}):
        index.register_tokenizer(analyzer_name(code), _analyzer(STEMMERS[code]))
    if any(map(is_cjk_field, names)):
        index.register_tokenizer(CJK_ANALYZER, cjk_analyzer())


def stemmer_of(code: str | None, default: str | None = None) -> str | None:
    """The stemmer name for language ``code`` (``None``: folding only), else for ``default``."""
    for candidate in (code, default):
        found = code_of(candidate)
        if found is not None:
            return STEMMERS[found]
    return None


def stem_tokens(text: str, code: str | None, default: str | None = None) -> list[str]:
    """The shadow-field tokens of ``text`` for a page (or query) in language ``code``."""
    return _analyzer(stemmer_of(code, default)).analyze(text)


def query_stems(token: str, codes: Sequence[str]) -> list[str]:
    """The distinct stemmed forms of one query token under each language of ``codes`` (in order)."""
    found: dict[str, None] = {}
    for code in codes or ("",):
        found.update(dict.fromkeys(stem_tokens(token, code)))
    return list(found)


@lru_cache(maxsize=1 << 16)
def _shadow_terms(field_name: str, token: str, codes: tuple[str, ...],
                  field_names: frozenset[str]) -> tuple[tuple[str, str], ...]:
    old = stem_field(field_name)
    if old in field_names:
        return tuple((old, stem) for stem in query_stems(token, codes))
    found: dict[tuple[str, str], None] = {}
    for code in filter(None, map(code_of, codes)):
        shadow = stem_field(field_name, code)
        if shadow in field_names:
            found.update(((shadow, stem), None) for stem in stem_tokens(token, code))
    return tuple(found)


def shadow_terms(field_name: str, token: str, codes: Sequence[str],
                 field_names: Collection[str]) -> tuple[tuple[str, str], ...]:
    """The (shadow field, stem) pairs a query token of ``field_name`` is looked up as, for languages ``codes``.

    An index with per-language shadow fields: the token stemmed by each language, in that
    language's field (a language without a field is skipped).  An index of the old form
    (``<field>_stem``): every language's stems, in that one field.  Nothing when the index has
    neither.
    """
    return _shadow_terms(field_name, token, tuple(codes), frozenset(field_names))


class Analysis:
    """Which text fields get shadow fields in which languages, and which shadow field a page's text goes to.

    Also the CJK shadow fields (``index.cjk.fields``, :mod:`gossamer.index.cjk`): a Chinese or Japanese page's
    text goes there too, whatever its stemmed shadow fields.
    """

    def __init__(self, settings: Settings) -> None:
        self.cjk_fields = tuple(name for name in settings.get_list("index.cjk.fields") if name)
        self.fields = tuple(name for name in settings.get_list("index.analysis.fields") if name)
        self.default = code_of(settings.get_str("index.analysis.default.language"))
        listed = [code_of(code) for code in settings.get_list("index.analysis.languages")]
        self.languages = tuple(dict.fromkeys(c for c in [*listed, self.default] if c is not None))

    def shadow_fields(self, declared: Iterable[IndexField]) -> list[IndexField]:
        """The shadow fields of the ``declared`` fields.

        A shadow field per language for each declared text field named by ``index.analysis.fields``, and a CJK
        shadow field for each one named by ``index.cjk.fields``.
        """
        texts = [f for f in declared if f.kind == "text"]
        return [*(IndexField(stem_field(f.name, code), "text", stored=False,
                             description=f"{f.name}: stemmed ({code}) and folded")
                  for f in texts if f.name in self.fields for code in self.languages),
                *(IndexField(cjk_field(f.name), "text", stored=False,
                             description=f"{f.name}: one token per CJK character (Chinese and Japanese pages)")
                  for f in texts if f.name in self.cjk_fields)]

    def language(self, lang: Any) -> str | None:
        """The shadow-field language of a page whose ``lang`` field is ``lang``."""
        code = code_of(lang) if isinstance(lang, str) else None
        return code if code in self.languages else self.default

    def apply(self, doc: dict[str, Any]) -> dict[str, Any]:
        """``doc`` with each analysed field's text also in its language's shadow field (a list stays a list).

        A Chinese or Japanese page's texts also go to the CJK shadow fields.
        """
        if self.cjk_fields and is_cjk_language(doc.get("lang")):
            _copy(doc, self.cjk_fields, cjk_field)
        if not self.fields:
            return doc
        code = self.language(doc.get("lang"))
        if code is not None:
            _copy(doc, self.fields, lambda name: stem_field(name, code))
        return doc


def _copy(doc: dict[str, Any], names: Sequence[str], shadow: Callable[[str], str]) -> None:
    """Each text of ``doc``'s fields ``names`` also in field ``shadow(name)`` (a list's strings as a list)."""
    for name in names:
        value = doc.get(name)
        if isinstance(value, str):
            doc[shadow(name)] = value
        elif isinstance(value, list):
            doc[shadow(name)] = [v for v in value if isinstance(v, str)]
