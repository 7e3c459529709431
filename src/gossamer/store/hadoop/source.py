"""Bounded-memory reading of a binary stream with absolute offsets: :class:`ByteSource`.

Readers of the container formats parse records straight out of a window ``buf`` of the
file (``buf[i]`` is at absolute offset ``base + i``); :meth:`ByteSource.ensure` slides the
window forward, keeping at most one chunk plus the record in progress in memory.  Input is
``bytes``-like (read in place), a local path, a :class:`~gossamer.store.place.Place` (its
random-access reader) or any object with ``read(n)`` (and ``seek``/``tell`` for seeking
backwards or far forwards: a Python file, a pyarrow ``NativeFile``).
"""

from __future__ import annotations

import os
from typing import Any, BinaryIO

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.place import Place

CHUNK = 1 << 20
"""Bytes read from the stream at a time."""

Input = bytes | bytearray | memoryview | str | os.PathLike[str] | Place | BinaryIO | Any


def open_input(source: Input, name: str | None = None) -> tuple[Any, str, bool]:
    """``(stream or bytes, display name, whether this call opened it)`` for any supported input."""
    if isinstance(source, bytes | bytearray | memoryview):
        return bytes(source), name or "<bytes>", False
    if isinstance(source, Place):
        return source.open_input(), name or source.display(), True
    if isinstance(source, str | os.PathLike):
        return open(source, "rb"), name or os.fspath(source), True  # noqa: SIM115 - closed by the reader
    if hasattr(source, "read"):
        return source, name or str(getattr(source, "name", None) or "<stream>"), False
    raise TypeError(f"cannot read from {type(source).__name__}")


class ByteSource:
    """A sliding window over a stream (see the module docstring)."""

    __slots__ = ("base", "buf", "chunk", "eof", "i", "name", "stream")

    def __init__(self, data: Any, name: str, *, chunk: int = CHUNK) -> None:
        self.name = name
        self.chunk = chunk
        if isinstance(data, bytes):
            self.stream, self.buf, self.eof = None, data, True
        else:
            self.stream, self.buf, self.eof = data, b"", False
        self.base = 0 if self.stream is None else _tell(self.stream)
        self.i = 0

    @property
    def pos(self) -> int:
        """Absolute offset of the next unread byte."""
        return self.base + self.i

    def error(self, expected: str, pos: int | None = None) -> HadoopFormatError:
        return HadoopFormatError(expected, file=self.name, offset=self.pos if pos is None else pos)

    def ensure(self, size: int) -> bool:
        """Whether ``size`` bytes are in the window from ``i`` on (reading more when needed)."""
        if len(self.buf) - self.i >= size:
            return True
        if self.eof:
            return False
        parts = [self.buf[self.i:]]
        have = len(parts[0])
        while have < size and not self.eof:
            block = self.stream.read(max(size - have, self.chunk))
            if not block:
                self.eof = True
                break
            parts.append(bytes(block))
            have += len(block)
        self.base += self.i
        self.i = 0
        self.buf = b"".join(parts)
        return have >= size

    def take(self, size: int, what: str) -> int:
        """Start (in ``buf``) of the next ``size`` bytes, consumed; :class:`HadoopFormatError` if the file ends."""
        if not self.ensure(size):
            raise self.error(f"{size} bytes of {what}, found {len(self.buf) - self.i} (truncated file)")
        start = self.i
        self.i = start + size
        return start

    def at_end(self) -> bool:
        return not self.ensure(1)

    def seek(self, offset: int) -> None:
        """Continue reading at absolute ``offset``."""
        if self.base <= offset <= self.base + len(self.buf):
            self.i = offset - self.base
            return
        if self.stream is None:
            raise self.error(f"an offset inside the file, found {offset}")
        if _can_seek(self.stream):
            self.stream.seek(offset)
            self.base, self.i, self.buf, self.eof = offset, 0, b"", False
            return
        if offset < self.base:
            raise self.error(f"a forward offset on a stream that cannot seek, found {offset}")
        self.i = len(self.buf)
        while self.pos < offset and self.ensure(min(offset - self.pos, self.chunk)):
            self.i += min(offset - self.pos, len(self.buf) - self.i)
        if self.pos < offset:
            raise self.error(f"offset {offset} inside the file (truncated)")

    def find(self, pattern: bytes) -> bool:
        """Move to the next occurrence of ``pattern`` at or after the current offset; ``False`` (at the end) if none."""
        size = len(pattern)
        while True:
            self.ensure(size)
            found = self.buf.find(pattern, self.i)
            if found >= 0:
                self.i = found
                return True
            if self.eof:
                self.i = len(self.buf)
                return False
            self.i = max(self.i, len(self.buf) - size + 1)
            self.ensure(len(self.buf) - self.i + self.chunk)

    def close(self) -> None:
        if self.stream is not None and hasattr(self.stream, "close"):
            self.stream.close()


def _can_seek(stream: Any) -> bool:
    probe = getattr(stream, "seekable", None)
    try:
        return bool(probe()) if callable(probe) else hasattr(stream, "seek")
    except (OSError, ValueError):
        return False


def _tell(stream: Any) -> int:
    try:
        return int(stream.tell())
    except (AttributeError, OSError, ValueError):
        return 0
