"""Vectorized screens over an Arrow column of URLs: which URLs certainly pass a check unchanged.

A plugin's per-URL method (``normalize``, ``filter``) stays the definition; a screen only
finds, with one or two RE2 passes over the whole column (``pyarrow.compute``), the URLs for
which the answer is known without calling it, so a batch job skips Python for them.  The
contract of every mask here: **true only where the per-URL answer is certainly "unchanged"
(or "valid")**; false means "not known", and the caller runs the per-URL code.

* :func:`screened` — a URL passes when it fully matches a *shape* and no *trouble* pattern is
  found in it; the URLs that fit the shape but show trouble may be re-checked one by one by an
  exact predicate (cheaper than the full per-URL path when few are flagged).
* :func:`term_re2` / :func:`pattern_screen` — RE2 forms of the regex prefilter terms
  (:mod:`gossamer.plugins.support.regexprefilter`): found in every string the regex is found in.
* :func:`valid_url_mask` — true only where :func:`gossamer.core.url_problem` is ``None``.

RE2 (Arrow's regex engine) differs from Python's ``re``; every pattern here is written so that
the difference can only make a mask *more* conservative (e.g. RE2's Unicode case folding finds
more under ``(?i)`` than ``re.ASCII`` does; ``$`` is the end of the text, so ``\\n?$`` is spelt out).
pyarrow is imported by the functions that use it: a process that only builds plugins (the parse
worker) does not load it (~0.13 s of CPU with numpy).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

from gossamer.core import MAX_URL_LENGTH
from gossamer.plugins.support.regexprefilter import Term, prefilter_terms

if TYPE_CHECKING:
    import pyarrow as pa

_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_SPECIAL_SCHEMES = ("http", "https", "ftp")

LINE_TERMINATORS_ONLY = "^[\\n\\r\\x{85}\\x{2028}\\x{2029}]*$"
"""Found only in strings in which a Java (or Python) ``.`` matches nowhere (empty ones included)."""

_HOST = r"(?:[a-z0-9-]+\.)*[a-z][a-z0-9-]*"
"""Lower-case ASCII DNS names whose last label starts with a letter (never parsed as IPv4)."""


PORT = "(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
"""RE2 for a TCP port 1–65535 written without leading zeros."""


def number_except(excluded: int, digits: int = 5) -> str:
    """RE2 for a decimal number of 1–``digits`` digits without leading zeros, other than ``excluded``."""
    text = str(excluded)
    options = [f"[1-9][0-9]{{{n - 1}}}" for n in range(1, digits + 1) if n != len(text)]
    for i, digit in enumerate(text):
        others = "".join(d for d in "0123456789" if d != digit and (i or d != "0"))
        options.append(f"{text[:i]}[{others}][0-9]{{{len(text) - i - 1}}}")
    return "(?:" + "|".join(options) + ")"


def re2_literal(text: str) -> str:
    """``text`` as an RE2 pattern matching exactly it (everything but ASCII letters and digits escaped)."""
    return "".join(ch if ch in _SAFE else f"\\x{{{ord(ch):x}}}" for ch in text)


def term_re2(term: Term) -> str:
    """An RE2 pattern found in exactly the strings where ``term`` holds (a superset under ``fold``)."""
    text = term.options[0]
    if term.kind == "start":
        return "^" + re2_literal(text)
    if term.kind == "end":
        return "[" + "".join(map(re2_literal, text)) + "]\\n?$"
    if term.kind == "guarded":
        return f"(?:^|[^{re2_literal(term.other)}]){re2_literal(text)}"
    alternatives = "|".join(map(re2_literal, term.options))
    return f"(?i:{alternatives})" if term.fold else f"(?:{alternatives})"


def pattern_screen(pattern: re.Pattern[str]) -> str | None:
    """An RE2 pattern found in every string ``pattern.search`` matches (its first prefilter term).

    ``None`` when no necessary condition is known (then every string must be checked).
    """
    terms = prefilter_terms(pattern)
    return None if not terms else term_re2(terms[0])


def any_of(patterns: Sequence[str]) -> str:
    """One RE2 pattern found wherever one of ``patterns`` is (a single pass over the column)."""
    return "|".join(f"(?:{p})" for p in patterns)


def all_true(length: int) -> pa.BooleanArray:
    """A mask of ``length`` true values."""
    import pyarrow as pa

    return pa.repeat(pa.scalar(True), length)


def screened(
    urls: pa.Array, shape: str | None, trouble: str | None, exact: Callable[[str], bool] | None = None,
) -> pa.BooleanArray:
    """True where a URL fully matches ``shape`` (RE2, anchored by the caller) and ``trouble`` is not found.

    ``exact(url)`` — true when the URL certainly passes — re-decides, one by one, the URLs that fit
    the shape but show trouble.  ``None`` for either pattern skips that test.  Null URLs are false.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    mask = all_true(len(urls)) if shape is None else _found(urls, shape, otherwise=False)
    if trouble is not None:
        flagged = _found(urls, trouble, otherwise=True)
        if exact is not None:
            recheck = pc.and_(mask, flagged)
            positions = pc.indices_nonzero(recheck)
            if len(positions):
                passed = [exact(url) for url in urls.take(positions).to_pylist()]
                flagged = pc.replace_with_mask(flagged, recheck, pa.array([not p for p in passed], pa.bool_()))
        mask = pc.and_(mask, pc.invert(flagged))
    return pc.fill_null(mask, False)


def _found(urls: pa.Array, pattern: str, otherwise: bool) -> pa.BooleanArray:
    """Where RE2 finds ``pattern``; ``otherwise`` everywhere if RE2 refuses it (e.g. too large)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.match_substring_regex(urls, pattern)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return pa.repeat(pa.scalar(otherwise), len(urls))


def valid_url_mask(urls: pa.Array, schemes: Collection[str]) -> pa.BooleanArray:
    """True only where ``url_problem(url, schemes)`` is ``None`` (see the module docstring).

    Screened: http/https/ftp URLs (those of them in ``schemes``) of printable ASCII without user
    info, whose host is a lower-case DNS name not ending in a numeric label and without ``xn--``
    labels (which WHATWG parsing could reject), with at most a port in 1–65535, at most
    ``MAX_URL_LENGTH`` long.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    accepted = [s for s in _SPECIAL_SCHEMES if s in schemes]
    if not accepted or not len(urls):
        return pa.repeat(pa.scalar(False), len(urls))
    shape = f"^(?:{'|'.join(accepted)})://{_HOST}(?::{PORT})?(?:[/?][!-~]*)?$"
    short = pc.less_equal(pc.binary_length(urls), MAX_URL_LENGTH)
    return pc.fill_null(pc.and_(short, screened(urls, shape, "xn--")), False)
