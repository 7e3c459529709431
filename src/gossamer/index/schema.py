"""The full-text index's schema: the core fields plus the active indexing filters' fields.

Core fields are set by the index job itself, never by a filter:

===========  =====  ===============================================================
field        kind   meaning
===========  =====  ===============================================================
id           raw    the page URL, exactly (documents are replaced and deleted by it)
site_hash    int    fast: CRC-32 of the ``site`` value (grouping hits per site)
boost        float  fast: the static rank (ScoringFilter ``indexer_score``, OPIC score^0.5)
segment      raw    the segment the document was built from
digest       raw    the content signature (hex)
warc         raw    the WARC response record, ``<segment>/<file>:<offset>`` (stored only)
===========  =====  ===============================================================

Text fields are analysed by :data:`ANALYZER_NAME` (tantivy's ``default``: split on
every character that is not a letter or digit, drop tokens longer than 40 bytes,
lower-case); :func:`analyze` runs the same analyzer in Python, so queries are
tokenized exactly like documents.  The stemmed shadow fields (``*_stem_<language>``, see
:mod:`gossamer.index.analysis`) are indexed without positions, by their language's analyzer
(``stem_<language>``, registered on each opened index by
:func:`gossamer.index.analysis.register_analyzers`); the CJK shadow fields (``*_cjk``,
:mod:`gossamer.index.cjk`) with positions, by ``cjk``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from functools import cache

import tantivy

from gossamer.index.analysis import analyzer_name, is_stem_field, stem_language
from gossamer.index.cjk import CJK_ANALYZER, is_cjk_field
from gossamer.plugins import IndexField

ANALYZER_NAME = "default"
KINDS = ("text", "raw", "date", "int", "float", "json")

CORE_FIELDS: tuple[IndexField, ...] = (
    IndexField("id", "raw", description="the page URL, exactly"),
    IndexField("site_hash", "int", stored=False, fast=True, description="CRC-32 of site (hit grouping)"),
    IndexField("boost", "float", fast=True, description="static rank (crawldb score ^ indexer.score.power)"),
    IndexField("segment", "raw", description="segment the document was built from"),
    IndexField("digest", "raw", description="content signature, hex"),
    IndexField("warc", "raw", indexed=False, description="WARC response record: <segment>/<file>:<offset>"),
)
SCHEMA_FILE = "_schema.json"


class SchemaError(ValueError):
    """Two filters declare one field differently, or a field is malformed."""


def merge_fields(declared: Iterable[IndexField]) -> tuple[IndexField, ...]:
    """The core fields followed by every declared field (first declaration wins; a conflict raises)."""
    fields: dict[str, IndexField] = {f.name: f for f in CORE_FIELDS}
    for field in declared:
        if field.kind not in KINDS:
            raise SchemaError(f"field {field.name!r}: unknown kind {field.kind!r} (one of {', '.join(KINDS)})")
        if not tantivy.SchemaBuilder.is_valid_field_name(field.name):
            raise SchemaError(f"field {field.name!r}: not a valid field name")
        known = fields.get(field.name)
        if known is None:
            fields[field.name] = field
        elif (known.kind, known.stored, known.indexed, known.fast) != (field.kind, field.stored, field.indexed,
                                                                      field.fast):
            raise SchemaError(f"field {field.name!r} is declared twice, differently: {known} vs {field}")
    return tuple(fields.values())


def build_schema(fields: Sequence[IndexField]) -> tantivy.Schema:
    """The tantivy schema of ``fields``."""
    builder = tantivy.SchemaBuilder()
    for f in fields:
        if f.kind == "text":
            code = stem_language(f.name)
            tokenizer = CJK_ANALYZER if is_cjk_field(f.name) else ANALYZER_NAME if code is None else analyzer_name(code)
            builder.add_text_field(f.name, stored=f.stored, tokenizer_name=tokenizer,
                                   index_option="freq" if is_stem_field(f.name) else "position")
        elif f.kind == "raw":
            builder.add_text_field(f.name, stored=f.stored, tokenizer_name="raw", fast=f.fast, index_option="basic")
        elif f.kind == "date":
            builder.add_date_field(f.name, stored=f.stored, indexed=f.indexed, fast=f.fast)
        elif f.kind == "int":
            builder.add_integer_field(f.name, stored=f.stored, indexed=f.indexed, fast=f.fast)
        elif f.kind == "float":
            builder.add_float_field(f.name, stored=f.stored, indexed=f.indexed, fast=f.fast)
        else:
            builder.add_json_field(f.name, stored=f.stored, tokenizer_name=ANALYZER_NAME)
    return builder.build()


def fields_to_json(fields: Sequence[IndexField]) -> str:
    """Serialize a field list (written beside the shards as ``_schema.json``)."""
    return json.dumps([f.__dict__ for f in fields], indent=1)


def fields_from_json(text: str) -> tuple[IndexField, ...]:
    """Parse what :func:`fields_to_json` wrote."""
    return tuple(IndexField(**item) for item in json.loads(text))


@cache
def _analyzer() -> tantivy.TextAnalyzer:
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .build())


def analyze(text: str) -> list[str]:
    """The tokens tantivy's ``default`` analyzer makes of ``text`` (what text fields index)."""
    return _analyzer().analyze(text)
