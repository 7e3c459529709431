"""``parse_html.collapse``: exactly ``" ".join(text.split())``, with its fast path for printable text."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from gossamer.plugins.builtin.parse_html import FEW_RUNS, collapse

WHITE = " \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
"""Every kind of white space ``str.split`` knows (a sample of each range)."""


def test_the_fast_path_premise_every_other_white_space_is_unprintable() -> None:
    others = [c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace() and c != " "]
    assert others and not any(c.isprintable() for c in others)


def test_examples() -> None:
    for text, expected in [("", ""), ("   ", ""), ("a", "a"), (" a ", "a"), ("a  b", "a b"), ("a   b  c", "a b c"),
                           ("  a b  ", "a b"), ("a\n b", "a b"), ("a\xa0\xa0b", "a b"), ("é  — ñ ", "é — ñ"),
                           ("a \u3000 b", "a b"), ("x" * 10 + " " * 7 + "y", "x" * 10 + " y"),
                           ("1.  a  " * 40, " ".join(["1. a"] * 40)), ("b  " * FEW_RUNS, " ".join("b" * FEW_RUNS))]:
        assert collapse(text) == expected == " ".join(text.split())


@given(st.text(alphabet=st.sampled_from(list(WHITE) + list("ab é—\u00ad\u200b")), max_size=60))
def test_same_as_split_and_join_on_white_space(text: str) -> None:
    assert collapse(text) == " ".join(text.split())


@given(st.text(max_size=200))
def test_same_as_split_and_join_on_any_text(text: str) -> None:
    assert collapse(text) == " ".join(text.split())
