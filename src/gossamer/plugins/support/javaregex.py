"""Java regular expressions (as Nutch's rule files use them) translated to Python's ``re``.

Nutch's ``regex-urlfilter.txt`` and ``regex-normalize.xml`` are Java regexes.
Most syntax is shared; the differences handled here:

* inline flags in the middle of a pattern — ``/((?i)index|default)`` — apply in
  Java from that point to the end of the enclosing group; Python 3.11 only allows
  them at the start, so they become a scoped group ``(?i:…)`` closed with the
  enclosing group;
* ``\\Q…\\E`` quoting, ``\\z`` / ``\\Z``, named groups ``(?<n>…)`` and ``\\k<n>``;
* Java's ``\\w``, ``\\d``, ``\\s``, ``\\b`` and case-insensitivity are ASCII unless
  the ``u``/``U`` flags are given, so patterns compile with :data:`re.ASCII`;
* a ``[`` inside a character class (a nested class in Java) is refused;
* replacement strings: ``$1`` / ``${name}`` / ``\\$`` become Python templates.

Constructs Python cannot express (class intersections ``&&``, ``\\p{…}`` classes
other than a few POSIX names) raise :class:`JavaRegexError`, which the plugins
report with the rule's line number.
"""

from __future__ import annotations

import re
from functools import lru_cache

_PROPERTY_CLASSES = {
    "Lower": "a-z", "Upper": "A-Z", "ASCII": "\\x00-\\x7F", "Alpha": "a-zA-Z", "Digit": "0-9",
    "Alnum": "a-zA-Z0-9", "Punct": "!-/:-@\\[-`{-~", "Graph": "!-~", "Print": " -~", "Blank": " \\t",
    "Cntrl": "\\x00-\\x1F\\x7F", "XDigit": "0-9a-fA-F", "Space": " \\t\\n\\x0B\\f\\r",
}
_JAVA_ONLY_FLAGS = str.maketrans("", "", "udU")


class JavaRegexError(ValueError):
    """A Java pattern that cannot be translated (the message says which construct)."""


@lru_cache(maxsize=4096)
def compile_java(pattern: str) -> re.Pattern[str]:
    """Compile a Java regex with Java's semantics as far as Python's ``re`` allows."""
    translated = translate(pattern)
    try:
        return re.compile(translated, re.ASCII)
    except re.error as exc:
        raise JavaRegexError(f"invalid regex {pattern!r}: {exc}") from None


def translate(pattern: str) -> str:
    """Translate Java regex syntax to Python regex syntax (see the module docstring)."""
    out: list[str] = []
    scoped: list[list[str]] = [[]]  # per open group: the scoped-flag groups opened inside it
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            piece, i = _escape(pattern, i, in_class=False)
            out.append(piece)
        elif ch == "[":
            piece, i = _char_class(pattern, i)
            out.append(piece)
        elif ch == "(":
            flags = re.match(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)", pattern[i:])
            if flags and (flags.group(1) or flags.group(2)):
                on = flags.group(1).translate(_JAVA_ONLY_FLAGS)
                off = (flags.group(2) or "").translate(_JAVA_ONLY_FLAGS)
                i += flags.end()
                if not on and not off:
                    continue
                if not out and not off:  # at the very start: a global flag is fine in Python
                    out.append(f"(?{on})")
                    continue
                opener = f"(?{on}{'-' + off if off else ''}:"
                out.append(opener)
                scoped[-1].append(opener)
                continue
            if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")
                i += 3
            else:
                out.append("(")
                i += 1
            scoped.append([])
        elif ch == "|" and scoped[-1]:
            # Java: a mid-pattern flag lasts to the end of the enclosing group, across "|":
            # close the scoped groups before the bar and reopen them after it.
            out.append(")" * len(scoped[-1]) + "|" + "".join(scoped[-1]))
            i += 1
        elif ch == ")":
            if len(scoped) > 1:
                out.append(")" * len(scoped.pop()))
            out.append(")")
            i += 1
        else:
            out.append(ch)
            i += 1
    out.append(")" * len(scoped[0]))
    return "".join(out)


def _escape(pattern: str, i: int, in_class: bool) -> tuple[str, int]:
    """Translate the escape at ``pattern[i] == '\\\\'``; returns (text, next index)."""
    if i + 1 >= len(pattern):
        raise JavaRegexError(f"pattern {pattern!r} ends with a lone backslash")
    nxt = pattern[i + 1]
    if nxt == "Q":
        end = pattern.find("\\E", i + 2)
        literal = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
        stop = len(pattern) if end < 0 else end + 2
        return re.escape(literal), stop
    if nxt == "z" and not in_class:
        return "\\Z", i + 2
    if nxt == "Z" and not in_class:
        return "(?=\\n?\\Z)", i + 2
    if nxt == "k" and pattern.startswith("<", i + 2):
        end = pattern.index(">", i + 3)
        return f"(?P={pattern[i + 3:end]})", end + 1
    if nxt in "pP" and pattern.startswith("{", i + 2):
        end = pattern.index("}", i + 3)
        name = pattern[i + 3:end].removeprefix("Is")
        if name not in _PROPERTY_CLASSES:
            raise JavaRegexError(f"unsupported character property \\{nxt}{{{name}}} in {pattern!r}")
        body = _PROPERTY_CLASSES[name]
        if in_class:
            if nxt == "P":
                raise JavaRegexError(f"negated property inside a class is unsupported in {pattern!r}")
            return body, end + 1
        return (f"[^{body}]" if nxt == "P" else f"[{body}]"), end + 1
    if nxt == "h":
        return ("[ \\t\\xA0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000]" if not in_class
                else " \\t\\xA0"), i + 2
    return pattern[i:i + 2], i + 2


def _char_class(pattern: str, i: int) -> tuple[str, int]:
    """Translate a character class starting at ``pattern[i] == '['``."""
    out = ["["]
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        out.append("^")
        j += 1
    if j < len(pattern) and pattern[j] == "]":  # a leading ] is literal
        out.append("\\]")
        j += 1
    while j < len(pattern):
        ch = pattern[j]
        if ch == "\\":
            piece, j = _escape(pattern, j, in_class=True)
            out.append(piece)
            continue
        if ch == "]":
            out.append("]")
            return "".join(out), j + 1
        if ch == "[":
            raise JavaRegexError(f"nested character classes are unsupported in {pattern!r}")
        if ch == "&" and pattern.startswith("&&", j):
            raise JavaRegexError(f"character class intersection (&&) is unsupported in {pattern!r}")
        out.append(ch)
        j += 1
    raise JavaRegexError(f"unterminated character class in {pattern!r}")


def _group_number(digits: str, group_count: int | None, replacement: str) -> tuple[int, int]:
    """Java's reading of ``$<digits>``: ``(group number, digits used)``.

    Java takes the first digit, then further digits only while the number stays
    ``<= group_count`` (``$12`` with one group is group 1 then ``2``); a first digit
    above ``group_count`` is an error.  Without ``group_count`` every digit is used.
    """
    if group_count is None:
        return int(digits), len(digits)
    number, used = int(digits[0]), 1
    if number > group_count:
        raise JavaRegexError(f"no group {number} in replacement {replacement!r}")
    while used < len(digits) and number * 10 + int(digits[used]) <= group_count:
        number, used = number * 10 + int(digits[used]), used + 1
    return number, used


@lru_cache(maxsize=4096)
def translate_replacement(replacement: str, group_count: int | None = None) -> str:
    """Turn a Java ``replaceAll`` replacement (``$1``, ``${name}``, ``\\$``) into a Python template.

    Pass the pattern's ``group_count`` to read ``$nn`` exactly as Java does (and
    reject references to groups the pattern lacks).
    """
    out: list[str] = []
    i, n = 0, len(replacement)
    while i < n:
        ch = replacement[i]
        if ch == "\\":
            if i + 1 >= n:
                raise JavaRegexError(f"replacement {replacement!r} ends with a lone backslash")
            literal = replacement[i + 1]
            out.append("\\\\" if literal == "\\" else literal)
            i += 2
        elif ch == "$":
            if replacement.startswith("{", i + 1):
                end = replacement.index("}", i + 2)
                out.append(f"\\g<{replacement[i + 2:end]}>")
                i = end + 1
            else:
                digits = re.match(r"[0-9]+", replacement[i + 1:])
                if not digits:
                    raise JavaRegexError(f"illegal group reference in replacement {replacement!r}")
                number, used = _group_number(digits.group(), group_count, replacement)
                out.append(f"\\g<{number}>")
                i += 1 + used
        else:
            out.append(ch)
            i += 1
    return "".join(out)
