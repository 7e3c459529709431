"""``htmlfilter_opening.letter_words_reach``: the prose test of a block, as the letter-word pattern counts."""

from __future__ import annotations

import re
import sys

from hypothesis import given
from hypothesis import strategies as st

from gossamer.plugins.builtin.htmlfilter_opening import _LETTER_WORD, letter_words_reach


def test_first_character_test_matches_the_pattern_on_every_code_point() -> None:
    letter = re.compile(r"[^\W\d_]")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        expected = letter.match(char) is not None
        assert letter_words_reach([char], 1) is expected, hex(code)


@given(st.text(alphabet=st.sampled_from(list("a1_ ·é½٣\t\n[−]Ωx9")), max_size=40), st.integers(-1, 8))
def test_same_as_counting_the_pattern(text: str, need: int) -> None:
    expected = len(_LETTER_WORD.findall(text)) >= need
    assert letter_words_reach(text.split(), need) is expected


def test_examples() -> None:
    assert letter_words_reach("1.0.0 [−] · alpha beta".split(), 2)
    assert not letter_words_reach("1.0.0 [−] · alpha _beta".split(), 2)
    assert letter_words_reach([], 0)
