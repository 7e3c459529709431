"""Where a table lives: a local path, or a URI on a pyarrow filesystem (``s3://``, ``hdfs://`` …).

A :class:`Location` is plain data (scheme, authority, path, filesystem options),
so it pickles into Spark tasks and rebuilds its filesystem in any process.  Its
``str()`` is a URI that parses back to an equal Location, options included
(``s3://bucket/crawl/crawldb?endpoint_override=127.0.0.1:9000&scheme=http``), so
code that passes table directories around as strings keeps working.

Accepted spellings:

* a plain path (``crawl/crawldb``) or ``file:///abs/path`` — the local filesystem;
  the store keeps its own fast code for it (file descriptors, ``os.rename``,
  ``fsync``, ``flock``): see :mod:`gossamer.store.place`.
* ``s3://bucket/key…`` (also ``s3a://``) — pyarrow's ``S3FileSystem``.  Endpoint,
  region and scheme come from the URI's query (``endpoint_override``, ``region``,
  ``scheme``), else the settings ``fs.s3.endpoint`` / ``fs.s3.region`` /
  ``fs.s3.scheme``, else ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL`` and the AWS
  SDK's own defaults.  Credentials are never stored here: the AWS SDK finds them
  (``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``/``AWS_SESSION_TOKEN``,
  ``~/.aws``, instance metadata) in every process that opens the filesystem.
* ``hdfs://namenode:port/path`` (also ``viewfs://``) — pyarrow's ``HadoopFileSystem``
  (needs libhdfs, ``JAVA_HOME`` and ``CLASSPATH`` as pyarrow documents).
* ``gs://bucket/key…`` — pyarrow's ``GcsFileSystem`` (default Google credentials).
"""

from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import pyarrow.fs as pafs

from gossamer.store.place import Place
from gossamer.store.place_local import LocalPlace

if TYPE_CHECKING:
    from gossamer.core import Settings

S3_SCHEMES = ("s3", "s3a")
RENAME_SCHEMES = ("hdfs", "viewfs")
"""Filesystems whose directory rename is atomic: tables are installed by rename there."""
OBJECT_STORE_SCHEMES = (*S3_SCHEMES, "gs", "gcs")
"""Filesystems without atomic directory rename: tables are installed through a pointer object."""
S3_OPTIONS = ("endpoint_override", "region", "scheme")


@dataclass(frozen=True)
class Location(Place):
    """A directory or file on a pyarrow filesystem: the remote :class:`~gossamer.store.place.Place`.

    Immutable and picklable.

    ``scheme`` is ``""`` for the local filesystem, whose ``path`` is an OS path.
    For the others ``path`` is the filesystem's own path (``bucket/key`` on S3,
    ``/dir`` on HDFS) and ``authority`` the ``namenode:port`` of HDFS.
    ``filesystem`` forces a given pyarrow filesystem (tests use a
    ``LocalFileSystem`` to exercise the rename protocol of HDFS).
    """

    scheme: str
    path: str
    authority: str = ""
    options: tuple[tuple[str, str], ...] = ()
    filesystem: pafs.FileSystem | None = field(default=None, compare=False)
    rename_atomic: bool | None = None

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def parse(cls, value: str | os.PathLike[str] | Location, settings: Settings | None = None) -> Location:
        """A Location from a plain path, a ``file://`` URI or a filesystem URI; ValueError when unsupported."""
        if isinstance(value, Location):
            return value
        text = os.fspath(value)
        if "://" not in text:
            return cls("", text)
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        path = unquote(parts.path)
        if scheme == "file":
            if parts.netloc not in ("", "localhost"):
                raise ValueError(f"{text}: a file:// URI names no host (file:///absolute/path)")
            return cls("", path or "/")
        query = dict(parse_qsl(parts.query))
        if scheme in S3_SCHEMES:
            if not parts.netloc:
                raise ValueError(f"{text}: an s3:// URI names a bucket (s3://bucket/key)")
            key = path.strip("/")
            full = f"{parts.netloc}/{key}" if key else parts.netloc
            return cls("s3", full, options=_s3_options(query, settings))
        if scheme in ("gs", "gcs"):
            if not parts.netloc:
                raise ValueError(f"{text}: a gs:// URI names a bucket (gs://bucket/key)")
            key = path.strip("/")
            return cls("gs", f"{parts.netloc}/{key}" if key else parts.netloc)
        if scheme in RENAME_SCHEMES:
            return cls(scheme, "/" + path.strip("/"), authority=parts.netloc)
        raise ValueError(f"{text}: unsupported filesystem {scheme!r} (plain paths, file://, s3://, hdfs://, gs://)")

    @classmethod
    def on(cls, filesystem: pafs.FileSystem, path: str, rename_atomic: bool) -> Location:
        """A Location on an explicit pyarrow filesystem (tests, embedding)."""
        return cls(f"pyarrow-{filesystem.type_name}", path, filesystem=filesystem, rename_atomic=rename_atomic)

    # -- what it is -------------------------------------------------------------------------
    @property
    def is_local(self) -> bool:
        """True for the local filesystem (plain paths and ``file://``)."""
        return self.scheme == ""

    def local_path(self) -> Path:
        """The OS path of a local Location (ValueError for others)."""
        if not self.is_local:
            raise ValueError(f"{self} is not on the local filesystem")
        return Path(self.path)

    @property
    def atomic_rename(self) -> bool:
        """Whether renaming a directory is atomic here (local, HDFS), so tables install by rename."""
        if self.rename_atomic is not None:
            return self.rename_atomic
        return self.is_local or self.scheme in RENAME_SCHEMES

    @property
    def fs(self) -> pafs.FileSystem:
        """The pyarrow filesystem (built once per process and set of options)."""
        if self.filesystem is not None:
            return self.filesystem
        return _filesystem(self.scheme, self.authority, self.options)

    @property
    def name(self) -> str:
        """Last path component."""
        return PurePosixPath(self.path).name

    @property
    def parent(self) -> Location:
        """The enclosing directory."""
        parent = str(PurePosixPath(self.path).parent)
        return Location(self.scheme, parent, self.authority, self.options, self.filesystem, self.rename_atomic)

    def __truediv__(self, name: str) -> Location:
        joined = f"{self.path.rstrip('/')}/{name}" if self.path else name
        return Location(self.scheme, joined, self.authority, self.options, self.filesystem, self.rename_atomic)

    def __str__(self) -> str:
        """A URI that :meth:`parse` turns back into this Location (the plain path when local)."""
        if self.is_local:
            return self.path
        if self.scheme in ("s3", "gs"):
            uri = f"{self.scheme}://{self.path}"
        elif self.scheme in RENAME_SCHEMES:
            uri = f"{self.scheme}://{self.authority}{self.path}"
        else:
            uri = f"{self.scheme}://{self.path}"
        return f"{uri}?{urlencode(self.options)}" if self.options else uri

    def display(self) -> str:
        """The URI without filesystem options, for messages."""
        return str(self).split("?", 1)[0]

    def absolute(self) -> Location:
        """Itself: a filesystem URI does not depend on the working directory."""
        return self

    # -- operations -------------------------------------------------------------------------
    def info(self) -> pafs.FileInfo:
        """The file info from pyarrow (type NotFound when absent)."""
        return self.fs.get_file_info(self.path)

    def exists(self) -> bool:
        """Whether a file or directory (a non-empty prefix, on object stores) is here."""
        return self.info().type != pafs.FileType.NotFound

    def is_dir(self) -> bool:
        """Whether this is a directory (on object stores: a prefix with objects under it)."""
        return self.info().type == pafs.FileType.Directory

    def is_file(self) -> bool:
        """Whether this is a file (an object)."""
        return self.info().type == pafs.FileType.File

    def list(self) -> list[pafs.FileInfo]:
        """Direct children (files and directories), sorted by name; empty when absent."""
        selector = pafs.FileSelector(self.path, allow_not_found=True, recursive=False)
        return sorted(self.fs.get_file_info(selector), key=lambda i: i.base_name)

    def mkdir(self) -> None:
        """Create the directory and its parents (no-op on object stores, which have no directories)."""
        if self.scheme not in ("s3", "gs"):
            self.fs.create_dir(self.path, recursive=True)

    def make_dirs(self) -> None:
        """Create the directory and its parents (no-op on object stores)."""
        self.mkdir()

    def child_names(self) -> list[str]:
        """Names of the direct children, sorted; empty when absent."""
        return [info.base_name for info in self.list()]

    def size(self) -> int:
        """The object's size from the filesystem (0 when unknown)."""
        return self.info().size or 0

    def open_binary(self) -> BinaryIO:
        """A buffered reader over the filesystem's random-access file."""
        return io.BufferedReader(self.open_input(), buffer_size=1 << 20)  # type: ignore[return-value]

    def open_input(self) -> Any:
        """A random-access reader (what Parquet needs)."""
        return self.fs.open_input_file(self.path)

    def open_output(self) -> Any:
        """A write stream; on object stores the object appears, whole, when the stream is closed.

        Bytes are stored as given (pyarrow would otherwise compress a ``.gz`` name again).
        """
        return self.fs.open_output_stream(self.path, compression=None)

    def read_bytes(self) -> bytes:
        """The whole file, as stored (never decompressed by its name)."""
        with self.fs.open_input_stream(self.path, compression=None) as handle:
            return handle.read()

    def write_bytes(self, data: bytes) -> None:
        """Write the whole file (one PUT on object stores: readers see the old or the new object)."""
        with self.open_output() as handle:
            handle.write(data)

    def delete_dir(self) -> None:
        """Delete the directory and everything under it (no error when absent)."""
        if self.exists():
            self.fs.delete_dir(self.path)

    def delete_tree(self) -> bool:
        """Delete the directory (or object) and everything under it; whether something was there."""
        info = self.info()
        if info.type == pafs.FileType.NotFound:
            return False
        if info.type == pafs.FileType.Directory:
            self.fs.delete_dir(self.path)
        else:
            self.fs.delete_file(self.path)
        return True

    def delete_file(self) -> None:
        """Delete one file (no error when absent)."""
        try:
            self.fs.delete_file(self.path)
        except FileNotFoundError:
            pass

    def rename(self, target: Location) -> None:
        """Rename to ``target`` on the same filesystem; only where that is atomic (else ValueError)."""
        if not self.atomic_rename:
            raise ValueError(f"{self.display()}: rename is not atomic on {self.scheme}; use the pointer protocol")
        self.fs.move(self.path, target.path)


def as_place(value: str | os.PathLike[str] | Place, settings: Settings | None = None) -> Place:
    """The place ``value`` names: a place as it is, a path or ``file://`` URI (local), or a filesystem URI.

    ``settings`` supply filesystem options a URI leaves out (``fs.s3.endpoint`` …).
    Raises ValueError for an unsupported or malformed URI.
    """
    if isinstance(value, Place):
        return value
    if isinstance(value, Path):
        return LocalPlace(value)
    location = Location.parse(value, settings)
    return LocalPlace(location.path) if location.is_local else location


def is_uri(text: str) -> bool:
    """Whether ``text`` names a non-local filesystem (``s3://`` …) rather than a local path."""
    return "://" in text and not text.lower().startswith("file://")


def _s3_options(query: dict[str, str], settings: Settings | None) -> tuple[tuple[str, str], ...]:
    """endpoint_override / region / scheme: the URI's query, else the settings, else AWS env vars."""
    endpoint = query.get("endpoint_override") or (settings.get_str("fs.s3.endpoint") if settings else "") or \
        os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL") or ""
    scheme = query.get("scheme") or (settings.get_str("fs.s3.scheme") if settings else "") or ""
    if "://" in endpoint:
        given, endpoint = endpoint.split("://", 1)
        scheme = scheme or given
    region = query.get("region") or (settings.get_str("fs.s3.region") if settings else "") or ""
    values = {"endpoint_override": endpoint.rstrip("/"), "region": region, "scheme": scheme}
    return tuple((k, values[k]) for k in S3_OPTIONS if values[k])


@functools.lru_cache(maxsize=16)
def _filesystem(scheme: str, authority: str, options: tuple[tuple[str, str], ...]) -> pafs.FileSystem:
    if scheme == "":
        return pafs.LocalFileSystem()
    if scheme == "s3":
        kwargs: dict[str, Any] = dict(options)
        return pafs.S3FileSystem(**kwargs)
    if scheme == "gs":
        return pafs.GcsFileSystem()
    if scheme in RENAME_SCHEMES:
        host, _, port = authority.partition(":")
        if scheme == "viewfs":
            host = f"viewfs://{authority}"
        return pafs.HadoopFileSystem(host or "default", int(port) if port else 8020)
    raise ValueError(f"unsupported filesystem {scheme!r}")
