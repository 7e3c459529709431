"""What a path names in Hadoop's layout: a SequenceFile, a MapFile (or ArrayFile) directory, or a job's output.

Hadoop jobs write a directory of parts (``part-00000``, ``part-r-00000`` …), each a
SequenceFile or a MapFile directory (``data`` + ``index``), beside ``_SUCCESS`` and
``.crc`` files; Nutch tables (``crawldb/current``, ``segments/*/content``) are such
directories.  :func:`data_files` lists the SequenceFiles to read for every record, in part
order; :func:`map_files` lists the MapFile directories to search for a key.
"""

from __future__ import annotations

import re

from gossamer.store.hadoop.errors import HadoopFormatError
from gossamer.store.place import Place

DATA, INDEX = "data", "index"
PART = re.compile(r"^part-(?:[rm]-)?\d+$")
"""Names of a job's output parts (old API ``part-00000``, new API ``part-r-00000`` / ``part-m-00000``)."""


def is_map_file(place: Place) -> bool:
    """Whether ``place`` is a MapFile directory (it holds ``data`` and ``index``)."""
    return place.is_dir() and (place / DATA).is_file() and (place / INDEX).is_file()


def part_names(place: Place) -> list[str]:
    """The part names in a job's output directory, in order."""
    return sorted(name for name in place.child_names() if PART.match(name))


def data_files(place: Place) -> list[Place]:
    """The SequenceFiles holding the records of ``place`` (a file, a MapFile, or a directory of parts).

    Raises :class:`HadoopFormatError` when ``place`` does not exist or is a directory with
    neither ``data``/``index`` nor parts.
    """
    if place.is_file():
        return [place]
    if not place.is_dir():
        raise HadoopFormatError("expected a SequenceFile, MapFile or directory of parts, found nothing",
                                file=place.display())
    if is_map_file(place):
        return [place / DATA]
    parts = part_names(place)
    if not parts:
        raise HadoopFormatError("expected 'data' and 'index' (a MapFile) or part-NNNNN files (a job's output)",
                                file=place.display())
    return [place / name / DATA if is_map_file(place / name) else place / name for name in parts]


def map_files(place: Place) -> list[Place]:
    """The MapFile directories of ``place`` (itself, or its parts); a key is looked up in each.

    Raises :class:`HadoopFormatError` when ``place`` holds no MapFile (a plain SequenceFile
    has no index to look keys up in).
    """
    if is_map_file(place):
        return [place]
    found = [place / name for name in part_names(place) if is_map_file(place / name)] if place.is_dir() else []
    if not found:
        raise HadoopFormatError("expected a MapFile directory ('data' and 'index') or parts that are MapFiles "
                                "(a key can only be looked up in a MapFile)", file=place.display())
    return found
