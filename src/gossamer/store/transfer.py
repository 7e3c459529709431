"""Copying a directory tree between filesystems (local ↔ S3, HDFS …), files in parallel.

Used where a component needs local files but the data lives elsewhere — the
full-text index (tantivy reads and writes local directories only): a version is
downloaded into a local cache, and a version built locally is uploaded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import PurePosixPath

import pyarrow.fs as pafs

from gossamer.store.location import Location
from gossamer.store.place import Place

COPY_THREADS = 8
_CHUNK = 4 << 20


@dataclass(frozen=True)
class Copied:
    """What :func:`copy_tree` copied."""

    files: int
    bytes: int


def _as_location(place: Place) -> Location:
    return place if isinstance(place, Location) else Location("", str(place))


def tree_files(root: Place) -> list[str]:
    """Every file under ``root``, as paths relative to it (``/``-separated), sorted; empty when absent."""
    where = _as_location(root)
    selector = pafs.FileSelector(where.path, allow_not_found=True, recursive=True)
    base = where.path.rstrip("/")
    return sorted(str(PurePosixPath(info.path).relative_to(base))
                  for info in where.fs.get_file_info(selector) if info.type == pafs.FileType.File)


def copy_file(source: Place, target: Place) -> int:
    """Copy one file byte for byte (the target's parents are created); returns the bytes copied.

    On an object store the target object appears, whole, when its upload completes.
    """
    src, dst = _as_location(source), _as_location(target)
    dst.parent.mkdir()
    copied = 0
    # compression=None: pyarrow would otherwise (de)compress by the name's suffix (``.gz``), changing the bytes
    with src.fs.open_input_stream(src.path, compression=None) as reader, \
            dst.fs.open_output_stream(dst.path, compression=None) as writer:
        while chunk := reader.read(_CHUNK):
            writer.write(chunk)
            copied += len(chunk)
    return copied


def copy_tree(source: Place, target: Place, skip: Callable[[str], bool] = lambda _: False,
              last: Iterable[str] = ()) -> Copied:
    """Copy every file under ``source`` to the same relative path under ``target``.

    Files whose relative path ``skip`` accepts are left out; the files named in ``last``
    (relative paths, e.g. ``_SUCCESS``) are copied after all others, one by one in that
    order, so a reader that trusts a marker never sees it before the data.  The other
    files are copied by :data:`COPY_THREADS` threads (pyarrow releases the GIL).
    """
    names = [name for name in tree_files(source) if not skip(name)]
    ordered = list(dict.fromkeys(name for name in last if name in names))
    bulk = [name for name in names if name not in ordered]
    src, dst = _as_location(source), _as_location(target)
    dst.mkdir()

    def one(name: str) -> int:
        return copy_file(src / name, dst / name)

    with ThreadPoolExecutor(max_workers=COPY_THREADS) as pool:
        sizes = list(pool.map(one, bulk))
    sizes += [one(name) for name in ordered]
    return Copied(len(sizes), sum(sizes))


__all__ = ["COPY_THREADS", "Copied", "copy_file", "copy_tree", "tree_files"]
