"""Input sources for jobs: text files split at line boundaries, and stored tables.

A text split yields batches with columns ``line`` (the text without its line
ending), ``line_no`` (1-based, in its file), ``file`` and ``problem``: null for a
good line, else why the line cannot be used as it is (not UTF-8 — the text then
has replacement characters — or too long, in which case only its start is kept;
see :mod:`gossamer.engine.text_lines`).  Map functions report such lines instead
of using them.  Compressed files (``.gz``, ``.bz2``, ``.xz``) are decompressed on
the fly and read as one split.  A table split yields one part of a table version.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import pyarrow as pa
import pyarrow.fs as pafs

from gossamer.engine.text_lines import line_batches
from gossamer.store import Place, TableDescription, TableVersion, as_place, is_uri, part_name

SPLIT_BYTES = 32 * 1024 * 1024
UNBOUNDED = 2**62
"""Split end meaning "to the end of the file" (compressed inputs)."""
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def open_raw_input(path: str) -> BinaryIO:
    """Open a local path or a URI (``s3://…``, see :class:`Location`) for buffered, seekable binary reading."""
    return as_place(path).open_binary()


def _shown(path: str) -> str:
    """A path or URI for messages (a URI without its filesystem options)."""
    return path.split("?", 1)[0] if is_uri(path) else path


def input_size(path: str) -> int:
    """Size in bytes of a local file or of an object named by a URI."""
    return as_place(path).size()


def open_text_input(path: str) -> BinaryIO:
    """Open a text input (a path or a URI) for binary reading, decompressing ``.gz``, ``.bz2`` and ``.xz``."""
    raw, name = open_raw_input(path), _shown(path)
    if name.endswith(".gz"):
        return gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[return-value]
    if name.endswith(".bz2"):
        return bz2.BZ2File(raw, "rb")  # type: ignore[return-value]
    if name.endswith(".xz"):
        return lzma.LZMAFile(raw, "rb")  # type: ignore[return-value]
    return raw


@dataclass(frozen=True)
class TextSplit:
    """Lines of ``path`` starting in byte range [start, end); ``first_line`` is the line number at start."""

    path: str
    start: int
    end: int
    first_line: int

    def describe(self) -> str:
        """File and line where the split starts."""
        return f"{_shown(self.path)}:{self.first_line}"

    def size_bytes(self) -> int:
        """Length of the byte range (for a compressed file: four times its size)."""
        if self.end == UNBOUNDED:
            return input_size(self.path) * 4
        return self.end - self.start

    def read(self, batch_rows: int) -> Iterator[pa.RecordBatch]:
        """Yield the split's lines in batches of up to ``batch_rows`` (see :mod:`gossamer.engine.text_lines`)."""
        with open_text_input(self.path) as handle:
            if self.start:
                handle.seek(self.start)
            yield from line_batches(handle, self.end - self.start, self.first_line, batch_rows, _shown(self.path))


@dataclass(frozen=True)
class TextSource:
    """Text files (a file, or every regular non-hidden file in a directory), split for parallel reading."""

    paths: Sequence[str]
    split_bytes: int = SPLIT_BYTES

    def __post_init__(self) -> None:
        # Absolute, so a task on another machine or in another working directory (a Spark
        # executor) reads the same files the driver named.  URIs stay as they are.
        object.__setattr__(self, "paths", tuple(p if is_uri(p) else os.path.abspath(p) for p in self.paths))

    @classmethod
    def from_path(cls, path: Place) -> TextSource:
        """Files of ``path`` (a file or a directory, not recursive; local or a Location), sorted by name."""
        path = as_place(path)
        if not path.is_local:
            if path.is_file():
                return cls((str(path),))
            files = [str(path / info.base_name) for info in path.list()
                     if info.type == pafs.FileType.File and not info.base_name.startswith((".", "_"))]
            if not files:
                raise FileNotFoundError(f"no such file or directory (or no files in it): {path.display()}")
            return cls(tuple(files))
        path = path.local_path()
        if path.is_dir():
            files = sorted(str(p) for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        elif path.is_file():
            files = [str(path)]
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
        return cls(tuple(files))

    def splits(self) -> list[TextSplit]:
        """Line-aligned byte ranges of about ``split_bytes`` each, with their first line numbers."""
        result: list[TextSplit] = []
        for path in self.paths:
            size = input_size(path)
            if _shown(path).endswith(COMPRESSED_SUFFIXES):  # not splittable: one split, read to the end
                result.append(TextSplit(path, 0, UNBOUNDED, 1))
                continue
            with open_raw_input(path) as handle:
                start, line = 0, 1
                while start < size:
                    end = _next_line_start(handle, min(start + self.split_bytes, size), size)
                    result.append(TextSplit(path, start, end, line))
                    handle.seek(start)
                    line += _count_newlines(handle, end - start)
                    start = end
        return result


def _next_line_start(handle: BinaryIO, position: int, size: int) -> int:
    """Offset just after the first newline at or after ``position`` (``size`` if none); reads in chunks."""
    if position >= size:
        return size
    handle.seek(position)
    while True:
        chunk = handle.read(1024 * 1024)
        if not chunk:
            return size
        found = chunk.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(chunk)


def _count_newlines(handle: BinaryIO, length: int) -> int:
    count = 0
    while length > 0:
        chunk = handle.read(min(length, 8 * 1024 * 1024))
        if not chunk:
            break
        count += chunk.count(b"\n")
        length -= len(chunk)
    return count


@dataclass(frozen=True)
class TablePartSplit:
    """Part ``index`` of a table version; ``directory`` is a local path or a Location's URI string.

    ``columns``: read only these (those the part has; ``None``: every column).
    """

    directory: str
    index: int
    columns: tuple[str, ...] | None = None

    def describe(self) -> str:
        """Table directory and part."""
        place = as_place(self.directory)
        return f"{place.display()} part {self.index}"

    def size_bytes(self) -> int:
        """Compressed size of the part file (a Parquet part expands several times in memory)."""
        return (as_place(self.directory) / part_name(self.index)).size() * 4

    def read(self, batch_rows: int) -> Iterator[pa.RecordBatch]:
        """Stream the part in key order."""
        with TableVersion(self.directory) as version:
            columns = None
            if self.columns is not None:
                present = set(version.schema().names)
                columns = [name for name in self.columns if name in present]
            yield from version.iter_part(self.index, batch_rows, columns)


@dataclass(frozen=True)
class TableSource:
    """A stored table version: one split per part (part order = split order).

    ``directory`` is a local path or the string of a :class:`~gossamer.store.location.Location`
    (which carries its filesystem options), so splits pickle into any worker.
    """

    directory: str
    columns: tuple[str, ...] | None = None
    """Read only these columns (those a part has); ``None``: every column."""

    def __post_init__(self) -> None:
        # A relative local path would name another directory in a Spark executor's working directory.
        object.__setattr__(self, "directory", str(as_place(self.directory).absolute()))

    def splits(self) -> list[TablePartSplit]:
        """One split per part."""
        return [TablePartSplit(self.directory, i, self.columns) for i in range(self.parts)]

    @property
    def parts(self) -> int:
        """Number of parts of the table."""
        return self.description.parts

    @property
    def description(self) -> TableDescription:
        """The table's ``_table.json``."""
        with TableVersion(self.directory) as version:
            return version.description
