"""The local filesystem's :class:`~gossamer.store.place.Place`: a :class:`pathlib.Path` that is also a place.

Because a :class:`LocalPlace` *is* a ``Path``, the store's local code paths (file
descriptors, ``os.rename``, ``fsync``, ``flock``, hard links, ``shutil``) take it as
they are, and ``/``, ``parent`` and ``resolve()`` give ``LocalPlace`` objects again.
Directory renames are atomic (POSIX ``rename``): tables install by rename.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PosixPath
from typing import Any, BinaryIO

import pyarrow as pa

from gossamer.store.place import Place


class LocalPlace(PosixPath, Place):
    """A place on this machine's filesystem (see the module docstring)."""

    __slots__ = ()

    @property
    def is_local(self) -> bool:
        """Always true."""
        return True

    def local_path(self) -> Path:
        """The place as a plain ``Path``."""
        return Path(self)

    @property
    def atomic_rename(self) -> bool:
        """Always true: POSIX ``rename`` of a directory is atomic."""
        return True

    def display(self) -> str:
        """The path as given."""
        return str(self)

    def make_dirs(self) -> None:
        """``mkdir -p``."""
        self.mkdir(parents=True, exist_ok=True)

    def child_names(self) -> list[str]:
        """Names of the entries of this directory, sorted; empty when it does not exist."""
        try:
            return sorted(os.listdir(self))
        except (FileNotFoundError, NotADirectoryError):
            return []

    def size(self) -> int:
        """``st_size``."""
        return self.stat().st_size

    def open_binary(self) -> BinaryIO:
        """The file opened for binary reading."""
        return open(self, "rb")  # noqa: SIM115 - the caller closes it

    def open_input(self) -> Any:
        """A random-access reader of the file."""
        return pa.OSFile(str(self), "rb")

    def open_output(self) -> Any:
        """A binary write stream (the file is replaced)."""
        return open(self, "wb")  # noqa: SIM115 - the caller closes it

    def delete_tree(self) -> bool:
        """Remove the directory tree (or the file); whether there was one."""
        if self.is_dir() and not self.is_symlink():
            shutil.rmtree(self)
            return True
        if self.exists() or self.is_symlink():
            self.unlink()
            return True
        return False

    def delete_file(self) -> None:
        """Remove the file; no error when absent."""
        self.unlink(missing_ok=True)
