"""``htmlfilter_opening.repeats``: whether the description is already in the opening text, as plain forms compare."""

from __future__ import annotations

import sys

from hypothesis import given
from hypothesis import strategies as st

from gossamer.plugins.builtin.htmlfilter_opening import _plain, repeats

ALPHABET = list("abcXYZ _-,.!1é\tÜüΣσςİ\u0307\x1c·ß\u00adﬁΑ")


def test_lower_case_maps_each_character_on_its_own_but_the_capital_sigma() -> None:
    """The shortcut's premise: ``str.lower`` of a string is its characters' lower cases, Σ aside (final ς)."""
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if char == "\u03a3":
            continue
        for around in ("a", " ", "Ω"):
            assert (around + char + around).lower() == around.lower() + char.lower() + around.lower(), hex(code)


@given(st.text(alphabet=st.sampled_from(ALPHABET), max_size=16), st.data())
def test_same_as_comparing_the_plain_forms(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    other = data.draw(st.text(alphabet=st.sampled_from(ALPHABET), max_size=6))
    part = data.draw(st.sampled_from([text[start:end], text[start:end] + "Σ", "Σ" + text[start:end], other]))
    assert repeats(part, text) is (_plain(part) in _plain(text))


def test_examples() -> None:
    assert repeats("Über Delay, a page", "Memory Über Delay, a page about it")
    assert repeats("uber delay a page", "Memory Uber -- Delay, a page")
    assert not repeats("AΣ", "AΣB")  # a literal piece, but σ inside a word and ς at the end differ
    assert not repeats("other words", "Memory Über Delay")
    assert not repeats("Own Ivory, a page", "Ivory: own a page")  # every word there, not in that order
    assert repeats("Ivory -- Own, a page!", "IVORY own A page")
    assert repeats("...", "anything")  # no word at all: the empty plain form is in every text
