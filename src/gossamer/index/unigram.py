"""The Unigram best path of one word, as the Rust tokenizer of ``tokenlearn-static-model`` computes it.

Contract of :meth:`Unigram.cut`: the token ids the package's tokenizer gives the Metaspace word
``▁word`` (``word`` already normalized and holding no whitespace): the path of pieces with the
highest total score, the first one found on a tie; an unknown character scores the lowest piece
minus :data:`UNK_PENALTY`; a run of tokens with the unknown id (the unknown token, or a real piece
that has that id) is fused into one string whose id is looked up again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PREFIX = 3
"""Characters of the prefixes by which the longest piece is looked up (to stop the search for pieces early)."""
UNK_PENALTY = 10.0
"""An unknown character scores this much below the lowest piece (the Unigram model's rule)."""
CUT_VERSION = 1
"""Version of :meth:`Unigram.cut`'s rules: part of the key of token ids kept on disk (bump it on a change)."""


class Unigram:
    """The pieces of a Unigram model (``tokenizer.json``'s ``model``: ``vocab`` as ``[piece, score]``, ``unk_id``)."""

    def __init__(self, model: Mapping[str, Any]) -> None:
        vocab = model["vocab"]
        pieces = [piece for piece, _ in vocab]
        self.ids: dict[str, int] = dict(zip(pieces, range(len(pieces)), strict=True))  # a piece listed twice: its last
        self.score_of: list[float] = [score for _, score in vocab]
        """Score of each piece id."""
        self.longest: dict[str, int] = {piece[:PREFIX]: len(piece) for piece in sorted(self.ids, key=len)}
        """The longest piece starting with each :data:`PREFIX`-character prefix (shorter pieces are all tried)."""
        self.unk_id: int = model["unk_id"]
        self.unk_score = min(self.score_of) - UNK_PENALTY

    def cut(self, word: str) -> tuple[int, ...]:
        """The Unigram best path over ``▁word``: the highest total score, the first one found on a tie."""
        text = "\u2581" + word
        n = len(text)
        score = [0.0] + [float("-inf")] * n
        start = [0] * (n + 1)
        piece_ids = self.ids
        score_of = self.score_of
        longest = self.longest
        for i in range(n):
            base = score[i]
            if text[i] not in piece_ids:  # no piece of one character: the unknown token
                total = base + self.unk_score
                if total > score[i + 1]:
                    score[i + 1] = total
                    start[i + 1] = i
            for end in range(i + 1, min(n, i + longest.get(text[i:i + PREFIX], PREFIX - 1)) + 1):
                piece = piece_ids.get(text[i:end])
                if piece is not None and base + score_of[piece] > score[end]:
                    score[end] = base + score_of[piece]
                    start[end] = i
        spans: list[tuple[int, int]] = []
        end = n
        while end > 0:
            spans.append((start[end], end))
            end = start[end]
        ids: list[int] = []
        unk = self.unk_id
        run = -1
        for begin, end in reversed(spans):
            # the tokenizer fuses a run of tokens with the unknown id (here also a real piece's id) into one
            # string, whose id it looks up again
            if piece_ids.get(text[begin:end], unk) != unk:
                run = -1
                ids.append(piece_ids[text[begin:end]])
            elif run < 0:
                run = begin
                ids.append(unk)
            else:
                ids[-1] = piece_ids.get(text[run:end], unk)
        return tuple(ids)


__all__ = ["CUT_VERSION", "PREFIX", "UNK_PENALTY", "Unigram"]
