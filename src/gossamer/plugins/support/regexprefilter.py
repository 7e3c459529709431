"""Cheap necessary conditions for a regex to match: skip ``re.sub`` on strings it cannot touch.

:func:`prefilter` reads a compiled pattern's syntax tree and derives checks
that every string the pattern can match somewhere must pass:

* literal runs the match must contain (``&{2,}`` → ``"&&" in s``), with
  alternatives as "any of" (``(sid|phpsessid)`` → ``"sid" in s or "phpsessid" in s``),
  compared on the lowercased string under ``(?i)`` (ASCII literals only);
* ``^literal`` → ``s.startswith(literal)``;
* ``[set]$`` / ``c$`` → the last character (or the one before a final ``\\n``) is in the set;
* ``(?<!c)literal`` → an occurrence of the literal not preceded by ``c``.

The result is ``None`` when nothing useful is found (then always run the regex)
or a function ``str -> bool`` that is ``False`` only when the pattern cannot
match.  It is only ever a shortcut: a ``True`` answer still runs the regex.
Anything unexpected in the tree makes the analysis give up on that part.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

try:  # the parser behind ``re`` (private but stable; the analysis is optional)
    from re import _constants as _c
    from re import _parser as _p
except ImportError:  # pragma: no cover - other Python versions
    _c = _p = None  # type: ignore[assignment]

def _literal_run(items: list) -> tuple[list[str], list[tuple[str, int | None]]]:
    """Required literal runs of a sequence and ``(run, lookbehind char)`` pairs."""
    runs: list[str] = []
    guarded: list[tuple[str, int | None]] = []
    current: list[str] = []
    guard: int | None = None

    def flush() -> None:
        nonlocal guard
        if current:
            runs.append("".join(current))
            guarded.append(("".join(current), guard))
        current.clear()
        guard = None

    for op, av in items:
        if op is _c.LITERAL:
            current.append(chr(av))
            continue
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and len(av[2]) == 1 and av[2][0][0] is _c.LITERAL and av[0] >= 1:
            current.append(chr(av[2][0][1]) * av[0])
            if av[0] != av[1]:
                flush()
            continue
        flush()
        if op is _c.ASSERT_NOT and av[0] == -1 and len(av[1]) == 1 and av[1][0][0] is _c.LITERAL:
            guard = av[1][0][1]
    flush()
    return runs, guarded


def _clauses(items: list, ignore_case: bool, classes: bool = False) -> list[tuple[tuple[str, ...], bool]]:
    """Conjunction of ``(alternative literals, case-insensitive)`` clauses for a sequence.

    ``classes``: also a clause for each character class of plain characters (``[?*!@=]``).
    """
    runs, _ = _literal_run(items)
    clauses = [((run,), ignore_case) for run in runs]
    for op, av in items:
        if op is _c.SUBPATTERN:
            _, add, remove, sub = av
            ci = (ignore_case or bool(add & _c.SRE_FLAG_IGNORECASE)) and not remove & _c.SRE_FLAG_IGNORECASE
            clauses += _clauses(list(sub), ci, classes)
        elif classes and op is _c.IN and av and all(kind is _c.LITERAL for kind, _ in av):
            clauses.append((tuple(chr(value) for _, value in av), ignore_case))
        elif op is _c.BRANCH:
            options: list[str] = []
            for alt in av[1]:
                best = max(_literal_run(list(alt))[0], key=len, default="")
                if not best:
                    break
                options.append(best)
            else:
                clauses.append((tuple(options), ignore_case))
    return [(alts, ci) for alts, ci in clauses if not ci or all(a.isascii() for a in alts)]


def _end_chars(items: list, ignore_case: bool) -> str | None:
    """The characters one of which must end the match when the pattern ends in ``c$`` or ``[set]$``."""
    if len(items) < 2 or items[-1] != (_c.AT, _c.AT_END):
        return None
    op, av = items[-2]
    if op is _c.LITERAL:
        chars = chr(av)
    elif op is _c.IN and all(kind is _c.LITERAL for kind, _ in av):
        chars = "".join(chr(v) for _, v in av)
    else:
        return None
    if ignore_case and any(ch.isalpha() for ch in chars):
        return None
    return chars


def guarded_find(s: str, run: str, before: str) -> bool:
    """Whether ``run`` occurs in ``s`` somewhere not right after the character ``before``."""
    at = s.find(run)
    while at >= 0:
        if at == 0 or s[at - 1] != before:
            return True
        at = s.find(run, at + 1)
    return False


class Term(NamedTuple):
    """One necessary condition for a match, as data (rendered to Python here, to Arrow elsewhere).

    ``kind``: ``"start"`` — ``s`` starts with ``options[0]``; ``"end"`` — the last character of
    ``s``, or the one before a final ``\\n``, is one of ``options[0]``; ``"guarded"`` — ``options[0]``
    occurs in ``s`` not right after the character ``other``; ``"any"`` — one of ``options`` occurs
    in ``s`` (``fold``: in ``s.lower()``, the options being lower-case ASCII).
    """

    kind: str
    options: tuple[str, ...]
    other: str = ""
    fold: bool = False


def prefilter_terms(pattern: re.Pattern[str]) -> list[Term] | None:
    """Conditions every string ``pattern`` can be found in satisfies (all of them); ``None`` if none is known."""
    if _p is None or pattern.flags & (re.MULTILINE | re.VERBOSE):
        return None
    try:
        parsed = _p.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - the analysis is an optimisation only
        return None
    items = list(parsed)
    ignore_case = bool(parsed.state.flags & re.IGNORECASE)
    terms: list[Term] = []
    if items and items[0] == (_c.AT, _c.AT_BEGINNING) and not ignore_case:
        head = _literal_run(items[1:])[0]
        if head and items[1][0] is _c.LITERAL:
            terms.append(Term("start", (head[0],)))
    end = _end_chars(items, ignore_case)
    if end is not None:
        terms.append(Term("end", (end,)))
    ascii_only = bool(pattern.flags & re.ASCII)
    terms += _clause_terms(items, ignore_case, ascii_only, classes=False)
    if not terms:  # a bare character class (``[?*!@=]``): one of its characters must occur
        terms = _clause_terms(items, ignore_case, ascii_only, classes=True)
    return terms or None


def _clause_terms(items: list, ignore_case: bool, ascii_only: bool, classes: bool) -> list[Term]:
    """The ``guarded`` and ``any`` terms of a sequence, longest literals first."""
    guarded = dict(_literal_run(items)[1])
    clauses = _clauses(items, ignore_case, classes)
    if not ascii_only:  # Unicode case folding (e.g. U+017F ~ "s") defeats str.lower()
        clauses = [(alts, ci) for alts, ci in clauses if not ci]
    terms: list[Term] = []
    for alts, ci in sorted(clauses, key=lambda clause: -max(map(len, clause[0]))):
        if len(alts) == 1 and not ci and guarded.get(alts[0]) is not None:
            terms.append(Term("guarded", alts, chr(guarded[alts[0]])))
        else:
            terms.append(Term("any", tuple(a.lower() if ci else a for a in alts), fold=ci))
    return terms


def _render(term: Term) -> str:
    """A term as a Python expression over ``s`` and ``low``."""
    text = term.options[0]
    if term.kind == "start":
        return f"s.startswith({text!r})"
    if term.kind == "end":
        return f"(s[-1:] in {text!r} or (s[-1:] == '\\n' and s[-2:-1] in {text!r}))"
    if term.kind == "guarded":
        return f"guarded_find(s, {text!r}, {term.other!r})"
    var = "low" if term.fold else "s"
    return "(" + " or ".join(f"{a!r} in {var}" for a in term.options) + ")"


def prefilter_expr(pattern: re.Pattern[str]) -> tuple[str, bool] | None:
    """``(Python expression over s and low, needs low)`` true whenever ``pattern`` may match.

    ``s`` is the string, ``low`` its ``lower()``, ``guarded_find`` this module's
    helper.  ``None`` when nothing useful can be derived.
    """
    terms = prefilter_terms(pattern)
    if terms is None:
        return None
    return " and ".join(map(_render, terms)), any(term.fold for term in terms)


def compile_prefilter(exprs: list[tuple[str, bool]]) -> Callable[[str], bool]:
    """One function true when any of the expressions (from :func:`prefilter_expr`) is."""
    body = " or ".join(f"({expr})" for expr, _ in exprs)
    lower = "    low = s.lower()\n" if any(needs for _, needs in exprs) else ""
    namespace: dict[str, object] = {"guarded_find": guarded_find}
    exec(f"def may_match(s):\n{lower}    return {body}\n", namespace)  # noqa: S102 - literals are repr()ed
    return namespace["may_match"]  # type: ignore[return-value]


def prefilter(pattern: re.Pattern[str]) -> Callable[[str], bool] | None:
    """A necessary-condition check for ``pattern.search`` (see the module docstring), or ``None``."""
    expr = prefilter_expr(pattern)
    return None if expr is None else compile_prefilter([expr])
