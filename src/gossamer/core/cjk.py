"""The characters that form a word by themselves: CJK ideographs and kana (Nutch's SIGRAM).

Chinese and Japanese write without spaces, so a run of them is not a word; like Nutch, Gossamer makes each such
character a token of its own, on both sides: the query parser (:mod:`gossamer.search.query_parse`) splits a run
into a phrase of characters, and the index's CJK shadow fields (:mod:`gossamer.index.cjk`) are tokenized the same
way. Hangul is left out: Korean separates its words with spaces.
"""

from __future__ import annotations

import re

CJK_CHARS: str = (
    "\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0002fa1f\U00030000-\U0003134f"
)
"""A regex character-class body (without brackets): iteration marks, kana, CJK ideographs and their extensions
and compatibility forms."""

_ANY = re.compile(f"[{CJK_CHARS}]")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a character of :data:`CJK_CHARS` (O(1) for ASCII text)."""
    return not text.isascii() and _ANY.search(text) is not None
