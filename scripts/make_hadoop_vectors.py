#!/usr/bin/env python3
"""Write tests/vectors/hadoop/: SequenceFiles, MapFiles and an ArrayFile made by Hadoop's own Java code.

Usage: ``.venv/bin/python scripts/make_hadoop_vectors.py [--out DIR] [--list]``

Contract: record contents are deterministic (seeded); the files still differ per run because Hadoop draws a
random sync marker for each file. Every vector ``NAME`` (a file ``NAME.seq`` or a directory ``NAME/``) gets a
``NAME.json``: ``writer`` (how it was written) plus :func:`tests.hadoop_jvm.vector_facts` (what Hadoop's
readers read back from it). Codecs that do not work in this JVM are skipped and listed in ``skipped.json``.
The output directory is replaced as a whole. Needs Java and PySpark (see ``tests/hadoop_jvm.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hadoop_jvm import CODECS, HadoopJvm, unavailable_reason, vector_facts  # noqa: E402

DEFAULT_OUT = ROOT / "tests" / "vectors" / "hadoop"
SPECIAL_TEXTS = ("", "café", "naïve — “quotes” ‘single’", "日本語のテキスト", "emoji 😀🎉 outside the BMP",
                 "Ελληνικά και Кириллица", "nul \u0000 inside", "tab\tnew\nline\r\n", "ß" * 40, " ")
WORDS = ("crawl", "fetch", "parse", "index", "segment", "link", "anchor", "score", "nutch", "hadoop", "gossamer",
         "sequence", "file", "block", "record", "sync", "marker", "codec", "deflate", "snappy")


@dataclass
class Vector:
    """One vector to write: ``kind`` is "seq", "map" or "array"; ``make`` keyword arguments go to the writer."""

    name: str
    kind: str
    key_class: str
    value_class: str
    records: list[Any]
    description: str
    options: dict[str, Any] = field(default_factory=dict)
    lookups: list[Any] = field(default_factory=list)
    typed: bool = False


def text_value(rng: random.Random, index: int) -> str:
    """A short value: every 7th a special text (empty, non-ASCII, control characters), else 1-8 words."""
    if index % 7 == 3:
        return SPECIAL_TEXTS[(index // 7) % len(SPECIAL_TEXTS)]
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))


def text_records(count: int, seed: int = 17) -> list[tuple[str, str]]:
    """``count`` Text→Text records: keys ``key-000000``…, one empty key at index 5, mixed values."""
    rng = random.Random(seed)
    return [("" if i == 5 else f"key-{i:06d}", text_value(rng, i)) for i in range(count)]


def big_value(size: int = 300_000) -> str:
    """A deterministic ~``size``-character value of numbered lines (compresses about tenfold)."""
    rng = random.Random(300)
    lines = []
    total = 0
    while total < size:
        line = f"{len(lines):06d} " + " ".join(rng.choice(WORDS) for _ in range(8)) + "\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)[:size]


def vectors(codecs: list[str]) -> Iterator[Vector]:
    """Every vector, given the codecs that work in this JVM."""
    many = text_records(3000)
    few = many[:200]
    yield Vector("text-text-none", "seq", "Text", "Text", many,
                 "3000 Text→Text records, no compression; crosses the 100 KiB sync interval (sync markers)")
    yield Vector("text-text-record-deflate-3000", "seq", "Text", "Text", many,
                 "the same 3000 records, RECORD compression with DefaultCodec (zlib); sync markers",
                 {"compression": "RECORD", "codec": "DefaultCodec"})
    for codec in codecs:
        short = codec.removesuffix("Codec").lower().replace("default", "deflate")
        yield Vector(f"text-text-record-{short}", "seq", "Text", "Text", few,
                     f"200 Text→Text records, RECORD compression, {codec}, sync interval 2000 bytes (Hadoop 1.x's)",
                     {"compression": "RECORD", "codec": codec, "sync_interval": 2000})
        yield Vector(f"text-text-block-{short}", "seq", "Text", "Text", few,
                     f"200 Text→Text records, BLOCK compression, {codec}, blocks flushed every 2048 buffered bytes",
                     {"compression": "BLOCK", "codec": codec, "conf": {"io.seqfile.compress.blocksize": 2048}})
    yield Vector("text-text-bigvalue-block-deflate", "seq", "Text", "Text",
                 [("before", "small"), ("big", big_value()), ("after", ""), ("last", "end")],
                 "a 300,000-character value between small ones; BLOCK DefaultCodec with 100,000-byte blocks, so the "
                 "big value ends a block by itself", {"compression": "BLOCK", "codec": "DefaultCodec",
                                                     "conf": {"io.seqfile.compress.blocksize": 100_000}})
    yield Vector("text-text-metadata", "seq", "Text", "Text", few[:5], "5 records and four metadata entries",
                 {"metadata": {"created-by": "gossamer make_hadoop_vectors", "zz": "last", "aa": "first",
                               "unicode": "ünïcode ✓"}})
    yield Vector("text-text-empty", "seq", "Text", "Text", [], "no records at all (header only)")
    yield from type_vectors()
    yield Vector("mapfile-text-text", "map", "Text", "Text", sorted(text_records(1000, seed=5)),
                 "MapFile of 1000 sorted Text→Text records, default io.map.index.interval 128 (8 index entries)",
                 lookups=["", "key-000000", "key-000127", "key-000128", "key-000500", "key-000999", "key-000500x",
                          "aaa", "zzz"])
    yield Vector("mapfile-text-text-interval5", "map", "Text", "Text", sorted(text_records(200, seed=6)),
                 "MapFile of 200 records with io.map.index.interval=5 (40 index entries)", {"index_interval": 5},
                 lookups=["key-000004", "key-000005", "key-000199", "key-000200", "key-0001"])
    yield Vector("mapfile-text-text-block-deflate", "map", "Text", "Text", sorted(text_records(200, seed=8)),
                 "MapFile of 200 records, BLOCK DefaultCodec data in 2048-byte blocks, io.map.index.interval=5: "
                 "Hadoop indexes a key only when the data position moved (a new block), so few index entries",
                 {"index_interval": 5, "compression": "BLOCK", "codec": "DefaultCodec",
                  "conf": {"io.seqfile.compress.blocksize": 2048}},
                 lookups=["", "key-000050", "key-000101", "key-000199", "zzz"])
    yield Vector("arrayfile-text", "array", "LongWritable", "Text", [v for _, v in text_records(100, seed=7)],
                 "ArrayFile of 100 Text values (keys LongWritable 0..99)", lookups=[0, 1, 99, 100, -1])


def type_vectors() -> Iterator[Vector]:
    """Small uncompressed files, one per key/value Writable pair."""
    rng = random.Random(99)
    longs = [0, 1, -1, 127, 128, -112, -113, 2**31 - 1, -(2**31), 2**31, 2**63 - 1, -(2**63), 1_700_000_000_000]
    yield Vector("text-long", "seq", "Text", "LongWritable", [(f"n{i}", v) for i, v in enumerate(longs)],
                 "Text→LongWritable, boundary values")
    yield Vector("long-text", "seq", "LongWritable", "Text", [(v, f"n{i}") for i, v in enumerate(longs)],
                 "LongWritable→Text, boundary values as keys")
    yield Vector("vint-vlong", "seq", "VIntWritable", "VLongWritable",
                 [(max(-(2**31), min(2**31 - 1, v)), v) for v in longs + [-(2**40), 2**40, 255, 256, -256, -257]],
                 "VIntWritable→VLongWritable around every vint length boundary")
    floats = [0.0, -0.0, 1.5, 0.1, -2.25, 3.4028234663852886e38, 1.401298464324817e-45, 1e10, 123456.789]
    yield Vector("int-float", "seq", "IntWritable", "FloatWritable",
                 [(v, f) for v, f in zip([0, 1, -1, 2**31 - 1, -(2**31), 42, -42, 1000, 65536], floats, strict=True)],
                 "IntWritable→FloatWritable; JSON floats are the exact float32 values")
    yield Vector("text-double", "seq", "Text", "DoubleWritable",
                 [(f"d{i}", v) for i, v in enumerate([0.0, -0.0, 0.1, 1e300, -1e-300, 5e-324, 2.5])],
                 "Text→DoubleWritable")
    yield Vector("text-bool", "seq", "Text", "BooleanWritable", [("yes", True), ("no", False), ("", True)],
                 "Text→BooleanWritable")
    yield Vector("text-null", "seq", "Text", "NullWritable", [("a", None), ("", None), ("ü", None)],
                 "Text→NullWritable (zero-length values)")
    yield Vector("null-null", "seq", "NullWritable", "NullWritable", [(None, None)] * 4,
                 "NullWritable→NullWritable (zero-length keys and values)")
    yield Vector("text-bytes", "seq", "Text", "BytesWritable",
                 [("empty", b""), ("zero", b"\x00"), ("all", bytes(range(256))),
                  ("random", bytes(rng.randrange(256) for _ in range(1000)))], "Text→BytesWritable")
    yield Vector("text-md5", "seq", "Text", "MD5Hash",
                 [(s, hashlib.md5(s.encode()).digest()) for s in ("", "a", "http://example.com/")],
                 "Text→MD5Hash (digests of the keys)")
    yield Vector("text-array", "seq", "Text", "ArrayWritable",
                 [("none", []), ("one", ["x"]), ("mixed", ["", "café", "😀", "a b c"])],
                 "Text→ArrayWritable of Text (read with ArrayWritable(Text.class))")
    yield Vector("text-array-utf8", "seq", "Text", "ArrayWritable",
                 [("one", ["x"]), ("mixed", ["", "café", "日本"])],
                 "Text→ArrayWritable of the old UTF8 (2-byte length) elements, as ArrayWritable(String[]) writes",
                 {"element_class": "UTF8"})
    maps = [
        ("empty", {}),
        ("flat", {"title": "Hello", "count": 3, "score": ("FloatWritable", 0.5), "fetched": True,
                  "raw": b"\x00\xff", "none": None, "small": ("IntWritable", -7), "v": ("VIntWritable", 300),
                  "vl": ("VLongWritable", -(2**40)), "d": 2.5, "md5": ("MD5Hash", hashlib.md5(b"x").digest())}),
        ("nested", {"outer": {"inner": "value", "n": ("IntWritable", 1)}, "ключ": "значение"}),
        ("typed-keys", {("LongWritable", 5): "five", ("IntWritable", 6): "six"}),
    ]
    for name, options in (("text-map", {}), ("text-map-block-deflate", {"compression": "BLOCK",
                                                                        "codec": "DefaultCodec"})):
        yield Vector(name, "seq", "Text", "MapWritable", maps,
                     "Text→MapWritable with every Writable class as values, nested maps and non-Text keys "
                     "(typed_records keep the classes)", options, typed=True)


def write(jvm: HadoopJvm, vector: Vector, out: Path) -> Path:
    """Write one vector under ``out``; its path (a file or a directory)."""
    if vector.kind == "seq":
        path = out / f"{vector.name}.seq"
        jvm.write_sequence_file(path, vector.key_class, vector.value_class, vector.records, **vector.options)
    elif vector.kind == "map":
        path = out / vector.name
        jvm.write_map_file(path, vector.key_class, vector.value_class, vector.records, **vector.options)
    else:
        path = out / vector.name
        jvm.write_array_file(path, vector.value_class, vector.records, **vector.options)
    return path


def writer_facts(vector: Vector) -> dict[str, Any]:
    """The ``writer`` part of a vector's JSON."""
    api = {"seq": "SequenceFile.createWriter", "map": "MapFile.Writer", "array": "ArrayFile.Writer"}[vector.kind]
    return {"api": api, "key_class": vector.key_class, "value_class": vector.value_class,
            "description": vector.description, "element_class": vector.options.get("element_class", "Text"),
            **{k: v for k, v in vector.options.items() if k != "element_class"}}


def dump_json(facts: dict[str, Any]) -> str:
    """Pretty JSON with one record per line (keeps big files readable and diffable)."""
    lines = ["{"]
    items = list(facts.items())
    for position, (key, value) in enumerate(items):
        comma = "," if position < len(items) - 1 else ""
        if isinstance(value, list) and value and key.endswith(("records", "values", "lookups")):
            body = ",\n".join("    " + json.dumps(item, ensure_ascii=False) for item in value)
            lines.append(f"  {json.dumps(key)}: [\n{body}\n  ]{comma}")
        elif isinstance(value, dict) and key in ("data", "index"):
            inner = dump_json(value).replace("\n", "\n  ")
            lines.append(f"  {json.dumps(key)}: {inner}{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--list", action="store_true", help="print what would be written, write nothing")
    args = parser.parse_args(argv)
    reason = unavailable_reason()
    if reason:
        print(f"make_hadoop_vectors: {reason}", file=sys.stderr)
        return 2
    with HadoopJvm() as jvm:
        problems = jvm.working_codecs()
        codecs = [codec for codec in CODECS if problems[codec] is None]
        if args.list:
            for vector in vectors(codecs):
                print(f"{vector.name}: {vector.description}")
            return 0
        staging = Path(tempfile.mkdtemp(prefix="hadoop-vectors-", dir=args.out.parent))
        try:
            readme = args.out / "README.md"
            if readme.exists():
                shutil.copy(readme, staging / "README.md")
            for vector in vectors(codecs):
                path = write(jvm, vector, staging)
                facts = vector_facts(jvm, path, vector.options.get("element_class", "Text"), vector.typed,
                                     vector.lookups)
                text = dump_json({"file": path.name, "writer": writer_facts(vector), **facts})
                (staging / f"{vector.name}.json").write_text(text + "\n", encoding="utf-8")
                print(f"{path.name}: {vector.description}")
            skipped = {codec: problem for codec, problem in problems.items() if problem}
            (staging / "skipped.json").write_text(json.dumps(skipped, indent=2) + "\n", encoding="utf-8")
            leftovers = [p for p in staging.rglob("*") if p.name.endswith(".crc")]
            assert not leftovers, f"checksum side files written: {leftovers}"
            if args.out.exists():
                shutil.rmtree(args.out)
            staging.rename(args.out)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
