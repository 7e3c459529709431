"""Files of a segment on any filesystem: what is there, and how jobs write into it.

A segment is a local :class:`~pathlib.Path` or a :class:`~gossamer.store.location.Location`
on another filesystem (``s3://``, ``hdfs://``, ``gs://``).  Local segments keep their
rename protocol (a job stages its sub-tables inside the segment and renames them into
place).  Elsewhere — object stores and HDFS alike, one protocol — nothing is renamed:

* a sub-table (``crawl_generate``, ``crawl_fetch``, the parse tables) is written in
  place and is there once its ``_SUCCESS`` exists (written last); without it, its files
  are leftovers of a run that did not finish, and the next writer deletes them first;
* ``content`` (the WARC files) has no marker of its own: it belongs to the fetch, which
  commits by writing ``crawl_fetch/_SUCCESS`` after everything else;
* every writer (a fetch share, a parse group, a Spark task) writes its files into a
  local scratch directory (:class:`ShareOutput`) and uploads each finished file to its
  final name — one upload per file, so a reader never sees half a file.  It reports the
  names it uploaded; before the commit the driver deletes every other file under the
  sub-tables (:func:`sweep_unreported`), the files of failed or retried attempts.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.fs as pafs

from gossamer.store.location import Location
from gossamer.store.place import Place
from gossamer.store.table import SUCCESS_MARKER
from gossamer.store.transfer import copy_file, copy_tree, tree_files

if TYPE_CHECKING:
    from gossamer.core import Settings

GENERATE, FETCH = "crawl_generate", "crawl_fetch"
WARC_SUFFIXES = (".warc.gz", ".warc")
"""A segment, a sub-table or a file: a local path or a Location on another filesystem."""


def place_text(place: Place) -> str:
    """For messages: the path, or the URI without filesystem options."""
    return place.display() if isinstance(place, Location) else str(place)


def table_present(table: Place) -> bool:
    """Whether a segment's sub-table (``<segment>/<name>``) is there.

    Local: its directory exists (renamed into place whole; opening an incomplete one
    raises :class:`~gossamer.store.table.TableError`).  Elsewhere: its ``_SUCCESS``
    exists and, for every table but ``crawl_generate`` and ``crawl_fetch``, so does
    ``crawl_fetch/_SUCCESS`` (nothing made by a fetch that never committed counts).
    Without them the files are leftovers and the table counts as absent.
    """
    if isinstance(table, Path):
        return table.is_dir()
    if not (table / SUCCESS_MARKER).is_file():
        return False
    return table.name in (GENERATE, FETCH) or (table.parent / FETCH / SUCCESS_MARKER).is_file()


def children(directory: Place) -> list[Place]:
    """Direct children (files and directories), by name; empty when absent."""
    if isinstance(directory, Path):
        return sorted(directory.iterdir()) if directory.is_dir() else []
    return [directory / info.base_name for info in directory.list()]


def warc_files(content_dir: Place) -> list[Place]:
    """The WARC files of a segment's ``content`` directory (local or remote), by name."""
    return [p for p in children(content_dir) if p.name.endswith(WARC_SUFFIXES) and p.is_file()]


def file_size(place: Place) -> int:
    """Size of a file in bytes."""
    if isinstance(place, Path):
        return place.stat().st_size
    return place.info().size or 0


def modified_time(place: Place) -> float | None:
    """Epoch seconds a file was last written (None when absent)."""
    if isinstance(place, Path):
        try:
            return place.stat().st_mtime
        except OSError:
            return None
    info = place.info()
    return info.mtime.timestamp() if info.type == pafs.FileType.File and info.mtime is not None else None


def make_dir(place: Place) -> None:
    """Create a directory and its parents when missing (nothing to do on object stores)."""
    if isinstance(place, Path):
        place.mkdir(parents=True, exist_ok=True)
    else:
        place.mkdir()


def remove_tree(place: Place) -> bool:
    """Delete a directory and everything under it; whether anything was there."""
    if isinstance(place, Path):
        if not place.exists():
            return False
        shutil.rmtree(place)
        return True
    if not place.exists():
        return False
    place.delete_dir()
    return True


def scratch_root(settings: Settings | None) -> str | None:
    """Where local scratch files go: ``engine.spill.dir``, else the system's temporary directory."""
    spill = settings.get_str("engine.spill.dir") if settings is not None else ""
    if spill:
        Path(spill).mkdir(parents=True, exist_ok=True)
    return spill or None


@contextmanager
def local_copy(place: Place, settings: Settings | None = None) -> Iterator[Path]:
    """A local path holding the file: itself when local, else a download removed afterwards."""
    if isinstance(place, Path):
        yield place
        return
    scratch = Path(tempfile.mkdtemp(prefix="gossamer-read-", dir=scratch_root(settings)))
    try:
        target = scratch / place.name
        copy_file(place, target)
        yield target
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


class ShareOutput:
    """The local directory one writer (fetch share, parse group, Spark task) writes its files into.

    For a local segment it is the job's staging directory inside the segment
    (``<segment>/<staging>``), which the driver renames into place.  For a segment
    elsewhere it is a fresh scratch directory on this machine; :meth:`publish`
    uploads every file under it to the same relative name under the segment and
    returns those names (what the driver keeps: :func:`sweep_unreported`).
    ``suffix`` is empty locally and a random token elsewhere, for file names that
    must differ between attempts of the same task (WARC files).
    """

    def __init__(self, segment: Place, staging: str, settings: Settings) -> None:
        self.segment = segment
        if isinstance(segment, Path):
            self.directory = segment / staging
            self.directory.mkdir(parents=True, exist_ok=True)
            self.suffix = ""
        else:
            self.directory = Path(tempfile.mkdtemp(prefix=f"gossamer-{segment.name}-",
                                                   dir=scratch_root(settings)))
            self.suffix = f"-{uuid.uuid4().hex[:8]}"

    def publish(self) -> list[str]:
        """Upload the finished files (remote segments; then the scratch is removed); their relative names."""
        if isinstance(self.segment, Path):
            return []
        names = tree_files(self.directory)
        try:
            copy_tree(self.directory, self.segment)  # one whole-file upload each: never part of a file
        finally:
            self.discard()
        return names

    def discard(self) -> None:
        """Remove the scratch directory (remote segments; a local staging directory is the driver's)."""
        if not isinstance(self.segment, Path):
            shutil.rmtree(self.directory, ignore_errors=True)


def sweep_unreported(segment: Location, tables: Sequence[str], reported: Collection[str]) -> list[str]:
    """Delete every file under ``segment/<table>/`` that no successful writer reported; their names.

    Run by the driver before it writes any descriptor or ``_SUCCESS``: files of failed
    or retried attempts (Spark task retries) never become part of a committed table.
    """
    keep = set(reported)
    removed = []
    for table in tables:
        for name in (f"{table}/{file}" for file in tree_files(segment / table)):
            if name not in keep:
                (segment / name).delete_file()
                removed.append(name)
    return removed


def clear_tables(segment: Location, tables: Sequence[str]) -> list[str]:
    """Delete the uncommitted ``tables`` of a remote segment (leftovers of a run that died); those removed."""
    return [table for table in tables if remove_tree(segment / table)]
