"""Partitioned, sorted Parquet tables: one directory per table version.

A version directory holds ``part-NNNNN.parquet`` files (one per host-hash part,
empty parts included, each sorted by the key column), a ``_table.json``
description and, once complete, an empty ``_SUCCESS`` marker.  Readers only
trust directories with ``_SUCCESS``.  Single-key lookup hashes the key's host
to its part, picks the row group by the key column's min/max statistics and
binary-searches inside it.

Every function here takes a local path or a :class:`~gossamer.store.location.Location`
(or its string).  Local tables keep the fast path: descriptors pin a version,
files are fsynced.  On other filesystems (S3, HDFS …) parts are written and read
through pyarrow's filesystem; a version is never modified once ``_SUCCESS`` exists,
which is what lets readers use it without pinning (see :mod:`gossamer.store.install`).
"""

from __future__ import annotations

import bisect
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from gossamer.store.location import Location, as_place
from gossamer.store.partitioning import PARTITIONER_NAME, part_of_url
from gossamer.store.place import Place

SUCCESS_MARKER = "_SUCCESS"
_PROC_FD = Path("/proc/self/fd")
DESCRIPTION_FILE = "_table.json"


class TableError(RuntimeError):
    """A table that is missing, incomplete or inconsistent."""


def part_name(index: int, suffix: str = ".parquet") -> str:
    """File name of part ``index`` (``suffix``: another file form, e.g. an Arrow part's ``.arrow``)."""
    return f"part-{index:05d}{suffix}"


@dataclass(frozen=True)
class TableDescription:
    """What ``_table.json`` records about a table version."""

    kind: str
    parts: int
    key: str = "url"
    partitioner: str = PARTITIONER_NAME
    rows: int = 0
    job: str = ""
    created: int = 0
    absorbed: tuple[str, ...] = ()
    """Names of the segments whose results this version holds (updatedb adds them; every job
    that rewrites the table carries them forward), so a segment is not applied twice."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "absorbed", tuple(self.absorbed))

    def to_json(self) -> str:
        """Serialize as JSON."""
        return json.dumps({**self.__dict__, "absorbed": list(self.absorbed)}, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TableDescription:
        """Parse ``_table.json`` text."""
        data = json.loads(text)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})


def parts_dataset(directory: Place | str, files: Sequence[str]) -> ds.Dataset:
    """The Parquet ``files`` of ``directory`` (a table version, or a job's output) as one pyarrow dataset.

    Fragments are in the order given; ``directory`` may be local or on any filesystem a
    :class:`~gossamer.store.location.Location` reaches (read through its pyarrow filesystem).
    """
    place = as_place(directory)
    if isinstance(place, Location):
        return ds.dataset([(place / name).path for name in files], format="parquet", filesystem=place.fs)
    return ds.dataset([str(place / name) for name in files], format="parquet")


def read_parquet_file(path: Place | str, columns: list[str] | None = None,
                      filters: list[tuple[str, str, object]] | None = None) -> pa.Table:
    """One whole Parquet file, local or on another filesystem (FileNotFoundError when absent).

    ``filters`` (pyarrow's ``[(column, op, value)]``) skip row groups by their statistics.
    """
    place = as_place(path)
    if isinstance(place, Location):
        return pq.read_table(place.path, columns=columns, filters=filters, filesystem=place.fs)
    return pq.read_table(place, columns=columns, filters=filters)


def parquet_rows(path: Place | str) -> int:
    """Rows of one Parquet file, from its footer (local or on another filesystem)."""
    place = as_place(path)
    if isinstance(place, Location):
        with place.open_input() as handle, pq.ParquetFile(handle) as part:
            return part.metadata.num_rows
    with pq.ParquetFile(place) as part:
        return part.metadata.num_rows


def fsync_path(path: Path) -> None:
    """Flush a file or directory to stable storage (best effort on odd filesystems)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def conform_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """``batch`` with ``schema``: its columns picked by name and cast where their types differ (itself when equal)."""
    if batch.schema == schema:
        return batch
    return pa.RecordBatch.from_arrays([batch.column(f.name).cast(f.type) for f in schema], schema=schema)


class PartWriter:
    """Writes one sorted part file; call :meth:`write` with batches in key order, then :meth:`close`."""

    def __init__(self, path: Place | str, schema: pa.Schema, row_group_rows: int,
                 compression: str) -> None:
        self.path = as_place(path)
        self.rows = 0
        self._row_group_rows = row_group_rows
        self._schema = schema
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        where = self.path
        self._writer = pq.ParquetWriter(
            where.path if isinstance(where, Location) else where,
            schema,
            filesystem=where.fs if isinstance(where, Location) else None,
            compression=compression,
            sorting_columns=[pq.SortingColumn(0)],
            write_statistics=True,
        )

    def write(self, batch: pa.RecordBatch) -> None:
        """Append rows; row groups are cut at exactly ``row_group_rows`` rows."""
        if batch.num_rows == 0:
            return
        batch = conform_batch(batch, self._schema)
        self._pending.append(batch)
        self._pending_rows += batch.num_rows
        self.rows += batch.num_rows
        if self._pending_rows >= self._row_group_rows:
            self._flush(final=False)

    def _flush(self, final: bool) -> None:
        table = pa.Table.from_batches(self._pending, schema=self._schema)
        cut = table.num_rows if final else table.num_rows - table.num_rows % self._row_group_rows
        if cut:
            self._writer.write_table(table.slice(0, cut), row_group_size=self._row_group_rows)
        rest = table.slice(cut)
        self._pending = rest.to_batches()
        self._pending_rows = rest.num_rows

    def close(self) -> None:
        """Write the remaining rows and the footer, then fsync the file (a local one)."""
        if self._pending_rows:
            self._flush(final=True)
        self._writer.close()
        if isinstance(self.path, Path):
            fsync_path(self.path)


def finish_version(directory: Place | str, description: TableDescription) -> None:
    """Write ``_table.json`` and ``_SUCCESS`` (after every part is closed), then fsync the directory."""
    directory = as_place(directory)
    if isinstance(directory, Location):
        present = {info.base_name for info in directory.list()}
        missing = [i for i in range(description.parts) if part_name(i) not in present]
        if missing:
            raise TableError(f"{directory.display()}: parts {missing[:5]} were not written")
        (directory / DESCRIPTION_FILE).write_bytes((description.to_json() + "\n").encode())
        (directory / SUCCESS_MARKER).write_bytes(b"")  # last: the version is complete from here on
        return
    missing = [i for i in range(description.parts) if not (directory / part_name(i)).is_file()]
    if missing:
        raise TableError(f"{directory}: parts {missing[:5]} were not written")
    (directory / DESCRIPTION_FILE).write_text(description.to_json() + "\n", encoding="utf-8")
    fsync_path(directory / DESCRIPTION_FILE)
    (directory / SUCCESS_MARKER).write_bytes(b"")
    fsync_path(directory)


PARQUET_MAGIC = b"PAR1"


def damaged_part_hint(part: Path) -> str:
    """What to do about a damaged part of ``<table>/current``: go back to ``<table>/old`` if it is there."""
    version = part.parent
    old = version.parent / "old"
    if version.name == "current" and (old / SUCCESS_MARKER).exists():
        return (f"; the previous version is intact in {old}: to go back to it, move {version} aside and "
                f"rename {old} to {version.name}")
    return "; there is no earlier version to go back to"


def _check_parquet_ends(fd: int, path: Path) -> None:
    """TableError (one line, with a hint) unless the part starts and ends with Parquet's magic bytes."""
    size = os.fstat(fd).st_size
    if size < 12 or os.pread(fd, 4, 0) != PARQUET_MAGIC or os.pread(fd, 4, size - 4) != PARQUET_MAGIC:
        raise TableError(f"{path} is damaged (not a whole Parquet file: {size} bytes, cut short or overwritten)"
                         + damaged_part_hint(path))


class TableVersion:
    """A complete, read-only table version, pinned when opened.

    Opening checks that every local part starts and ends with Parquet's magic bytes (a part
    cut short by a crash or a full disk is refused at once, naming the file and the
    ``old`` version to go back to).

    The directory and every part file are opened once, here; later reads go
    through those descriptors (on Linux as ``/proc/self/fd/N``), so a reader keeps
    seeing one consistent version even if a writer installs a new one (renaming
    or deleting this one) while it reads.  Close it (or use ``with``) to release
    the descriptors.

    On other filesystems nothing can be pinned: the version is read by name, and
    stays readable as long as the install protocol keeps it (an object-store
    version outlives the install that replaces it, as the backup).
    """

    def __init__(self, directory: Place | str) -> None:
        place = as_place(directory)
        self.directory: Place = place
        self._part_fds: list[int] = []
        self._remote: Location | None = None
        if isinstance(place, Location):
            self._dir_fd = None
            self._open_remote(place)
            return
        try:
            self._dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            raise TableError(f"{directory} is not a table version directory") from None
        try:
            try:
                os.stat(SUCCESS_MARKER, dir_fd=self._dir_fd)
            except FileNotFoundError:
                raise TableError(f"{directory} is not a complete table (no {SUCCESS_MARKER})") from None
            fd = os.open(DESCRIPTION_FILE, os.O_RDONLY, dir_fd=self._dir_fd)
            with os.fdopen(fd, "r", encoding="utf-8") as handle:
                self.description = TableDescription.from_json(handle.read())
            for index in range(self.description.parts):
                self._part_fds.append(os.open(part_name(index), os.O_RDONLY, dir_fd=self._dir_fd))
                _check_parquet_ends(self._part_fds[-1], Path(directory) / part_name(index))
        except BaseException:
            self.close()
            raise

    def _open_remote(self, place: Location) -> None:
        names = {info.base_name for info in place.list()}
        if not names:
            raise TableError(f"{place.display()} is not a table version directory")
        if SUCCESS_MARKER not in names:
            raise TableError(f"{place.display()} is not a complete table (no {SUCCESS_MARKER})")
        self.description = TableDescription.from_json((place / DESCRIPTION_FILE).read_bytes().decode("utf-8"))
        missing = [i for i in range(self.description.parts) if part_name(i) not in names]
        if missing:
            raise TableError(f"{place.display()}: parts {missing[:5]} are missing")
        self._remote = place

    @property
    def location(self) -> Location:
        """Where the version lives, as a :class:`Location` (local ones too)."""
        return self.directory if isinstance(self.directory, Location) else Location("", str(self.directory))

    def close(self) -> None:
        """Release the pinned descriptors (idempotent)."""
        self._remote = None
        for fd in self._part_fds:
            os.close(fd)
        self._part_fds = []
        if getattr(self, "_dir_fd", None) is not None:
            os.close(self._dir_fd)
            self._dir_fd = None  # type: ignore[assignment]

    def __enter__(self) -> TableVersion:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()

    @property
    def parts(self) -> int:
        """Number of parts."""
        return self.description.parts

    def part_locator(self, index: int) -> str:
        """A path that opens the pinned part (``/proc/self/fd/N`` where available; the URI when remote)."""
        if isinstance(self.directory, Location):
            if self._remote is None:
                raise TableError(f"{self.directory.display()}: table version is closed")
            return str(self.part_path(index))
        if not self._part_fds:
            raise TableError(f"{self.directory}: table version is closed")
        if _PROC_FD.is_dir():
            return str(_PROC_FD / str(self._part_fds[index]))
        return str(self.part_path(index))

    def part_path(self, index: int) -> Place:
        """Path of part ``index``."""
        return self.directory / part_name(index)

    def part_paths(self) -> list[Place]:
        """All part paths in order."""
        return [self.part_path(i) for i in range(self.parts)]

    @contextmanager
    def open_part(self, index: int) -> Iterator[pq.ParquetFile]:
        """Part ``index`` as an open Parquet file (the pinned descriptor, or a random-access remote file)."""
        if isinstance(self.directory, Location):
            self.part_locator(index)  # raises when closed
            part = self.directory / part_name(index)
            with part.open_input() as handle, pq.ParquetFile(handle) as pf:
                yield pf
        else:
            with pq.ParquetFile(self.part_locator(index)) as pf:
                yield pf

    def dataset(self) -> ds.Dataset:
        """The version as one ``pyarrow.dataset`` (what DuckDB scans for a remote table)."""
        if isinstance(self.directory, Location):
            return parts_dataset(self.directory, [part_name(i) for i in range(self.parts)])
        return ds.dataset([self.part_locator(i) for i in range(self.parts)], format="parquet")

    def schema(self) -> pa.Schema:
        """Arrow schema of the table."""
        with self.open_part(0) as pf:
            return pf.schema_arrow

    def iter_part(
        self, index: int, batch_rows: int = 65536, columns: list[str] | None = None
    ) -> Iterator[pa.RecordBatch]:
        """Stream one part's rows in key order."""
        with self.open_part(index) as pf:
            yield from pf.iter_batches(batch_size=batch_rows, columns=columns)

    def iter_batches(
        self, batch_rows: int = 65536, columns: list[str] | None = None
    ) -> Iterator[pa.RecordBatch]:
        """Stream all rows, part after part."""
        for index in range(self.parts):
            yield from self.iter_part(index, batch_rows, columns)

    def iter_interleaved(self, batch_rows: int = 65536, columns: list[str] | None = None
                         ) -> Iterator[pa.RecordBatch]:
        """Stream all rows, the parts interleaved by how far each has been read.

        Each part keeps its own order; the next batch always comes from the part with the
        smallest share of its rows read so far (ties: the lower part number), so a row that
        sits at a tenth of its part comes out at about a tenth of the stream, whatever part
        it is in.  For tables whose parts are each ordered the same way (a fetch list: every
        host's first URL, then every host's second …), this keeps that order across parts.
        """
        with ExitStack() as stack:
            files = [stack.enter_context(self.open_part(index)) for index in range(self.parts)]
            sizes = [pf.metadata.num_rows for pf in files]
            streams = [pf.iter_batches(batch_size=batch_rows, columns=columns) for pf in files]
            read = [0] * len(files)
            live = [index for index, size in enumerate(sizes) if size > 0]
            while live:
                index = min(live, key=lambda i: (read[i] / sizes[i], i))
                batch = next(streams[index], None)
                if batch is None:
                    live.remove(index)
                    continue
                read[index] += batch.num_rows
                yield batch

    def num_rows(self) -> int:
        """Total rows, from the Parquet footers."""
        total = 0
        for index in range(self.parts):
            with self.open_part(index) as pf:
                total += pf.metadata.num_rows
        return total

    def lookup(self, key: str) -> pa.Table:
        """Rows whose key equals ``key`` (usually zero or one), read from one row group."""
        column = self.description.key
        with self.open_part(part_of_url(key, self.parts)) as pf:
            meta = pf.metadata
            col_index = pf.schema_arrow.get_field_index(column)
            mins: list[str] = []
            groups: list[int] = []
            for g in range(meta.num_row_groups):
                stats = meta.row_group(g).column(col_index).statistics
                if stats is None or not stats.has_min_max:
                    mins, groups = [], list(range(meta.num_row_groups))
                    break
                mins.append(stats.min)
                groups.append(g)
            if mins:
                start = max(bisect.bisect_left(mins, key) - 1, 0)
                candidates = [g for g in groups[start:] if meta.row_group(g).column(col_index)
                              .statistics.min <= key][:2]
            else:
                candidates = groups
            pieces = []
            for g in candidates:
                group = pf.read_row_group(g)
                keys = group.column(column).to_pylist()
                lo = bisect.bisect_left(keys, key)
                hi = bisect.bisect_right(keys, key, lo)
                if hi > lo:
                    pieces.append(group.slice(lo, hi - lo))
            if not pieces:
                return pf.schema_arrow.empty_table()
            return pa.concat_tables(pieces)
