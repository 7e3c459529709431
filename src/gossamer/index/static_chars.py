"""The character map of ``tokenlearn-static-model``'s normalizer, applied as its Rust code applies it.

:class:`CharRules` rewrites a text through SentencePiece's precompiled character map
(:class:`CharMap`) grapheme by grapheme, which :mod:`gossamer.index.static_tokens` reproduces
exactly when every grapheme is one character or a character and its combining marks.  A text
holding a character that may join its neighbours otherwise (zero-width joiners, viramas, jamo,
regional indicators, emoji modifiers, unassigned characters) or the Metaspace ``▁`` is not
normalized (``None``): the package encodes it.

:meth:`CharRules.word` normalizes one whitespace-free word on its own.  Contract: when it returns a
string for every word of a text (split by ``str.split``) that matches no :data:`CONTROL`, and
:attr:`CharRules.by_word` is true, the words of the normalized text are exactly those of the
normalized words, in order; it returns ``None`` where that cannot be promised (the text must then
be normalized whole).
"""

from __future__ import annotations

import re
import struct
import unicodedata

import numpy as np
import orjson

CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES = "\t\n\r \x85\xa0\u1680" + "".join(map(chr, range(0x2000, 0x200B))) + "\u2028\u2029\u202f\u205f\u3000"
"""The characters ``str.split`` splits at, but for those :data:`CONTROL` matches."""
ADDED = ("<pad>", "<unk>")
_JOINING_CATEGORIES = frozenset({"Cs", "Cn"})
_MARK_CATEGORIES = frozenset({"Mn", "Mc", "Me"})
_CONTROL_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
_JOINING_RANGES = ((0x1100, 0x11FF), (0xA960, 0xA97F), (0xD7B0, 0xD7FF),  # Hangul jamo (L, V, T)
                   (0x1F1E6, 0x1F1FF), (0x1F3FB, 0x1F3FF), (0xFF9E, 0xFF9F),  # regional indicators, modifiers
                   (0xE0000, 0xE0FFF))  # tags
_JOINING = frozenset({0x0E33, 0x0EB3, 0x0D4E, 0x111C2, 0x111C3, 0x1193F, 0x11941, 0x11A3A, 0x11D46, 0x11F02,
                      *range(0x11A84, 0x11A8A), 0x094D, 0x09CD, 0x0ACD, 0x0B4D, 0x0C4D, 0x0D4D, 0x2581})
"""Letters that are grapheme ``SpacingMark`` or ``Prepend``, viramas that join two consonants (``InCB=Linker``),
and Metaspace's ``▁``: a text holding one is left to the package."""
_ALONE_FORMAT = frozenset({0x00AD, 0x200B, 0x200E, 0x200F, 0x2060, 0xFEFF})
"""Format characters that are graphemes of their own (``Control``); every other one is left to the package."""


class CharMap:
    """SentencePiece's precompiled character map: a double-array trie of the strings it rewrites."""

    def __init__(self, blob: bytes) -> None:
        size = struct.unpack("<I", blob[:4])[0]
        self.units: list[int] = np.frombuffer(blob[4:4 + size], "<u4").tolist()
        self.normalized = blob[4 + size:]

    def rewrite(self, key: bytes) -> str | None:
        """What the map makes of ``key``: the text of its shortest entry that is a prefix of ``key``, else None."""
        units = self.units
        unit = units[0]
        pos = (unit >> 10) << ((unit & 512) >> 6)
        for byte in key:
            pos ^= byte
            unit = units[pos]
            if unit & 0x800000FF != byte:
                return None
            pos ^= (unit >> 10) << ((unit & 512) >> 6)
            if (unit >> 8) & 1:
                start = units[pos] & 0x7FFFFFFF
                return self.normalized[start:self.normalized.index(b"\0", start)].decode("utf-8")
        return None


def charmap_text(tokenizer: bytes) -> str:
    """The base64 text of the normalizer's ``precompiled_charsmap`` in ``tokenizer.json``'s bytes.

    Read by locating the one key rather than decoding the whole 10 MB file (the pieces are loaded
    only when a word must be cut); the whole file is decoded when the key is not found that way.
    """
    key = b'"precompiled_charsmap"'
    at = tokenizer.find(key)
    if at >= 0 and tokenizer.count(key) == 1:
        begin = tokenizer.find(b'"', at + len(key))
        end = tokenizer.find(b'"', begin + 1)
        if begin > 0 and end > begin and tokenizer[at + len(key):begin].strip() == b":":
            value = orjson.loads(tokenizer[begin:end + 1])
            if isinstance(value, str):
                return value
    return str(orjson.loads(tokenizer)["normalizer"]["precompiled_charsmap"])


class CharRules:
    """The rewrite of each character met so far, and the normalization of texts and words."""

    def __init__(self, charmap: CharMap) -> None:
        self.charmap = charmap
        self.chars: dict[str, str | bool | None] = {}
        """Character -> its rewrite (None: kept; False: a text holding it is left to the package)."""
        self.marks: set[str] = set()
        """Combining marks seen: they join the character before them into one grapheme."""
        self.by_word = self._by_word()
        """Whether :meth:`word` may be used (see the module docstring)."""

    def normalize(self, text: str) -> str | None:
        """``text`` through the character map, grapheme by grapheme (None: not possible, see the contract).

        Spaces, tabs, newlines and carriage returns may become other whitespace: the split is the same.
        """
        table: dict[int, str] = {}
        marks: list[str] = []
        for char in set(text):
            rule = self.chars.get(char, True)
            if rule is True:
                rule = self.chars[char] = self._rule(char)
            if rule is False:
                return None
            if char in self.marks:
                marks.append(char)
            if rule is not None:
                table[ord(char)] = rule  # type: ignore[assignment]
        if marks:
            return self._with_marks(text, marks, table)
        return text.translate(table) if table else text

    def _with_marks(self, text: str, marks: list[str], table: dict[int, str]) -> str:
        """``text`` normalized where combining marks join the character before them into one grapheme.

        A grapheme (a character and the marks after it, or marks alone after a control character) of
        fewer than 6 bytes is rewritten whole when the map has an entry for its start, else character
        by character, as the Rust normalizer does.
        """
        out: list[str] = []
        done = 0
        for match in re.finditer(f"(.?)([{''.join(map(re.escape, marks))}]+)", text, re.DOTALL):
            base, run = match.group(1), match.group(2)
            if base and unicodedata.category(base) in _CONTROL_CATEGORIES or ord(base or " ") in _ALONE_FORMAT:
                out.append(text[done:match.start(2)].translate(table))
                cluster = run
            else:
                out.append(text[done:match.start(1)].translate(table))
                cluster = base + run
            whole = self.charmap.rewrite(cluster.encode("utf-8")) if len(cluster.encode("utf-8")) < 6 else None
            out.append(cluster.translate(table) if whole is None else whole)
            done = match.end()
        out.append(text[done:].translate(table))
        return "".join(out)

    def _rule(self, char: str) -> str | bool | None:
        code = ord(char)
        category = unicodedata.category(char)
        if (category in _JOINING_CATEGORIES or code in _JOINING or (category == "Cf" and code not in _ALONE_FORMAT)
                or any(low <= code <= high for low, high in _JOINING_RANGES)):
            return False
        if category in _MARK_CATEGORIES:
            self.marks.add(char)
        return self.charmap.rewrite(char.encode("utf-8"))

    def word(self, word: str) -> str | None:
        """``word`` (no whitespace) normalized on its own, or None when only the whole text can be.

        None for a word holding a combining mark (it may join the character before the word) or a
        character whose text is left to the package (see the module docstring for the contract).
        """
        table: dict[int, str] = {}
        for char in set(word):
            rule = self.chars.get(char, True)
            if rule is True:
                rule = self.chars[char] = self._rule(char)
            if rule is False or char in self.marks:
                return None
            if rule is not None:
                table[ord(char)] = rule  # type: ignore[assignment]
        return word.translate(table) if table else word

    def _by_word(self) -> bool:
        """Whether normalizing word by word is exact for this map.

        It is when each whitespace character a text may hold outside :data:`CONTROL` becomes
        whitespace (never nothing) and printable ASCII stays as it is.
        """
        for char in _SPACES:
            rule = self._rule(char)
            if rule is False or char in self.marks or (rule is not None and (not rule or not rule.isspace())):
                return False
        return all(self._rule(chr(code)) is None for code in range(0x20, 0x7F))


__all__ = ["ADDED", "CONTROL", "CharMap", "CharRules", "charmap_text"]
