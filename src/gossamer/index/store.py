"""The index directory: versions of N tantivy shards, installed atomically like every crawl table.

Layout::

    index/current/_index.json      {"shards": N, "docs": …, "fields": [...], "created": ms}
    index/current/_SUCCESS
    index/current/shard-00000/     one tantivy index per shard (meta.json, segment files)
    index/old/                     the previous version (kept with db.preserve.backup)

A document lives in shard ``crc32(url) mod N`` (URL hash, so shards stay even
however the hosts are sized).  Writers build the next version in a ``tmp-*``
directory next to ``current`` — starting from hard links to the current shards'
files, which tantivy never changes once written — and install it by rename under
the directory's lock, so readers see the old or the new index, never a mixture,
and a crash leaves the last good version.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tantivy

from gossamer.index.schema import fields_from_json, fields_to_json
from gossamer.plugins import IndexField
from gossamer.store import SUCCESS_MARKER, Place, TableError, fsync_path, live_version_dir

INDEX_FILE = "_index.json"
_LOCK_SUFFIX = ".lock"


def shard_name(index: int) -> str:
    """Directory name of shard ``index``."""
    return f"shard-{index:05d}"


def shard_of(url: str, shards: int) -> int:
    """The shard holding ``url``'s document."""
    return zlib.crc32(url.encode("utf-8")) % shards


@dataclass(frozen=True)
class IndexDescription:
    """What ``_index.json`` records about an index version."""

    shards: int
    docs: int
    fields: tuple[IndexField, ...]
    created: int
    ballast: tuple[dict[str, Any] | None, ...] = ()
    """Per shard: the ballast documents it holds (``{"docs": n, "tokens": {field: count}}``), see
    :mod:`gossamer.index.ballast`."""

    def ballast_of(self, shard: int) -> dict[str, Any] | None:
        """The ballast record of one shard (``None``: none)."""
        return self.ballast[shard] if shard < len(self.ballast) else None

    def to_json(self) -> str:
        """Serialize as JSON."""
        return json.dumps({"shards": self.shards, "docs": self.docs, "created": self.created,
                           "fields": json.loads(fields_to_json(self.fields)), "ballast": list(self.ballast)},
                          indent=1)

    @classmethod
    def read(cls, directory: Place) -> IndexDescription:
        """Read ``directory/_index.json`` (local or on any filesystem); :class:`TableError` when incomplete."""
        if not (directory / SUCCESS_MARKER).is_file():
            raise TableError(f"{directory} is not a complete index version (no {SUCCESS_MARKER})")
        try:
            raw = (directory / INDEX_FILE).read_bytes()
        except OSError as exc:
            raise TableError(f"{directory / INDEX_FILE}: unreadable ({exc})") from exc
        return cls.parse(raw, directory / INDEX_FILE)

    @classmethod
    def parse(cls, raw: bytes, where: object = INDEX_FILE) -> IndexDescription:
        """Parse the bytes of an ``_index.json`` (``where`` names it in the error); :class:`TableError` when bad."""
        try:
            data = json.loads(raw.decode("utf-8"))
            return cls(int(data["shards"]), int(data["docs"]), fields_from_json(json.dumps(data["fields"])),
                       int(data.get("created", 0)), tuple(data.get("ballast") or ()))
        except (ValueError, KeyError, TypeError) as exc:
            raise TableError(f"{where}: unreadable ({exc})") from exc


def verify_index(directory: Place) -> None:
    """Raise :class:`TableError` unless ``directory`` is a complete index version."""
    description = IndexDescription.read(directory)
    missing = [i for i in range(description.shards) if not (directory / shard_name(i) / "meta.json").is_file()]
    if missing:
        raise TableError(f"{directory}: shards {missing[:5]} are missing")


def live_index(index_dir: Place) -> Place | None:
    """The live version directory of an index, or ``None``.

    ``current``, else ``old``; on an object store the version ``CURRENT`` names.
    """
    return live_version_dir(index_dir)


def link_copy(source: Path, target: Path) -> None:
    """Copy a shard directory by hard-linking its files (lock files are not carried over)."""
    target.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.is_file() and not entry.name.endswith(_LOCK_SUFFIX):
            try:
                os.link(entry, target / entry.name)
            except OSError:
                shutil.copy2(entry, target / entry.name)


def finish_index(directory: Path, shards: int, docs: int, fields: Sequence[IndexField],
                 ballast: Sequence[dict[str, Any] | None] = ()) -> None:
    """Write ``_index.json`` and ``_SUCCESS`` into a complete staging version and fsync it."""
    description = IndexDescription(shards, docs, tuple(fields), int(time.time() * 1000), tuple(ballast))
    (directory / INDEX_FILE).write_text(description.to_json() + "\n", encoding="utf-8")
    fsync_path(directory / INDEX_FILE)
    (directory / SUCCESS_MARKER).write_bytes(b"")
    fsync_path(directory)


READ_ONLY_MARKS = ("ReadOnlyFilesystem", "PermissionDenied")
"""How tantivy names a filesystem it cannot write (EROFS, EACCES) when it cannot take its lock file."""


def open_shard(directory: Path) -> tantivy.Index:
    """Open one shard for reading; :class:`TableError` when tantivy cannot.

    tantivy takes a lock file in the shard even to read it, so a shard on a read-only
    filesystem (a read-only mount, a snapshot, a CD) is searched through a private copy
    made here, removed when the process exits.
    """
    try:
        return tantivy.Index.open(str(directory))
    except ValueError as exc:
        if not any(mark in str(exc) for mark in READ_ONLY_MARKS):
            raise TableError(f"{directory}: not a readable index shard ({exc})") from exc
    copy = Path(tempfile.mkdtemp(prefix="gossamer-ro-shard-")) / directory.name
    atexit.register(shutil.rmtree, copy.parent, True)
    try:
        shutil.copytree(directory, copy)
        return tantivy.Index.open(str(copy))
    except (OSError, ValueError) as exc:
        raise TableError(f"{directory}: read-only, and a private copy failed too ({exc})") from exc
