"""Plugin ``language-identifier``: the page language as ``lang`` (after Nutch's language-identifier).

``lang.extraction.policy`` lists the sources in order: ``detect`` reads what the
page declares (the ``Content-Language`` header, ``<html lang>`` / ``dc.language``
meta when the parser kept them), ``identify`` runs py3langid on the first
``lang.analyze.max.length`` characters of title and text (its classification computed
with NumPy or in C, py3langid's languages: :mod:`~gossamer.plugins.builtin.langid_cache`).  With
``lang.identification.only.certain`` an identification below
:data:`CERTAIN_PROBABILITY` gives ``unknown``.  ``lang.index.languages``, when
set, keeps every other language out of the index.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from gossamer.core import Settings
from gossamer.plugins.api import IndexField, IndexingFilter, IndexInput
from gossamer.plugins.builtin.index_more import header
from gossamer.plugins.builtin.langid_cache import language_classifier
from gossamer.plugins.index_batch import IndexBatch
from gossamer.plugins.registry import PluginInfo

CERTAIN_PROBABILITY = 0.9
UNKNOWN = "unknown"
_CODE = re.compile(r"^[a-z]{2,3}")
DECLARED_KEYS = ("lang", "language", "dc.language", "content-language")


def declared_language(content_meta: Mapping[str, str], parse_meta: Mapping[str, str]) -> str | None:
    """The primary language code a page declares, or ``None``."""
    return declared_code([header(content_meta, "Content-Language")]
                         + [parse_meta.get(key, "") for key in DECLARED_KEYS])


def declared_code(values: list[str]) -> str | None:
    """The first language code of ``values`` (the Content-Language header, then :data:`DECLARED_KEYS`), or ``None``."""
    for value in values:
        match = _CODE.match(value.strip().lower())
        if match:
            return match.group(0)
    return None


class LanguageIndexingFilter(IndexingFilter):
    """lang: declared or identified language."""

    reads_inlink_sources = False

    fields = (IndexField("lang", "raw", description="language code (ISO 639-1) or 'unknown'"),)

    def __init__(self, settings: Settings) -> None:
        self.policy = [p.strip().lower() for p in settings.get_list("lang.extraction.policy")]
        self.max_length = settings.get_int("lang.analyze.max.length")
        self.only_certain = settings.get_bool("lang.identification.only.certain")
        self.allowed = {code.strip().lower() for code in settings.get_list("lang.index.languages")}

    def sample(self, title: str, text: str) -> str:
        """``title`` and ``text`` joined by a space, without copying more of ``text`` than :meth:`identify` reads."""
        return f"{title} {text[: self.max_length] if self.max_length > 0 else text}"

    def identify(self, text: str) -> str:
        """py3langid's language of ``text`` (``unknown`` for empty or uncertain text)."""
        sample = text[: self.max_length] if self.max_length > 0 else text
        if not sample.strip():
            return UNKNOWN
        code, probability = language_classifier()(sample)
        if self.only_certain and probability < CERTAIN_PROBABILITY:
            return UNKNOWN
        return str(code)

    def filter(self, doc: dict[str, Any], page: IndexInput) -> dict[str, Any] | None:
        data = page.parse.data
        lang = self.language(lambda: declared_language(data.content_metadata, data.parse_metadata), data.title,
                             page.parse.text.text or "")
        if self.allowed and lang not in self.allowed:
            return None
        doc["lang"] = lang
        return doc

    def filter_batch(self, docs: list[dict[str, Any] | None], batch: IndexBatch) -> None:
        header_values = batch.header("Content-Language")
        keys = [batch.parse.values(key) for key in DECLARED_KEYS] if "detect" in self.policy else []
        for i, doc in enumerate(docs):
            if doc is not None:
                lang = self.language(lambda i=i: declared_code([header_values[i]] + [v[i] or "" for v in keys]),
                                     batch.titles[i], batch.texts[i])
                if self.allowed and lang not in self.allowed:
                    docs[i] = None
                else:
                    doc["lang"] = lang

    def language(self, declared: Callable[[], str | None], title: str, text: str) -> str:
        """The page's language by ``lang.extraction.policy`` (``declared()``: what it declares; ``unknown``: none)."""
        lang: str | None = None
        for source in self.policy:
            if source == "detect":
                lang = declared()
            elif source == "identify":
                lang = self.identify(self.sample(title, text))
            if lang and lang != UNKNOWN:
                break
        return lang or UNKNOWN


PLUGIN = PluginInfo(
    id="language-identifier",
    point="IndexingFilter",
    factory=LanguageIndexingFilter,
    description="lang: declared (Content-Language, meta) or identified (py3langid) language",
    aliases=("index-language", "org.apache.nutch.analysis.lang.LanguageIndexingFilter"),
)
