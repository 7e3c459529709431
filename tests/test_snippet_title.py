"""The snippet's title cut (details._title_prefix_length) agrees with the regular expression it replaced."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from gossamer.search.details import TITLE_SEPARATORS, _title_prefix_length


def reference(text: str, title: str) -> int:
    """The former implementation: one regular expression per title."""
    words = title.split()
    if not words:
        return 0
    copy = re.compile(r"\s*" + r"\s+".join(map(re.escape, words)) + r"(?!\w)[\s" + re.escape(TITLE_SEPARATORS) + "]*")
    cut = 0
    while (found := copy.match(text, cut)) is not None and found.end() > cut:
        cut = found.end()
    return cut


ALPHABET = st.sampled_from(list("ab _-|:\u2014.,\t\n\u00a0\u2003é1") + ["News", "news", "Newsletter", "A b"])


@settings(max_examples=400, deadline=None)
@given(st.lists(ALPHABET, max_size=12).map("".join), st.lists(ALPHABET, max_size=5).map("".join))
def test_same_cut_as_the_regular_expression(text: str, title: str) -> None:
    assert _title_prefix_length(text, title) == reference(text, title)
    assert _title_prefix_length(title + text, title) == reference(title + text, title)


def test_examples() -> None:
    assert _title_prefix_length("News — News: the day", "News") == len("News — News: ")
    assert _title_prefix_length("Newsletter of the day", "News") == 0
    assert _title_prefix_length("  A  b , rest", "A b") == len("  A  b , ")
    assert _title_prefix_length("anything", "") == 0
