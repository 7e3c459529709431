"""Lines of a byte range of a text input, as Arrow batches (the reading behind ``TextSplit``).

Batches have :data:`TEXT_SCHEMA`: ``line`` (the text without its line ending), ``line_no``
(1-based, in its file), ``file`` and ``problem`` — null for a good line, else why the line
cannot be used as it is (not UTF-8: the text then has replacement characters; longer than
:data:`MAX_LINE_BYTES`: only its start is kept).  A line ends at ``\\n``; trailing ``\\r`` and
``\\n`` characters are not part of the text.

Two readers with one result.  :func:`line_batches` cuts blocks of :data:`BLOCK_BYTES` at their
last newline and splits a block into a string column in Arrow (no Python object per line) as
long as the block is plain: valid UTF-8, no ``\\r``, no line over the limit.  From the first block
that is not, it hands the rest of the range to :func:`_line_by_line`, the per-line reader that
decides each line's problem.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

TEXT_SCHEMA = pa.schema(
    [pa.field("line", pa.string()), pa.field("line_no", pa.int64()), pa.field("file", pa.string()),
     pa.field("problem", pa.string())]
)
MAX_LINE_BYTES = 1024 * 1024
BLOCK_BYTES = 1024 * 1024
"""Bytes read at a time (larger blocks leave more memory in the Arrow pool for little gain)."""


def line_batches(handle: BinaryIO, length: int, first_line: int, batch_rows: int,
                 name: str) -> Iterator[pa.RecordBatch]:
    """Batches of up to ``batch_rows`` lines from the next ``length`` bytes of ``handle`` (or to its end).

    ``length`` must end at a line end or at the end of the input; ``name`` fills ``file``.
    """
    out = _Batcher(batch_rows, first_line, name)
    remaining, carry = length, b""
    while remaining > 0:
        chunk = handle.read(min(BLOCK_BYTES, remaining))
        remaining -= len(chunk)
        data = carry + chunk if carry else chunk
        last = not chunk or remaining <= 0
        cut = len(data) if last else data.rfind(b"\n") + 1
        body, carry = data[:cut], data[cut:]
        lines = None if len(carry) > MAX_LINE_BYTES else _plain_lines(body)
        if lines is None:
            yield from out.flush()
            rest = _Resumed(data, handle)
            yield from _line_by_line(rest, len(data) + remaining, out.line_no, batch_rows, name)
            return
        yield from out.add(lines)
        if not chunk:
            break
    yield from out.flush()


def _plain_lines(body: bytes) -> pa.StringArray | None:
    """The lines of ``body`` (whole lines) as a string column; ``None`` unless every line is plain."""
    if not body:
        return pa.array([], pa.string())
    if b"\r" in body:
        return None
    whole = pa.StringArray.from_buffers(1, pa.py_buffer(np.array([0, len(body)], np.int32)), pa.py_buffer(body))
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:  # not UTF-8 somewhere: the per-line reader says where
        return None
    lines = pc.split_pattern(whole, "\n").flatten()
    if body.endswith(b"\n"):  # the split leaves an empty string after the last newline
        lines = lines.slice(0, len(lines) - 1)
    if pc.max(pc.binary_length(lines)).as_py() > MAX_LINE_BYTES:
        return None
    return lines


class _Batcher:
    """Collects plain line columns and cuts them into batches of ``batch_rows``."""

    def __init__(self, batch_rows: int, first_line: int, name: str) -> None:
        self.batch_rows, self.line_no, self.name = batch_rows, first_line, name
        self.pending: list[pa.Array] = []
        self.count = 0

    def add(self, lines: pa.Array) -> Iterator[pa.RecordBatch]:
        """Take ``lines``; yield every full batch."""
        if len(lines):
            self.pending.append(lines)
            self.count += len(lines)
        while self.count >= self.batch_rows:
            merged = pa.concat_arrays(self.pending)
            yield self._batch(merged.slice(0, self.batch_rows))
            rest = merged.slice(self.batch_rows)
            self.pending, self.count = ([rest] if len(rest) else []), len(rest)

    def flush(self) -> Iterator[pa.RecordBatch]:
        """Yield what is pending as one last batch."""
        if self.count:
            yield self._batch(pa.concat_arrays(self.pending))
        self.pending, self.count = [], 0

    def _batch(self, lines: pa.Array) -> pa.RecordBatch:
        n = len(lines)
        numbers = pa.array(np.arange(self.line_no, self.line_no + n, dtype=np.int64))
        self.line_no += n
        return pa.RecordBatch.from_arrays(
            [lines, numbers, pa.repeat(pa.scalar(self.name, pa.string()), n), pa.nulls(n, pa.string())],
            schema=TEXT_SCHEMA,
        )


class _Resumed:
    """``readline`` over some bytes already read, then the rest of the input."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self.head, self.rest = io.BytesIO(head), rest

    def readline(self, limit: int) -> bytes:
        """Up to ``limit`` bytes, to and including the next newline."""
        line = self.head.readline(limit)
        if line.endswith(b"\n") or len(line) >= limit:
            return line
        return line + self.rest.readline(limit - len(line))


def _line_by_line(handle: BinaryIO | _Resumed, remaining: int, line_no: int, batch_rows: int,
                  name: str) -> Iterator[pa.RecordBatch]:
    """The per-line reader: every line decoded on its own, its problem (if any) named."""
    lines: list[str] = []
    problems: list[str | None] = []
    while remaining > 0:
        raw = handle.readline(MAX_LINE_BYTES + 1)
        if not raw:
            break
        remaining -= len(raw)
        problem = None
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            remaining -= _skip_rest_of_line(handle)
            problem = f"line longer than {MAX_LINE_BYTES} bytes"
        try:
            text = raw.rstrip(b"\r\n").decode("utf-8")
        except UnicodeDecodeError as exc:
            text = raw.rstrip(b"\r\n").decode("utf-8", errors="replace")
            problem = problem or f"not UTF-8 text ({exc.reason} at byte {exc.start})"
        lines.append(text)
        problems.append(problem)
        if len(lines) >= batch_rows:
            yield _text_batch(lines, problems, line_no, name)
            line_no += len(lines)
            lines, problems = [], []
    if lines:
        yield _text_batch(lines, problems, line_no, name)


def _text_batch(lines: list[str], problems: list[str | None], first: int, name: str) -> pa.RecordBatch:
    n = len(lines)
    return pa.RecordBatch.from_arrays(
        [pa.array(lines, pa.string()), pa.array(range(first, first + n), pa.int64()),
         pa.array([name] * n, pa.string()), pa.array(problems, pa.string())],
        schema=TEXT_SCHEMA,
    )


def _skip_rest_of_line(handle: BinaryIO | _Resumed) -> int:
    """Consume the rest of an over-long line; returns the bytes skipped."""
    skipped = 0
    while True:
        chunk = handle.readline(MAX_LINE_BYTES)
        skipped += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return skipped
