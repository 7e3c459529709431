"""Host extraction and the host-hash partitioner shared by every table and engine.

A row belongs to part ``crc32(host) mod parts``, the host ASCII-lower-cased.  CRC-32 is stable across
processes, machines and engines (unlike Python's ``hash``), so a table written by
the local engine and one written by Spark put each host in the same part, and a
merge job can stream a table as a co-partitioned side input.
"""

from __future__ import annotations

import importlib
import re
import zlib
from functools import cache
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

PARTITIONER_NAME = "host-crc32"

_HOST_PATTERN = r"^[A-Za-z][A-Za-z0-9+.\-]*://(?:[^/?#]*@)?(?P<host>\[[^\]/?#]*\]|[^/?#:]*)"
"""Scheme, optional userinfo (up to the last ``@`` of the authority), then the host."""
_HOST_RE = re.compile(_HOST_PATTERN)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def host_of(url: str) -> str:
    """Host of ``url``, ASCII-lower-cased (IPv6 literals keep their brackets); ``""`` when it has none.

    Exactly the same rule as :func:`hosts_of` (same pattern; only ASCII letters are
    lower-cased, so Unicode case rules cannot make the two disagree).
    """
    match = _HOST_RE.match(url)
    return match.group("host").translate(_ASCII_LOWER) if match else ""


_SIMPLE_AUTHORITY = r"^[A-Za-z][A-Za-z0-9+.\-]*://[^/?#:@\[]*(?::[^/?#@]*)?(?:[/?#]|$)"
"""URLs whose authority has neither user info nor ``[``: the host runs from ``://`` to the first ``/?#:``."""


@cache
def _native_hosts() -> Any | None:
    """The C ``hosts`` (``_hosts``, an optional extension), or ``None`` when it is not built."""
    try:
        return importlib.import_module("gossamer.store._hosts").hosts
    except ImportError:
        return None


def hosts_of(urls: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Vectorized :func:`host_of` over a string array (nulls and non-URLs give ``""``), of the same type.

    One pass in C over the array's buffers when the optional extension ``_hosts`` is built
    (``tests/test_partitioning_hosts.py`` compares it with :func:`host_of`), else Arrow compute
    functions (:func:`hosts_of_arrow`).
    """
    if isinstance(urls, pa.ChunkedArray):
        urls = urls.combine_chunks()
    native = _native_hosts()
    kind = urls.type
    if native is None or not (pa.types.is_string(kind) or pa.types.is_large_string(kind)) or len(urls) == 0:
        return hosts_of_arrow(urls)
    validity, offsets, data = urls.buffers()
    new_offsets, new_data = native(offsets, b"" if data is None else data, validity, urls.offset, len(urls),
                                   pa.types.is_large_string(kind))
    return pa.Array.from_buffers(kind, len(urls), [None, pa.py_buffer(new_offsets), pa.py_buffer(new_data)])


def hosts_of_arrow(urls: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`hosts_of` with Arrow compute functions (the path without the C extension).

    URLs of the common shape (:data:`_SIMPLE_AUTHORITY`) are cut by two splits; only the others
    go through the full pattern, whose capture group makes RE2 several times slower.
    """
    if isinstance(urls, pa.ChunkedArray):
        urls = urls.combine_chunks()
    simple = pc.fill_null(pc.match_substring_regex(urls, _SIMPLE_AUTHORITY), False)
    everyone = pc.all(simple).as_py() is not False
    cut = urls if everyone else pc.if_else(simple, urls, pa.scalar("x://", urls.type))
    rest = pc.list_element(pc.split_pattern(cut, "://", max_splits=1), 1)
    hosts = pc.list_element(pc.split_pattern_regex(rest, "[/?#:]", max_splits=1), 0)
    if not everyone:
        others = pc.invert(simple)
        parts = pc.extract_regex(urls.filter(others), _HOST_PATTERN)
        hosts = pc.replace_with_mask(hosts, others, pc.struct_field(parts, "host").cast(hosts.type))
    return pc.fill_null(pc.ascii_lower(hosts), "")


def host_hash(host: str) -> int:
    """The stable 32-bit hash of a host name used for partitioning."""
    return zlib.crc32(host.encode("utf-8"))


def part_of_url(url: str, parts: int) -> int:
    """The part a single URL belongs to."""
    return host_hash(host_of(url)) % parts


def parts_of_hosts(hosts: pa.Array, parts: int) -> pa.Array:
    """Part number (int32) of each host; hashes each distinct host once."""
    encoded = pc.dictionary_encode(hosts)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    table = pa.array(
        [host_hash(h) % parts for h in encoded.dictionary.to_pylist()], type=pa.int32()
    )
    return table.take(encoded.indices)


def parts_of_urls(urls: pa.Array | pa.ChunkedArray, parts: int) -> pa.Array:
    """Part number (int32) of each URL."""
    return parts_of_hosts(hosts_of(urls), parts)


KEY_PARTITIONER_NAME = "key-crc32"
"""Partitioner of jobs that need balance more than host locality: CRC-32 of the whole key."""


def parts_of_keys(keys: pa.Array | pa.ChunkedArray, parts: int) -> pa.Array:
    """Part number (int32) of each key by the CRC-32 of its UTF-8 bytes (:data:`KEY_PARTITIONER_NAME`)."""
    crc = zlib.crc32
    return pa.array([crc(k.encode("utf-8")) % parts for k in keys.to_pylist()], type=pa.int32())
