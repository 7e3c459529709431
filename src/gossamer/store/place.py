"""The one type for "a place where a table, segment or index lives": :class:`Place`.

A place is local or remote, and every part above the store works with it through this
interface only — never by asking which kind it is (``tests/test_architecture.py``
refuses ``isinstance`` checks of places outside :mod:`gossamer.store`).  There is one
implementation per filesystem family:

* :class:`~gossamer.store.place_local.LocalPlace` — the local filesystem.  It *is* a
  :class:`pathlib.Path`, so the store keeps its fast local code (file descriptors,
  ``os.rename``, ``fsync``, ``flock``, hard links) and every ``Path`` operation works.
* :class:`~gossamer.store.location.Location` — any pyarrow filesystem: object stores
  (``s3://``, ``gs://``: no atomic rename, tables install through a pointer object) and
  HDFS (``hdfs://``, ``viewfs://``: atomic rename).

:func:`~gossamer.store.location.as_place` makes one from what a user typed (a path, ``file://``, a filesystem URI)
or from an existing place.  Places pickle (Spark tasks and spawned processes receive
them), ``str(place)`` is the path or a URI that ``as_place`` parses back to an equal
place (CLI output and messages), and ``/`` joins.

Install and commit semantics per family are in docs/storage.md.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, BinaryIO


class Place(ABC):
    """A directory or file on some filesystem (see the module docstring for the contract)."""

    __slots__ = ()

    @property
    @abstractmethod
    def name(self) -> str:
        """The last path component."""

    @property
    @abstractmethod
    def parent(self) -> Place:
        """The enclosing directory."""

    @abstractmethod
    def __truediv__(self, name: str) -> Place:
        """The child ``name``."""

    @property
    @abstractmethod
    def is_local(self) -> bool:
        """Whether this is on the local filesystem (then :meth:`local_path` is its OS path)."""

    @abstractmethod
    def local_path(self) -> Path:
        """The OS path of a local place; ``ValueError`` for a remote one (copy it first: ``local_copy``)."""

    @property
    @abstractmethod
    def atomic_rename(self) -> bool:
        """Whether renaming a directory is atomic here (local, HDFS): tables are then installed by rename."""

    @abstractmethod
    def display(self) -> str:
        """The place for messages: the path, or the URI without filesystem options."""

    @abstractmethod
    def absolute(self) -> Place:
        """The same place, independent of the working directory (what a cluster task must receive)."""

    @abstractmethod
    def exists(self) -> bool:
        """Whether a file or directory (a non-empty prefix, on object stores) is here."""

    @abstractmethod
    def is_dir(self) -> bool:
        """Whether this is a directory (on object stores: a prefix with objects under it)."""

    @abstractmethod
    def is_file(self) -> bool:
        """Whether this is a file (an object)."""

    @abstractmethod
    def make_dirs(self) -> None:
        """Create this directory and its parents; no error when it exists (a no-op on object stores)."""

    @abstractmethod
    def child_names(self) -> list[str]:
        """Names of the direct children, sorted; empty when absent."""

    @abstractmethod
    def size(self) -> int:
        """Size of the file in bytes (0 when the filesystem does not say)."""

    @abstractmethod
    def open_binary(self) -> BinaryIO:
        """A buffered binary reader for streaming the file from its start."""

    @abstractmethod
    def open_input(self) -> Any:
        """A random-access binary reader (what Parquet needs)."""

    @abstractmethod
    def open_output(self) -> Any:
        """A binary write stream; bytes are stored as given (never compressed by the file's name)."""

    @abstractmethod
    def read_bytes(self) -> bytes:
        """The whole file, as stored."""

    @abstractmethod
    def write_bytes(self, data: bytes) -> Any:
        """Write the whole file (readers of an object store see the old or the new object)."""

    @abstractmethod
    def delete_tree(self) -> bool:
        """Delete this directory (or file) and everything under it; whether something was there."""

    @abstractmethod
    def delete_file(self) -> None:
        """Delete one file; no error when absent."""
