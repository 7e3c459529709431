"""SequenceFiles as an engine input: splits are byte ranges, cut at sync markers by the reader.

:class:`SequenceFileSource` lists a split per ``split_bytes`` of each file (a file without
sync markers — version 1 — is one split).  A split opens its own
:class:`~gossamer.store.hadoop.SequenceFileReader` with ``start``/``end`` and
``lenient=True``, so splitting a file anywhere yields every record exactly once (Hadoop's
``SequenceFileRecordReader`` rule) and a Spark executor can read a split of a big file.

Rows (:data:`RAW_SCHEMA`): ``key`` and ``value`` (serialized bytes, values decompressed),
``value_class`` (the header's Java class), ``file`` and ``problem``.  A good record has
``problem`` null; what the reader could not read becomes a row with null key and value,
the error in ``problem`` (file, byte offset, what was expected) and the records it cost in
``lost``.  A file that cannot even be opened (bad magic, truncated header, unknown codec)
is one such row.  Map functions count and report those rows; nothing stops at a bad record.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa

from gossamer.store import Place
from gossamer.store.hadoop import HadoopFormatError, SequenceFileReader

RAW_SCHEMA = pa.schema([
    pa.field("key", pa.binary()),
    pa.field("value", pa.binary()),
    pa.field("value_class", pa.string()),
    pa.field("file", pa.string()),
    pa.field("problem", pa.string()),
    pa.field("lost", pa.int64()),
])
SPLIT_BYTES = 64 * 1024 * 1024


def _batch(keys: list[bytes | None], values: list[bytes | None], value_class: str, file: str,
           problems: list[str | None], lost: list[int]) -> pa.RecordBatch:
    n = len(keys)
    return pa.RecordBatch.from_arrays(
        [pa.array(keys, pa.binary()), pa.array(values, pa.binary()), pa.array([value_class] * n, pa.string()),
         pa.array([file] * n, pa.string()), pa.array(problems, pa.string()), pa.array(lost, pa.int64())],
        schema=RAW_SCHEMA)


def problem_batch(file: str, messages: Sequence[str], lost: int) -> pa.RecordBatch:
    """Rows for records that could not be read: one per message, ``lost`` records in all (≥ one per message)."""
    counts = [1] * len(messages)
    if counts:
        counts[-1] += max(0, lost - len(messages))
    return _batch([None] * len(messages), [None] * len(messages), "", file, list(messages), counts)


@dataclass(frozen=True)
class SequenceFileSplit:
    """Records of ``file`` whose sync block starts in ``[start, end)`` (``end`` None: to the end)."""

    file: Place
    start: int
    end: int | None

    def describe(self) -> str:
        """File and byte range."""
        return f"{self.file.display()}:{self.start}-{'' if self.end is None else self.end}"

    def size_bytes(self) -> int:
        """Bytes of the range."""
        return (self.end if self.end is not None else self.file.size()) - self.start

    def read(self, batch_rows: int) -> Iterator[pa.RecordBatch]:
        """The split's records as :data:`RAW_SCHEMA` batches, then a batch of its problems if any."""
        name = self.file.display()
        try:
            reader = SequenceFileReader(self.file, name=name, start=self.start, end=self.end, lenient=True)
        except (HadoopFormatError, OSError) as exc:
            if self.start == 0:  # one report per file, not one per split
                yield problem_batch(name, [f"cannot open the file: {exc}"], 1)
            return
        with reader:
            value_class = reader.value_class
            keys: list[bytes | None] = []
            values: list[bytes | None] = []
            try:
                for key, value in reader.raw():
                    keys.append(key)
                    values.append(value)
                    if len(keys) >= batch_rows:
                        yield _batch(keys, values, value_class, name, [None] * len(keys), [0] * len(keys))
                        keys, values = [], []
            except (HadoopFormatError, OSError) as exc:  # not resynchronisable: the rest of the split is lost
                reader.problems.append(exc if isinstance(exc, HadoopFormatError) else HadoopFormatError(
                    str(exc), file=name))
                reader.skipped_records += 1
            if keys:
                yield _batch(keys, values, value_class, name, [None] * len(keys), [0] * len(keys))
            if reader.problems or reader.skipped_records:
                messages = [str(problem) for problem in reader.problems] or [f"{name}: records skipped"]
                yield problem_batch(name, messages, reader.skipped_records)


@dataclass(frozen=True)
class SequenceFileSource:
    """SequenceFiles (``files``: data files of MapFiles or plain SequenceFiles), split every ``split_bytes``."""

    files: tuple[Place, ...]
    split_bytes: int = SPLIT_BYTES

    def splits(self) -> list[SequenceFileSplit]:
        """Byte ranges of about ``split_bytes`` (the reader moves each start to the next sync marker)."""
        result: list[SequenceFileSplit] = []
        for file in self.files:
            try:
                size = file.size()
            except OSError:
                size = 0
            if size <= self.split_bytes:
                result.append(SequenceFileSplit(file, 0, None))
                continue
            starts = list(range(0, size, self.split_bytes))
            for i, start in enumerate(starts):
                result.append(SequenceFileSplit(file, start, starts[i + 1] if i + 1 < len(starts) else None))
        return result
