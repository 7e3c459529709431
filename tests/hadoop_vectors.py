"""The committed Hadoop vectors (tests/vectors/hadoop) as Gossamer sees them: parts, settings, units.

Helpers shared by ``tests/test_hadoop_interop.py`` (no Java) and ``tests/test_hadoop_interop_jvm.py``:

* :func:`parts` — a vector's SequenceFiles: the file itself, or a MapFile's ``data`` and ``index``, each with
  the facts Hadoop's readers recorded in ``NAME.json``;
* :func:`registry_for` — the Writable registry a vector needs (ArrayWritable has no element class in its bytes);
* :func:`write_like` — Gossamer's writer given a vector's header, writer settings and sync marker;
* :func:`compressed_units` — the compressed pieces of a file (RECORD values, BLOCK buffers) with everything
  between them, to compare files whose compressors legitimately differ (bzip2, snappy).
"""

from __future__ import annotations

import io
import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gossamer.store.hadoop import (
    DEFAULT_REGISTRY,
    ArrayWritableCodec,
    Cursor,
    SequenceFileReader,
    SequenceFileWriter,
    WritableRegistry,
    new_registry,
)

VECTORS = Path(__file__).resolve().parent / "vectors" / "hadoop"
NAMES = sorted(p.stem for p in VECTORS.glob("*.json") if p.name != "skipped.json")
IO = "org.apache.hadoop.io."
CODECS = "org.apache.hadoop.io.compress."

INEXACT_CODECS = {
    CODECS + "BZip2Codec": "Hadoop's pure-Java CBZip2OutputStream and libbz2 code tiny blocks (≤ 55 bytes) "
                           "differently (another BWT origin for a block of equal bytes, another Huffman setup); "
                           "larger blocks are byte-identical",
    CODECS + "SnappyCodec": "snappy-java (Google's C++ snappy) and cramjam (Rust snap) choose different "
                            "matches for some inputs; both are valid raw snappy, the framing is identical",
}
"""Codecs whose compressed bytes may differ from Hadoop's (the decompressed content and framing are equal)."""


@dataclass(frozen=True)
class Part:
    """One SequenceFile of a vector: ``label`` ("" for a plain file, else "data"/"index")."""

    name: str
    label: str
    path: Path
    facts: dict[str, Any]
    writer: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.name}/{self.label}" if self.label else self.name

    @property
    def header(self) -> dict[str, Any]:
        return self.facts["header"]


def expected(name: str) -> dict[str, Any]:
    """The vector's JSON."""
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))


def vector_path(name: str) -> Path:
    """``NAME.seq`` or the directory ``NAME/``."""
    seq = VECTORS / f"{name}.seq"
    return seq if seq.exists() else VECTORS / name


def parts(names: list[str] | None = None) -> list[Part]:
    """Every SequenceFile of the given vectors (default: all)."""
    found = []
    for name in names or NAMES:
        facts = expected(name)
        if facts["kind"] == "SequenceFile":
            found.append(Part(name, "", vector_path(name), facts, facts["writer"]))
        else:
            found += [Part(name, label, vector_path(name) / label, facts[label], facts["writer"])
                      for label in ("data", "index")]
    return found


def registry_for(element_class: str = "Text") -> WritableRegistry:
    """A registry whose ``ArrayWritable`` has ``element_class`` (short name) elements."""
    registry = new_registry()
    registry.register(ArrayWritableCodec(DEFAULT_REGISTRY.get(IO + element_class)))
    return registry


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def read_json(path: Path, registry: WritableRegistry | None = None, **options: Any) -> list[list[Any]]:
    """Every record of a SequenceFile as ``[key JSON, value JSON]`` (the codecs' ``to_json``)."""
    with SequenceFileReader(path, registry=registry, **options) as reader:
        keys, values = reader.key_codec, reader.value_codec
        return as_json([[keys.to_json(k), values.to_json(v)] for k, v in reader])


def settings(part: Part) -> dict[str, Any]:
    """Writer keyword arguments reproducing how Hadoop wrote ``part``'s data (block size, sync interval)."""
    options: dict[str, Any] = {}
    if part.writer.get("sync_interval"):
        options["sync_interval"] = int(part.writer["sync_interval"])
    block_size = (part.writer.get("conf") or {}).get("io.seqfile.compress.blocksize")
    if block_size:
        options["block_size"] = int(block_size)
    return options


def write_like(part: Part, records: list[tuple[Any, Any]], registry: WritableRegistry | None = None) -> bytes:
    """Gossamer's bytes for ``records`` with ``part``'s classes, compression, codec, metadata and sync marker."""
    header = part.header
    sink = io.BytesIO()
    writer = SequenceFileWriter(sink, header["key_class"], header["value_class"], compression=header["compression"],
                                codec=header["codec"], metadata=header["metadata"],
                                sync=bytes.fromhex(header["sync_hex"]), registry=registry, **settings(part))
    for key, value in records:
        writer.append(key, value)
    writer.close()
    return sink.getvalue()


def compressed_units(data: bytes, header_length: int, block: bool) -> tuple[list[bytes], list[bytes]]:
    """``(frames, units)``: the compressed units (RECORD values, or BLOCK buffers) of a file body, and the bytes
    around them with each unit replaced by its length (so two files with the same layout have equal frames)."""
    frames, units, pos = [data[:header_length]], [], header_length
    while pos < len(data):
        if struct.unpack_from(">i", data, pos)[0] == -1:
            frames.append(data[pos:pos + 20])
            pos += 20
            if block:
                cursor = Cursor(data, pos)
                cursor.read_vint()
                frames.append(data[pos:cursor.pos])
                for _ in range(4):
                    size = cursor.read_vint()
                    units.append(data[cursor.pos:cursor.pos + size])
                    cursor.pos += size
                pos = cursor.pos
            continue
        length, key_length = struct.unpack_from(">ii", data, pos)
        frames.append(data[pos + 8:pos + 8 + key_length])
        units.append(data[pos + 8 + key_length:pos + 8 + length])
        pos += 8 + length
    return frames, units
