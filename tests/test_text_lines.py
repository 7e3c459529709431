"""The block reader of text splits (issue 22) gives exactly the batches' rows of the per-line reader."""

from __future__ import annotations

import io
import random

import pyarrow as pa
import pytest

from gossamer.engine import text_lines
from gossamer.engine.text_lines import _line_by_line, line_batches


def _rows(batches) -> list[tuple]:
    table = pa.Table.from_batches(list(batches), schema=text_lines.TEXT_SCHEMA)
    return list(zip(*(table.column(name).to_pylist() for name in table.column_names), strict=True))


def _both(data: bytes, batch_rows: int = 7, first_line: int = 1) -> tuple[list[tuple], list[tuple]]:
    fast = _rows(line_batches(io.BytesIO(data), len(data), first_line, batch_rows, "f.txt"))
    slow = _rows(_line_by_line(io.BytesIO(data), len(data), first_line, batch_rows, "f.txt"))
    return fast, slow


PIECES = [b"http://example.com/", b"a", b"\n", b"\n", b"\r\n", b"\r", b"\xc3\xa9", b"\xff", b"\xe2\x82", b"\t",
          b"# c", b" ", b"\x00", b"x" * 40]


@pytest.mark.parametrize("seed", range(40))
def test_block_reader_equals_line_reader(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    rnd = random.Random(seed)
    monkeypatch.setattr(text_lines, "BLOCK_BYTES", rnd.choice([16, 64, 1000]))
    monkeypatch.setattr(text_lines, "MAX_LINE_BYTES", rnd.choice([30, 100, 10_000]))
    plain = seed % 2 == 0  # half the inputs without any odd byte: the fast path all the way
    pieces = PIECES[:6] + PIECES[9:12] + PIECES[13:] if plain else PIECES
    pieces = [p for p in pieces if not plain or b"\r" not in p]
    data = b"".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 400)))
    fast, slow = _both(data, rnd.choice([1, 3, 50]), rnd.choice([1, 100]))
    assert fast == slow


def test_long_line_in_the_middle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_lines, "BLOCK_BYTES", 32)
    monkeypatch.setattr(text_lines, "MAX_LINE_BYTES", 50)
    data = b"short\n" * 20 + b"y" * 300 + b"\nafter\nlast"
    fast, slow = _both(data)
    assert fast == slow
    assert [row[3] is not None for row in fast].count(True) == 1
    assert fast[-1][0] == "last" and fast[-1][1] == 23


def test_range_of_a_file_and_empty_input() -> None:
    data = b"skip me\nline one\nline two\nnot mine\n"
    start, end = 8, 8 + len(b"line one\nline two\n")
    handle = io.BytesIO(data)
    handle.seek(start)
    assert [r[0] for r in _rows(line_batches(handle, end - start, 2, 10, "f"))] == ["line one", "line two"]
    assert _both(b"") == ([], [])
