"""MapFile and ArrayFile: a sorted SequenceFile ``data`` plus a sparse ``index``, reader and writer.

A MapFile is a directory with two SequenceFiles:

* ``data`` — the records, keys in non-decreasing order of the key class's comparator (Text:
  unsigned bytes; LongWritable: value; see ``WritableCodec.sort_key``);
* ``index`` — key → ``LongWritable`` byte offset in ``data``, always BLOCK-compressed with
  ``DefaultCodec``: an entry for the first key and then for the first key at least
  ``io.map.index.interval`` (128) keys after the last entry whose data position moved (in a
  BLOCK ``data`` file that is one entry per block, pointing at the block's sync marker).

:meth:`MapFileReader.get` binary-searches the index (held in memory) for the last entry
before the key, seeks there in ``data`` and scans forward.  An ArrayFile is a MapFile whose
keys are ``LongWritable`` 0…n−1 (:class:`ArrayFileWriter`, :class:`ArrayFileReader`).
"""

from __future__ import annotations

import bisect
import os
from pathlib import Path
from typing import Any

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.hadoop.registry import DEFAULT_REGISTRY
from gossamer.store.hadoop.seqfile_header import BLOCK, CURRENT_VERSION, NONE, RECORD
from gossamer.store.hadoop.seqfile_reader import SequenceFileReader
from gossamer.store.hadoop.seqfile_writer import BLOCK_SIZE, SYNC_INTERVAL, SequenceFileWriter
from gossamer.store.hadoop.writable import WritableRegistry
from gossamer.store.hadoop.writables_basic import LONG
from gossamer.store.place import Place

INDEX_INTERVAL = 128
"""``io.map.index.interval``."""

DATA, INDEX = "data", "index"

Directory = str | os.PathLike[str] | Place


def _child(directory: Directory, name: str) -> Place | Path:
    return directory / name if isinstance(directory, Place) else Path(directory) / name


def _make_dir(directory: Directory) -> None:
    if isinstance(directory, Place):
        directory.make_dirs()
    else:
        Path(directory).mkdir(parents=True, exist_ok=True)


def _display(directory: Directory) -> str:
    return directory.display() if isinstance(directory, Place) else os.fspath(directory)


class MapFileWriter:
    """Writes a new MapFile directory; keys must come in order (an out-of-order key is refused).

    ``block_size`` (``io.seqfile.compress.blocksize``) and ``sync_interval`` apply to ``data``
    and ``index`` alike, as Hadoop's configuration and writer options do; ``sync`` and
    ``index_sync`` fix the two files' sync markers (for byte-identical output).
    """

    def __init__(self, directory: Directory, key_class: str, value_class: str, *, compression: str = NONE,
                 codec: str | None = None, index_interval: int = INDEX_INTERVAL, sync: bytes | None = None,
                 index_sync: bytes | None = None, version: int = CURRENT_VERSION,
                 registry: WritableRegistry | None = None, block_size: int = BLOCK_SIZE,
                 sync_interval: int = SYNC_INTERVAL) -> None:
        self.registry = registry or DEFAULT_REGISTRY
        self.key_codec = self.registry.get(key_class)
        self.value_codec = self.registry.get(value_class)
        self.name = _display(directory)
        _make_dir(directory)
        self.data = SequenceFileWriter(_child(directory, DATA), key_class, value_class, compression=compression,
                                       codec=codec, sync=sync, version=version, registry=self.registry,
                                       block_size=block_size, sync_interval=sync_interval)
        self.index = SequenceFileWriter(_child(directory, INDEX), key_class, LONG.java_class, compression=BLOCK,
                                        sync=index_sync, version=max(version, 4), registry=self.registry,
                                        block_size=block_size, sync_interval=sync_interval)
        self.index_interval = index_interval
        self.size = 0
        self._last_key: Any = None
        self._last_index_pos = -1
        self._last_index_count: int | None = None

    def append(self, key: Any, value: Any) -> None:
        """Append a record; :class:`HadoopFormatError` if ``key`` sorts before the previous key."""
        order = self.key_codec.sort_key(key)
        if self.size and order < self._last_key:
            raise HadoopFormatError(f"keys in non-decreasing order, found {key!r} after a greater key",
                                    file=self.name)
        position = self.data.tell()
        due = self._last_index_count is None or self.size >= self._last_index_count + self.index_interval
        if due and position > self._last_index_pos:
            self.index.append(key, position)
            self._last_index_pos = position
            self._last_index_count = self.size
        self.data.append(key, value)
        self._last_key = order
        self.size += 1

    def close(self) -> None:
        self.data.close()
        self.index.close()

    def __enter__(self) -> MapFileWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class MapFileReader:
    """An open MapFile directory: :meth:`get` by key, iteration in key order."""

    def __init__(self, directory: Directory, *, registry: WritableRegistry | None = None,
                 lenient: bool = False) -> None:
        self.registry = registry or DEFAULT_REGISTRY
        self.name = _display(directory)
        with SequenceFileReader(_child(directory, INDEX), registry=self.registry) as index:
            entries = list(index)
        self.data = SequenceFileReader(_child(directory, DATA), registry=self.registry, lenient=lenient)
        self.key_codec = self.data.key_codec
        self.value_codec = self.data.value_codec
        self.index_keys = [key for key, _ in entries]
        self.index_positions = [position for _, position in entries]
        self._index_order = [self.key_codec.sort_key(key) for key in self.index_keys]
        if any(a > b for a, b in zip(self._index_order, self._index_order[1:], strict=False)):
            raise HadoopFormatError("index keys in order (corrupt index)", file=self.name)

    def get(self, key: Any, default: Any = None) -> Any:
        """The value of the first record with ``key``, or ``default`` when there is none."""
        order = self.key_codec.sort_key(key)
        entry = bisect.bisect_left(self._index_order, order) - 1
        self.data.seek(self.index_positions[entry] if entry >= 0 else self.data.header.length)
        for raw_key, raw_value in self.data.raw():
            found = self.key_codec.sort_key(self.key_codec.deserialize(raw_key, name=self.data.name))
            if found == order:
                return self.value_codec.deserialize(raw_value, name=self.data.name)
            if found > order:
                break
        return default

    def __contains__(self, key: Any) -> bool:
        missing = object()
        return self.get(key, missing) is not missing

    def __iter__(self) -> Any:
        """``(key, value)`` of every record, in file order."""
        self.data.seek(self.data.header.length)
        return iter(self.data)

    def close(self) -> None:
        self.data.close()

    def __enter__(self) -> MapFileReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ArrayFileWriter:
    """An ArrayFile: values numbered 0, 1, … as ``LongWritable`` keys of a MapFile.

    ``options`` are :class:`MapFileWriter`'s; the default compression is RECORD with
    ``DefaultCodec``, what Hadoop's ``ArrayFile.Writer`` uses (``io.seqfile.compression.type``),
    except for versions before 3 (Nutch 0.x), which have no compression.
    """

    def __init__(self, directory: Directory, value_class: str, **options: Any) -> None:
        if options.get("version", CURRENT_VERSION) >= 3:
            options.setdefault("compression", RECORD)
        self.map = MapFileWriter(directory, LONG.java_class, value_class, **options)
        self.count = 0

    def append(self, value: Any) -> int:
        """Append ``value``; its number."""
        self.map.append(self.count, value)
        self.count += 1
        return self.count - 1

    def close(self) -> None:
        self.map.close()

    def __enter__(self) -> ArrayFileWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ArrayFileReader:
    """An open ArrayFile: :meth:`get` by number, iteration over the values in order."""

    def __init__(self, directory: Directory, **options: Any) -> None:
        self.map = MapFileReader(directory, **options)

    def get(self, number: int, default: Any = None) -> Any:
        return self.map.get(number, default)

    def __iter__(self) -> Any:
        return (value for _, value in self.map)

    def close(self) -> None:
        self.map.close()

    def __enter__(self) -> ArrayFileReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
