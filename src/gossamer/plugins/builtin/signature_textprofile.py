"""``signature-textprofile``: Nutch's TextProfileSignature (reference §7.2).

A signature that survives small edits: the parse text's words (maximal runs of
letters or digits, lower-cased, longer than ``db.signature.text_profile.min_token_len``)
are counted, the counts quantized to multiples of ``QUANT`` (``round(max count ×
db.signature.text_profile.quant_rate)``, at least 2 when the most frequent word
repeats, else 1) and words below ``QUANT`` dropped.  The profile lists ``word count``
lines, most frequent first (ties by word when ``db.signature.text_profile.sec_sort_lex``),
and the signature is the MD5 of that profile.  Word order does not matter.  An
empty parse text falls back to MD5Signature.  Arithmetic is float32 as in Java.
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
from collections import Counter

from gossamer.core import Content, Settings
from gossamer.plugins.api import ParseResult, Signature
from gossamer.plugins.builtin.signature_md5 import MD5Signature
from gossamer.plugins.registry import PluginInfo

_CANDIDATE = re.compile(r"[^\W_]+")


def _f32(value: float) -> float:
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _is_letter_or_digit(char: str) -> bool:
    """Java's Character.isLetterOrDigit: letters (L*) and decimal digits (Nd) only."""
    return char.isalpha() or char.isdecimal()


def tokens(text: str) -> list[str]:
    """Maximal runs of letters/digits, lower-cased character by character as Java does."""
    result: list[str] = []
    for run in _CANDIDATE.findall(text):
        if not all(_is_letter_or_digit(c) for c in run):  # \w also admits other numerics (No, Nl)
            result.extend(_split_java(run))
            continue
        result.append("".join(c.lower()[0] for c in run))
    return result


def _split_java(run: str) -> list[str]:
    parts, current = [], []
    for char in run:
        if _is_letter_or_digit(char):
            current.append(char.lower()[0])
        elif current:
            parts.append("".join(current))
            current = []
    if current:
        parts.append("".join(current))
    return parts


def text_profile(text: str, min_token_len: int = 2, quant_rate: float = 0.01, sec_sort_lex: bool = True) -> str:
    """The profile string whose MD5 is the signature (``word count`` lines joined by newlines)."""
    counts = Counter(t for t in tokens(text) if len(t) > min_token_len)
    if not counts:
        return ""
    max_freq = max(counts.values())
    quant = int(math.floor(_f32(_f32(max_freq * _f32(quant_rate)) + 0.5)))
    if quant < 2:
        quant = 2 if max_freq > 1 else 1
    kept = [(word, (count // quant) * quant) for word, count in counts.items()]
    kept = [(word, count) for word, count in kept if count >= quant]
    if sec_sort_lex:
        kept.sort(key=lambda item: (-item[1], item[0]))
    else:
        kept.sort(key=lambda item: -item[1])
    return "\n".join(f"{word} {count}" for word, count in kept)


class TextProfileSignature(Signature):
    """Signature of the parse text's quantized word profile (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.min_token_len = settings.get_int("db.signature.text_profile.min_token_len")
        self.quant_rate = settings.get_float("db.signature.text_profile.quant_rate")
        self.sec_sort_lex = settings.get_bool("db.signature.text_profile.sec_sort_lex")
        self._fallback = MD5Signature()

    def calculate(self, content: Content, parse: ParseResult | None) -> bytes:
        """MD5 of the profile; MD5Signature of the content when there is no parse text."""
        text = parse.text.text if parse is not None else ""
        if not text:
            return self._fallback.calculate(content, parse)
        profile = text_profile(text, self.min_token_len, self.quant_rate, self.sec_sort_lex)
        return hashlib.md5(profile.encode("utf-8")).digest()


PLUGIN = PluginInfo(
    id="signature-textprofile",
    point="Signature",
    factory=TextProfileSignature,
    description="Near-duplicate-tolerant signature: MD5 of the quantized word profile of the parse text",
    aliases=("org.apache.nutch.crawl.TextProfileSignature", "TextProfileSignature"),
)
