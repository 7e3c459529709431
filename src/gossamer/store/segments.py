"""Segments: one generate/fetch/parse round, ``segments/<yyyyMMddHHmmss>/``.

A segment is written once.  Its sub-tables (``crawl_generate``, later
``crawl_fetch``, ``crawl_parse``, ``parse_data``, ``parse_text``) are table
*versions* directly (part files, ``_table.json``, ``_SUCCESS``), partitioned for
fetching: by host, domain or IP hash (``partition.url.mode``), so one host is only
ever in one fetch partition.  A new local segment is built in ``segments/.tmp-<name>``
and renamed into place when complete, so a crash never leaves a half segment.

The segments directory may also be a :class:`~gossamer.store.location.Location`
(``s3://``, ``hdfs://`` …): there a segment is written in place and exists once
``<segment>/crawl_generate/_SUCCESS`` does (see :mod:`gossamer.store.segment_files`).
"""

from __future__ import annotations

import os
import socket
import time
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA
from gossamer.store.location import Location, as_place
from gossamer.store.partitioning import host_of
from gossamer.store.place import Place
from gossamer.store.segment_files import remove_tree
from gossamer.store.table import SUCCESS_MARKER, PartWriter, TableDescription, finish_version, part_name

SEGMENT_NAME_FORMAT = "%Y%m%d%H%M%S"
PARTITION_MODES = ("byHost", "byDomain", "byIP")


def new_segment_name(segments_dir: Place, now: float | None = None) -> str:
    """A ``yyyyMMddHHmmss`` name (UTC) not yet used in ``segments_dir`` (later seconds if taken).

    On another filesystem a name is taken while anything is stored under it (the
    leftovers of a generate that died too), so a new segment never mixes with old files.
    """
    moment = int(now if now is not None else time.time())
    while True:
        name = datetime.fromtimestamp(moment, tz=UTC).strftime(SEGMENT_NAME_FORMAT)
        if not (segments_dir / name).exists() and not (segments_dir / f".tmp-{name}").exists():
            return name
        moment += 1


def list_segments(segments_dir: Place | str) -> list[Place]:
    """Complete segments, oldest first (a path or URI in, paths or Locations out).

    Local: the numbered directories (renamed into place whole).  Elsewhere: the
    numbered prefixes holding ``crawl_generate/_SUCCESS``.
    """
    place = as_place(segments_dir)
    if isinstance(place, Location):
        return [place / info.base_name for info in place.list() if info.base_name.isdigit()
                and (place / info.base_name / "crawl_generate" / SUCCESS_MARKER).is_file()]
    if not place.is_dir():
        return []
    return sorted(p for p in place.iterdir() if p.is_dir() and p.name.isdigit())


def partition_key_function(mode: str, seed: int = 0) -> Callable[[str], int]:
    """URL → 32-bit partition hash for ``partition.url.mode`` (host, registered domain or IP)."""
    if mode not in PARTITION_MODES:
        raise ValueError(f"partition.url.mode must be one of {', '.join(PARTITION_MODES)}, got {mode!r}")
    cache: dict[str, str] = {}

    def key_of_host(host: str) -> str:
        if mode == "byHost":
            return host
        if host not in cache:
            if mode == "byDomain":
                from gossamer.core import domain_of

                cache[host] = domain_of(host) if host else ""
            else:
                try:
                    cache[host] = socket.getaddrinfo(host.strip("[]"), None)[0][4][0] if host else ""
                except OSError:
                    cache[host] = host  # unresolvable: keep the host so it still lands in one partition
        return cache[host]

    def key(url: str) -> int:
        return zlib.crc32(key_of_host(host_of(url)).encode("utf-8")) ^ seed

    return key


def fetch_order(rows: pa.Table) -> pa.Array:
    """Row indices that visit hosts round-robin: every host's first URL, then every host's second.

    Within a host URLs keep URL order; hosts are visited in the order of a hash of
    their name (as Nutch's generator sorts fetch lists by hash), so neighbouring
    hosts in the list are unrelated.
    """
    if rows.num_rows == 0:
        return pa.array([], pa.int64())
    by_url = pc.sort_indices(rows, [("host", "ascending"), ("url", "ascending")]).to_pylist()
    hosts = rows.column("host").to_pylist()
    keyed: list[tuple[int, int, int]] = []
    previous, rank, host_hash = None, 0, 0
    for index in by_url:
        host = hosts[index]
        if host != previous:
            previous, rank, host_hash = host, 0, zlib.crc32(host.encode("utf-8"))
        keyed.append((rank, host_hash, index))
        rank += 1
    keyed.sort()
    return pa.array([index for _, _, index in keyed], pa.int64())


class SegmentWriter:
    """Builds a segment: locally in a temporary directory that :meth:`commit` renames into place.

    On another filesystem the segment is written in place under its final name (which
    :func:`new_segment_name` found unused); the ``_SUCCESS`` of ``crawl_generate``,
    written last by :meth:`write_table`, makes it exist.
    """

    def __init__(self, segments_dir: Place, name: str) -> None:
        self.final: Place = segments_dir / name
        self.tmp: Place = self.final
        if isinstance(segments_dir, Path):
            segments_dir.mkdir(parents=True, exist_ok=True)
            self.tmp = segments_dir / f".tmp-{name}"
            self.tmp.mkdir()

    def write_table(self, subdir: str, table: pa.Table, parts: int, key: Callable[[str], int],
                    row_group_rows: int, compression: str, kind: str, order: str = "url",
                    schema: pa.Schema = CRAWLDB_SCHEMA) -> None:
        """Write ``table`` (crawldb ``schema`` unless another is given) as ``subdir``, partitioned by ``key``.

        ``order="url"`` sorts each part by URL; ``order="fetch"`` (fetch lists) interleaves the
        hosts round-robin (see :func:`fetch_order`), so a fetcher streaming the part keeps every
        host's queue busy without reading the whole list.
        """
        directory = self.tmp / subdir
        directory.mkdir()  # a no-op on object stores
        urls = table.column("url").to_pylist()
        part_ids = pa.array([key(u) % parts for u in urls], pa.int32())
        for part in range(parts):
            rows = table.filter(pc.equal(part_ids, part))
            rows = rows.take(fetch_order(rows) if order == "fetch" else pc.sort_indices(rows, [("url", "ascending")]))
            writer = PartWriter(directory / part_name(part), schema, row_group_rows, compression)
            for batch in rows.to_batches():
                writer.write(batch)
            writer.close()
        finish_version(directory, TableDescription(kind=kind, parts=parts, partitioner="fetch-partition",
                                                   key="url" if order == "url" else "fetch_order",
                                                   rows=table.num_rows, job="generate",
                                                   created=int(time.time() * 1000)))

    def commit(self) -> Place:
        """Make the segment visible under its final name (elsewhere it already is, by its ``_SUCCESS``)."""
        if isinstance(self.tmp, Path):
            os.rename(self.tmp, self.final)
        return self.final

    def abort(self) -> None:
        """Remove the unfinished segment."""
        try:
            remove_tree(self.tmp)
        except OSError:
            pass
