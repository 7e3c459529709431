"""Parse the search query language into a :class:`~gossamer.core.query.Query`.

The language follows old Nutch's ``NutchAnalysis.jj`` (reference §9):

* A query is a sequence of clauses separated by whitespace (control characters
  count as whitespace).  A clause is an optional operator (``+`` required,
  ``-`` excluded; a run such as ``+-`` collapses, any ``-`` wins), an optional
  ``field:`` prefix and a value: a bare word (up to whitespace or ``"``) or a
  ``"quoted phrase"``.  A prefix is only a field when its name (matched
  case-insensitively) is in ``fields``; otherwise ``foo:bar`` is plain text.
* Plain text and text fields (``title``, ``anchor``, ``content``, plugin fields)
  are split by :func:`tokenize`: one token → a ``term`` clause, several (``foo-bar``,
  ``"two words"``) → a ``phrase`` clause, none (``!!``, ``""``) → dropped.
* Raw fields (``site``, ``url``, ``type``, ``lang``, ``host``) keep their value
  untokenized and lower-cased.  ``site:``/``host:`` also lose any scheme and
  trailing ``/``; ``lang:`` must be a 2-3 letter code; ``url:value`` carries
  the value's tokens too, while ``url:"..."`` is a tokenized term/phrase.
* ``date:`` takes ``YYYY[MM[DD]]`` (a whole year/month/day) or a range
  ``A-B`` of such values, either side optional (``date:20240101-``).

:func:`parse_query` raises :class:`QuerySyntaxError` (a ``ValueError``) for every
malformed input and never any other exception for a ``str`` argument.
"""

from __future__ import annotations

import calendar
import datetime as dt
import functools
import itertools
import re
import sys
import unicodedata
from collections.abc import Collection

from gossamer.core import CJK_CHARS, Clause, DateRange, Query

__all__ = ["DEFAULT_FIELDS", "RAW_FIELDS", "QuerySyntaxError", "parse_query", "tokenize"]

#: Query fields recognised by default (plugins may register more).
DEFAULT_FIELDS: frozenset[str] = frozenset(
    {"site", "url", "type", "lang", "date", "host", "title", "anchor", "content"}
)
#: Fields whose values are matched untokenized (lower-cased) rather than tokenized.
RAW_FIELDS: frozenset[str] = frozenset({"site", "url", "type", "lang", "host"})
DATE_FIELD = "date"


class QuerySyntaxError(ValueError):
    """A query the language does not accept.

    ``message`` is the human explanation; ``position`` is the 0-based offset in
    the query string where the problem is (``None`` when it concerns the whole
    query).  ``str(error)`` adds the 1-based column when a position is known.
    """

    def __init__(self, message: str, position: int | None = None) -> None:
        super().__init__(message if position is None else f"{message} (at column {position + 1})")
        self.message = message
        self.position = position


# --------------------------------------------------------------------------- tokenizer

# Characters that always form a token of their own (Nutch's SIGRAM): kana and CJK ideographs.
_CJK = CJK_CHARS


def _mark_class() -> str:
    """Regex class body for combining marks (category M*), which continue a word."""
    parts: list[str] = []
    start = prev = -1
    # Marks live in planes 0 and 1 and among the plane-14 variation selectors.
    for cp in itertools.chain(range(min(sys.maxunicode, 0x1FFFF) + 1), range(0xE0100, 0xE01F0), [-1]):
        if cp >= 0 and unicodedata.category(chr(cp)).startswith("M"):
            if start < 0:
                start = cp
            prev = cp
        elif start >= 0:
            parts.append(f"{chr(start)}-{chr(prev)}")
            start = -1
    return "".join(parts)


@functools.cache
def _token_re() -> re.Pattern[str]:
    """The tokenizer's pattern, built on first use.

    The mark class and its compilation take ~0.07 s, which every process that discovers the
    plugins (and so imports this module) would otherwise pay at import.
    """
    word = rf"(?:[^\W{_CJK}]|[{_mark_class()}])"
    return re.compile(
        rf"(?<![\w.])(?P<acronym>(?:[^\W\d_{_CJK}]\.){{2,}})(?!\w)"  # U.S.A. -> usa
        rf"|(?P<cjk>(?=\w)[{_CJK}])"  # one ideograph / kana per token
        rf"|(?P<word>[^\W{_CJK}]{word}*)"  # a run of letters, digits, _ (and marks)
    )


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case search tokens, as the query parser does.

    The text is NFKC-normalised and case-folded, then cut into runs of word
    characters (``\\w`` plus combining marks).  Acronyms written with dots
    (``U.S.A.``) become one token (``usa``); each CJK ideograph or kana
    character is a token by itself; everything else separates tokens.  The
    function is idempotent on its output: ``tokenize(t) == [t]`` for each token.
    """
    tokens: list[str] = []
    for match in _token_re().finditer(_fold(text)):
        acronym = match.group("acronym")
        tokens.append(acronym.replace(".", "") if acronym else match.group())
    return tokens


# --------------------------------------------------------------------------- parser

_FIELD_RE = re.compile(r"([A-Za-z][A-Za-z0-9_]*):")
_SCHEME_RE = re.compile(r"^[a-z][a-z0-9+.\-]*://")
_LANG_RE = re.compile(r"[a-z]{2,3}")
_DAY_RE = re.compile(r"[0-9]{4}(?:[0-9]{2}){0,2}")


def _is_sep(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch) == "Cc"


def _strip_sep(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _is_sep(text[start]):
        start += 1
    while end > start and _is_sep(text[end - 1]):
        end -= 1
    return text[start:end]


def _parse_day(value: str, field: str, position: int, *, end: bool) -> dt.date:
    """``YYYY``/``YYYYMM``/``YYYYMMDD`` → its first day (or last day when ``end``)."""
    if not _DAY_RE.fullmatch(value):
        raise QuerySyntaxError(f"{field}: expects YYYYMMDD, YYYYMM or YYYY, not {value!r}", position)
    year = int(value[:4])
    month = int(value[4:6]) if len(value) >= 6 else (12 if end else 1)
    try:
        if len(value) == 8:
            return dt.date(year, month, int(value[6:8]))
        return dt.date(year, month, calendar.monthrange(year, month)[1] if end else 1)
    except (ValueError, calendar.IllegalMonthError):
        raise QuerySyntaxError(f"{field}: invalid date {value!r}", position) from None


def _parse_date_range(value: str, field: str, position: int) -> DateRange:
    """Parse ``A``, ``A-B``, ``A-`` or ``-B`` into an inclusive :class:`DateRange`."""
    left, dash, right = value.partition("-")
    if not dash:
        right = left
    if not left and not right:
        raise QuerySyntaxError(f"{field}: a date range needs at least one bound", position)
    start = _parse_day(left, field, position, end=False) if left else None
    finish = _parse_day(right, field, position + len(left) + len(dash), end=True) if right else None
    if start is not None and finish is not None and start > finish:
        raise QuerySyntaxError(f"{field}: range starts after it ends ({value!r})", position)
    return DateRange(start, finish, inclusive=True)


def _raw_value(field: str, value: str, position: int) -> str:
    """Normalise a raw field value (lower-case; scheme/trailing ``/`` off site and host)."""
    value = value.lower()
    if field in ("site", "host"):
        previous = None
        while previous != value:
            previous = value
            value = _SCHEME_RE.sub("", value).rstrip("/")
    if not value:
        raise QuerySyntaxError(f"{field}: needs a value", position)
    if field == "lang" and not _LANG_RE.fullmatch(value):
        raise QuerySyntaxError(f"lang: expects a 2 or 3 letter language code, not {value!r}", position)
    return value


def _make_clause(
    field: str | None, value: str, quoted: bool, raw_fields: frozenset[str], position: int, **occur: bool
) -> Clause | None:
    """Build the clause for one ``field:value`` (``None`` when it yields no tokens)."""
    structured = field is not None and (field == DATE_FIELD or field in raw_fields)
    if structured and not (field == "url" and quoted):
        value = _strip_sep(value)
        if not value:
            raise QuerySyntaxError(f"{field}: needs a value", position)
        if any(_is_sep(ch) for ch in value):
            raise QuerySyntaxError(f"{field}: value cannot contain spaces", position)
        if field == DATE_FIELD:
            return Clause("date", field, date_range=_parse_date_range(value, field, position), **occur)
        raw = _raw_value(field, value, position)
        return Clause("raw", field, tuple(tokenize(raw)) if field == "url" else (), raw=raw, **occur)
    if field == "url" and not _strip_sep(value):
        raise QuerySyntaxError("url: needs a value", position)
    tokens = tuple(tokenize(value))
    if not tokens:
        return None
    return Clause("term" if len(tokens) == 1 else "phrase", field, tokens, **occur)


def parse_query(
    text: str,
    fields: Collection[str] = DEFAULT_FIELDS,
    max_length: int = 1024,
    max_clauses: int = 64,
    *,
    raw_fields: Collection[str] = RAW_FIELDS,
) -> Query:
    """Parse ``text`` into a :class:`Query` (see the module docstring for the language).

    ``fields`` are the recognised ``field:`` prefixes (lower-case names);
    ``raw_fields`` says which of them are matched untokenized (``date`` is
    always a date range).  The result has between 1 and ``max_clauses``
    clauses, at least one of them not excluded, and ``str(result)`` parses
    back to an equal query.

    Raises :class:`QuerySyntaxError` for: more than ``max_length`` characters,
    an unterminated quote, an empty value for a raw/date field, a bad date or
    language code, more than ``max_clauses`` clauses, nothing to search for,
    or only excluded clauses.
    """
    if len(text) > max_length:
        raise QuerySyntaxError(f"query is too long ({len(text)} characters, at most {max_length})", max_length)
    field_set = frozenset(name.lower() for name in fields)
    raw_set = frozenset(name.lower() for name in raw_fields)
    clauses: list[Clause] = []
    i, n = 0, len(text)
    while i < n:
        if _is_sep(text[i]):
            i += 1
            continue
        start = i
        required = excluded = False
        while i < n and text[i] in "+-":
            excluded = excluded or text[i] == "-"
            required = required or text[i] == "+"
            i += 1
        field = None
        match = _FIELD_RE.match(text, i)
        if match and match.group(1).lower() in field_set:
            field = match.group(1).lower()
            i = match.end()
        position = i
        if i < n and text[i] == '"':
            close = text.find('"', i + 1)
            if close < 0:
                raise QuerySyntaxError("unterminated quote: a phrase needs a closing '\"'", i)
            value, quoted, i = text[i + 1 : close], True, close + 1
        else:
            while i < n and not _is_sep(text[i]) and text[i] != '"':
                i += 1
            value, quoted = text[position:i], False
        clause = _make_clause(
            field, value, quoted, raw_set, position, required=required and not excluded, excluded=excluded
        )
        if clause is None:
            continue
        if len(clauses) >= max_clauses:
            raise QuerySyntaxError(f"too many clauses (at most {max_clauses})", start)
        clauses.append(clause)
    if not clauses:
        raise QuerySyntaxError("empty query: there is nothing to search for")
    if all(clause.excluded for clause in clauses):
        raise QuerySyntaxError("a query needs at least one term that is not excluded")
    return Query(tuple(clauses))
