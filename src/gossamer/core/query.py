"""The parsed form of a search query (see :mod:`gossamer.search.query_parse`).

A :class:`Query` is an immutable tuple of :class:`Clause` objects.  Every clause
has exactly one *kind*:

``"term"``
    One token, matched in the default fields (``field is None``) or in one
    tokenized text field (``title``, ``anchor``, ``content``, or a field a
    plugin registered).
``"phrase"``
    Two or more tokens that must occur in this order, adjacent (a quoted
    phrase, or a compound term such as ``foo-bar`` that the tokenizer split).
``"raw"``
    An untokenized, lower-cased value of a raw field (``site``, ``url``,
    ``type``, ``lang``, ``host``).  For ``url`` the clause also carries the
    value's tokens, because the index has a tokenized url field as well.
``"date"``
    A :class:`DateRange` on the ``date`` field.

Occurrence: ``required`` (``+``, must match), ``excluded`` (``-``, must not
match) or neither ("should").  A query without any ``+`` is meant to be read
as "all terms should match; documents matching more of them rank higher".
Nutch applied raw-field and date clauses as filters; a search engine consuming
this AST will usually do the same for non-excluded ``raw``/``date`` clauses.

``str(query)`` renders a canonical query string that
:func:`~gossamer.search.query_parse.parse_query` parses back to an equal
:class:`Query` (with the default field set, or any set containing the fields
used).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

ClauseKind = Literal["term", "phrase", "raw", "date"]

#: Fields whose clauses contribute to :meth:`Query.positive_terms` besides the
#: default field (``None``): the tokenized text fields shown in summaries.
HIGHLIGHT_FIELDS: frozenset[str] = frozenset({"title", "anchor", "content"})


@dataclass(frozen=True, slots=True)
class DateRange:
    """A range of calendar days; ``None`` means open on that side.

    Contract: at least one bound is set, and ``start <= end`` when both are.
    ``inclusive`` is always ``True`` for ranges produced by the parser (both
    bounds are days that belong to the range, as in Nutch's ``date:`` field).
    """

    start: dt.date | None
    end: dt.date | None
    inclusive: bool = True

    def __post_init__(self) -> None:
        if self.start is None and self.end is None:
            raise ValueError("a DateRange needs at least one bound")
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError(f"DateRange start {self.start} is after end {self.end}")

    def contains(self, day: dt.date) -> bool:
        """Whether ``day`` lies inside the range (bounds honour ``inclusive``)."""
        if self.start is not None and (day < self.start or (day == self.start and not self.inclusive)):
            return False
        return not (self.end is not None and (day > self.end or (day == self.end and not self.inclusive)))

    def __str__(self) -> str:
        """The canonical ``YYYYMMDD-YYYYMMDD`` form (an open side is empty)."""
        return f"{_fmt_day(self.start)}-{_fmt_day(self.end)}"


def _fmt_day(day: dt.date | None) -> str:
    return "" if day is None else f"{day.year:04d}{day.month:02d}{day.day:02d}"


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a query.

    Invariants (checked on construction, ``ValueError`` otherwise):

    * ``required`` and ``excluded`` are not both set;
    * ``term``: exactly one token, ``raw``/``date_range`` are ``None``;
    * ``phrase``: at least two tokens, ``raw``/``date_range`` are ``None``;
    * ``raw``: ``field`` and ``raw`` are set (non-empty), ``date_range`` is ``None``;
    * ``date``: ``field`` and ``date_range`` are set, no tokens, ``raw`` is ``None``.
    """

    kind: ClauseKind
    field: str | None = None
    tokens: tuple[str, ...] = ()
    raw: str | None = None
    date_range: DateRange | None = None
    required: bool = False
    excluded: bool = False

    def __post_init__(self) -> None:
        if self.required and self.excluded:
            raise ValueError("a clause cannot be both required and excluded")
        kind = self.kind
        if kind in ("term", "phrase"):
            want = 1 if kind == "term" else 2
            ok = (len(self.tokens) == want if kind == "term" else len(self.tokens) >= want) and all(self.tokens)
            if not ok or self.raw is not None or self.date_range is not None:
                raise ValueError(f"malformed {kind} clause: {self!r}")
        elif kind == "raw":
            if not self.field or not self.raw or self.date_range is not None:
                raise ValueError(f"malformed raw clause: {self!r}")
        elif kind == "date":
            if not self.field or self.date_range is None or self.tokens or self.raw is not None:
                raise ValueError(f"malformed date clause: {self!r}")
        else:
            raise ValueError(f"unknown clause kind {kind!r}")

    @property
    def occur(self) -> Literal["must", "must_not", "should"]:
        """``"must"`` for ``+``, ``"must_not"`` for ``-``, else ``"should"``."""
        return "must" if self.required else "must_not" if self.excluded else "should"

    def __str__(self) -> str:
        """Canonical text: operator, ``field:`` prefix, then the value."""
        sign = "+" if self.required else "-" if self.excluded else ""
        prefix = f"{self.field}:" if self.field else ""
        if self.kind == "term":
            # Quote terms of other fields: ``url:"x"`` is a token match, ``url:x`` a raw one.
            body = self.tokens[0] if self.field is None or self.field in HIGHLIGHT_FIELDS else f'"{self.tokens[0]}"'
        elif self.kind == "phrase":
            body = '"' + " ".join(self.tokens) + '"'
        elif self.kind == "raw":
            body = self.raw or ""
        else:
            body = str(self.date_range)
        return f"{sign}{prefix}{body}"


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: clauses in the order they were written.

    The parser guarantees at least one clause that is not excluded; the
    dataclass itself does not enforce it (so tools may build partial queries).
    """

    clauses: tuple[Clause, ...]

    def __str__(self) -> str:
        """The canonical query string (clauses joined by single spaces)."""
        return " ".join(str(clause) for clause in self.clauses)

    def positive_terms(self) -> tuple[str, ...]:
        """Distinct tokens of non-excluded ``term``/``phrase`` clauses, in query order.

        Only clauses on the default field or on a :data:`HIGHLIGHT_FIELDS`
        field count; this is the set of words to highlight in summaries.
        """
        seen: dict[str, None] = {}
        for clause in self.clauses:
            if clause.excluded or clause.kind not in ("term", "phrase"):
                continue
            if clause.field is None or clause.field in HIGHLIGHT_FIELDS:
                seen.update(dict.fromkeys(clause.tokens))
        return tuple(seen)

    def plain_tokens(self, allow_required: bool = True) -> tuple[str, ...] | None:
        """The tokens of a *plain* query, in query order; ``None`` for any other query.

        Plain: only ``term`` and ``phrase`` clauses on the default field, none excluded and,
        unless ``allow_required``, none written with ``+``.  What the semantic part embeds
        (``+`` allowed) and what name matching compares with page names (no ``+``: a
        required word is not a name).
        """
        tokens: list[str] = []
        for clause in self.clauses:
            if clause.kind not in ("term", "phrase") or clause.field or clause.excluded:
                return None
            if clause.required and not allow_required:
                return None
            tokens.extend(clause.tokens)
        return tuple(tokens)

    @property
    def required(self) -> tuple[Clause, ...]:
        """Clauses written with ``+``."""
        return tuple(c for c in self.clauses if c.required)

    @property
    def excluded(self) -> tuple[Clause, ...]:
        """Clauses written with ``-``."""
        return tuple(c for c in self.clauses if c.excluded)

    @property
    def optional(self) -> tuple[Clause, ...]:
        """Clauses written without an operator ("should" clauses)."""
        return tuple(c for c in self.clauses if not c.required and not c.excluded)

    @property
    def filters(self) -> tuple[Clause, ...]:
        """``raw`` and ``date`` clauses (whatever their operator)."""
        return tuple(c for c in self.clauses if c.kind in ("raw", "date"))
