"""The ``nutchformats`` benchmark: reading a block-compressed SequenceFile, Gossamer vs Hadoop's Java reader.

Issue 17 point 9. Hadoop's own writer (a loop inside a py4j JVM, :mod:`bench.nutchformats_java`) writes a
1M-record (``--quick``: 100k; ``--urls N``: N) Text→Text SequenceFile, BLOCK compression, DefaultCodec (zlib),
Hadoop's default 1,000,000-byte blocks. Then, each in its own process pinned to ONE core (every thread of
it, the JVM's JIT and GC threads included), start-up excluded, best of several runs after warm-ups:

* ``gossamer_records`` — ``for key, value in SequenceFileReader(path)`` (decoded ``str`` keys and values);
* ``gossamer_raw`` — ``reader.raw()`` (serialized bytes per record, no decoding);
* ``gossamer_batches`` — ``reader.batches()`` (one Arrow batch per block, decoded ``string`` columns);
* ``java_read`` — the peer: ``SequenceFile.Reader.next(key, value)`` into reused ``Text`` objects, the loop
  inside the JVM (:func:`bench.nutchformats_java.java_read_rate`).

Goals: Text→Text ≥ 1M records/s and ≥ 0.5 × Java's rate (the faster Gossamer API that decodes the values:
``records``, or ``batches`` when both codecs have a vectorised Arrow decoding; every mode is reported).
CrawlDatum hook (:func:`crawldatum_codec`): when ``gossamer.store.hadoop`` has a codec registered for
``org.apache.nutch.crawl.CrawlDatum``, a Text→CrawlDatum file of the same size (bytes laid out as Nutch 1.x
writes them, written by Gossamer: Nutch's classes are not on this machine, so no Java peer) is read too,
goal ≥ 300k records/s; otherwise the result says ``skipped: no CrawlDatum codec``.

Workers: ``python -m bench.nutchformats_bench write-java|write-crawldatum|gossamer|java ...`` (JSON on stdout).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import statistics
import struct
import sys
import time
from pathlib import Path
from typing import Any

from bench import REPO_ROOT, BenchOptions
from bench.steps import StepRunner, work_dir

NAME = "nutchformats"
DESCRIPTION = "SequenceFile BLOCK/zlib Text->Text read rate on one core: Gossamer vs Hadoop's Java reader"
DEFAULT_RECORDS, QUICK_RECORDS = 1_000_000, 100_000
TEXT_GOAL, RATIO_GOAL, CRAWLDATUM_GOAL = 1_000_000, 0.5, 300_000
CRAWLDATUM_CLASS = "org.apache.nutch.crawl.CrawlDatum"
MODES = ("records", "raw", "batches")
TEXT = "org.apache.hadoop.io.Text"


def log(message: str) -> None:
    print(f"[nutchformats] {message}", file=sys.stderr, flush=True)


def pin_one_core() -> int:
    """Pin this process (and every thread it starts later) to one CPU it may use; that CPU's number."""
    cpu = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    return cpu


def crawldatum_codec() -> Any:
    """THE CrawlDatum hook: the codec registered for :data:`CRAWLDATUM_CLASS`, or None.

    ``gossamer.store.hadoop``'s ``nutch_*`` modules are imported first, so a codec they register counts.
    """
    import gossamer.store.hadoop as hadoop

    for module in pkgutil.iter_modules(hadoop.__path__):
        if module.name.startswith("nutch"):
            importlib.import_module(f"{hadoop.__name__}.{module.name}")
    return hadoop.DEFAULT_REGISTRY.get(CRAWLDATUM_CLASS) if CRAWLDATUM_CLASS in hadoop.DEFAULT_REGISTRY else None


# --- workers (run as measured subprocesses) --------------------------------------------------------------------


def write_java(path: Path, records: int) -> dict[str, Any]:
    from tests.hadoop_jvm import HadoopJvm

    from bench.nutchformats_java import write_text_text

    with HadoopJvm(heap="1g") as jvm:
        seconds = write_text_text(jvm, path, records)
    return {"records": records, "seconds": round(seconds, 3), "file_bytes": path.stat().st_size}


def crawldatum_bytes(i: int, metadata: bytes) -> bytes:
    """One CrawlDatum as Nutch 1.x writes it (version 7): status, fetch time, retries, interval, score,
    modified time, signature, metadata (a MapWritable) — fields varying with ``i``."""
    signature = struct.pack(">QQ", i * 0x9E3779B97F4A7C15 & (2**64 - 1), i) if i % 3 else b""
    return (struct.pack(">BBqBifq", 7, 1 + i % 7, 1_700_000_000_000 + i * 1000, i % 3, 2_592_000,
                        1.0 / (1 + i % 10), 0 if i % 2 else 1_690_000_000_000)
            + bytes([len(signature)]) + signature + (b"\x01" + metadata if i % 2 else b"\x00"))


def write_crawldatum(path: Path, records: int) -> dict[str, Any]:
    from gossamer.store.hadoop import BLOCK, DEFAULT_REGISTRY, TEXT, SequenceFileWriter

    mapping = DEFAULT_REGISTRY.get("org.apache.hadoop.io.MapWritable")
    metadata = mapping.serialize({"_pst_": "success(1), lastModified=0", "nutch.protocol.code": "200",
                                  "Content-Type": "text/html"})
    started = time.perf_counter()
    with open(path, "wb") as sink:
        writer = SequenceFileWriter(sink, TEXT.java_class, CRAWLDATUM_CLASS, compression=BLOCK)
        for i in range(records):
            writer.append_raw(TEXT.serialize(f"http://host{i % 1000}.example.com/page/{i}"),
                              crawldatum_bytes(i, metadata))
        writer.close()
    return {"records": records, "seconds": round(time.perf_counter() - started, 3),
            "file_bytes": path.stat().st_size}


def _read_once(path: Path, mode: str) -> tuple[int, float, Any]:
    from gossamer.store.hadoop import SequenceFileReader

    started = time.perf_counter()
    count, first = 0, None
    with SequenceFileReader(path) as reader:
        if mode == "batches":
            for batch in reader.batches():
                first = first if first is not None else batch.column(0)[0].as_py()
                count += batch.num_rows
        else:
            records = reader.raw() if mode == "raw" else iter(reader)
            for key, _ in records:
                first = first if first is not None else key
                count += 1
    return count, time.perf_counter() - started, first


def _arrow_decodes(path: Path) -> bool:
    """Whether ``batches()`` decodes both columns (codecs with their own ``arrow_column``) or keeps raw bytes."""
    from gossamer.store.hadoop import SequenceFileReader, WritableCodec

    with SequenceFileReader(path) as reader:
        codecs = (reader.key_codec, reader.value_codec)
    return all(type(codec).arrow_column is not WritableCodec.arrow_column for codec in codecs)


def gossamer_read(path: Path, mode: str, runs: int, warmups: int) -> dict[str, Any]:
    cpu = pin_one_core()
    import pyarrow as pa

    pa.set_cpu_count(1)
    pa.set_io_thread_count(1)
    crawldatum_codec()  # registers a CrawlDatum codec if one exists
    decoded = mode == "records" or (mode == "batches" and _arrow_decodes(path))
    timings, count, first = [], 0, None
    for run in range(warmups + runs):
        count, seconds, first = _read_once(path, mode)
        if run >= warmups:
            timings.append(seconds)
    if isinstance(first, bytes):  # raw: the serialized Text
        from gossamer.store.hadoop import TEXT

        first = TEXT.deserialize(first)
    first_key = first
    return {"mode": mode, "decoded": decoded, "records": count, "records_per_s": round(count / min(timings)),
            "records_per_s_median": round(count / statistics.median(timings)),
            "seconds": [round(t, 4) for t in timings], "cpu": cpu, "first_key": first_key}


def java_read(path: Path, runs: int, warmups: int) -> dict[str, Any]:
    cpu = pin_one_core()  # before the JVM starts: all of its threads inherit the one CPU
    from tests.hadoop_jvm import HadoopJvm

    from bench.nutchformats_java import java_read_rate

    with HadoopJvm(heap="1g") as jvm:
        return {**java_read_rate(path, "Text", "Text", runs=runs, warmups=warmups, jvm=jvm), "cpu": cpu}


# --- the benchmark ----------------------------------------------------------------------------------------------


def _json(m: Any) -> dict[str, Any] | None:
    return json.loads(m.stdout.strip().splitlines()[-1]) if m is not None else None


def _worker(*args: object) -> list[str]:
    return [sys.executable, "-m", "bench.nutchformats_bench", *map(str, args)]


def _read_all(runner: StepRunner, prefix: str, path: Path, runs: int, warmups: int) -> dict[str, Any]:
    rates = {}
    for mode in MODES:
        got = _json(runner.step(f"{prefix}_{mode}", _worker("gossamer", path, mode, runs, warmups)))
        if got is not None:
            rates[mode] = got
    return rates


def _crawldatum(runner: StepRunner, work: Path, records: int, runs: int, warmups: int) -> dict[str, Any]:
    if crawldatum_codec() is None:
        return {"skipped": "skipped: no CrawlDatum codec"}
    path = work / "crawldatum-block-deflate.seq"
    if _json(runner.step("write_crawldatum", _worker("write-crawldatum", path, records))) is None:
        return {"skipped": "writing the CrawlDatum file failed"}
    rates = _read_all(runner, "crawldatum", path, runs, warmups)
    runner.check("crawldatum_records", all(r["records"] == records for r in rates.values()) and len(rates) == 3,
                 f"expected {records} in every mode, got {({m: r['records'] for m, r in rates.items()})}")
    return {"file": "Text->CrawlDatum v7, BLOCK DefaultCodec, Gossamer's writer", "rates": rates}


def run(opts: BenchOptions) -> dict[str, Any]:
    records = opts.urls or (QUICK_RECORDS if opts.quick else DEFAULT_RECORDS)
    runs, warmups = (3, 1) if opts.quick else (5, 2)
    with work_dir(opts, NAME, log) as work:
        runner = StepRunner(work / "logs", records, log)
        path = work / "text-text-block-deflate.seq"
        written = _json(runner.step("write_java", _worker("write-java", path, records)))
        gossamer = _read_all(runner, "gossamer", path, runs, warmups) if written else {}
        java = _json(runner.step("java_read", _worker("java", path, runs, warmups))) if written else None
        crawldatum = _crawldatum(runner, work, records, runs, warmups)
    first = "http://host0.example.com/page/0"
    counts = {m: r["records"] for m, r in gossamer.items()} | {"java": java["records"] if java else None}
    runner.check("same_records", len(counts) == 4 and set(counts.values()) == {records},
                 f"expected {records} everywhere, got {counts}")
    runner.check("first_key", all(r["first_key"] == first for r in gossamer.values()) and bool(gossamer),
                 f"expected {first!r}, got {[r['first_key'] for r in gossamer.values()]}")
    rates = {f"gossamer_{m}": r["records_per_s"] for m, r in gossamer.items()}
    java_rate = java["records_per_s"] if java else None
    if java_rate:
        rates["java"] = java_rate
    decoding = [m for m in gossamer if gossamer[m]["decoded"]]  # goals count only APIs that decode the values
    best_mode = max(decoding, key=lambda m: gossamer[m]["records_per_s"]) if decoding else None
    best = gossamer[best_mode]["records_per_s"] if best_mode else None
    ratios = {f"gossamer_{m}_vs_java": round(r["records_per_s"] / java_rate, 3)
              for m, r in gossamer.items() if java_rate}
    goals = [{"goal": f"Text/Text >= {TEXT_GOAL:,} records/s on one core (best API: {best_mode})",
              "value": best, "met": bool(best and best >= TEXT_GOAL)},
             {"goal": f"Text/Text >= {RATIO_GOAL} x Hadoop's Java reader (best API: {best_mode})",
              "ratio": ratios.get(f"gossamer_{best_mode}_vs_java"),
              "met": bool(best and java_rate and best >= RATIO_GOAL * java_rate)}]
    if "rates" in crawldatum:
        cd_modes = {m: r["records_per_s"] for m, r in crawldatum["rates"].items() if r["decoded"]}
        cd_mode = max(cd_modes, key=cd_modes.__getitem__) if cd_modes else None
        cd_best = cd_modes.get(cd_mode) if cd_mode else None
        goals.append({"goal": f"CrawlDatum >= {CRAWLDATUM_GOAL:,} records/s on one core (best decoding API: "
                              f"{cd_mode})", "value": cd_best, "met": bool(cd_best and cd_best >= CRAWLDATUM_GOAL)})
        rates |= {f"crawldatum_{m}": r["records_per_s"] for m, r in crawldatum["rates"].items()}
    return {
        "params": {"records": records, "runs": runs, "warmups": warmups, "quick": opts.quick,
                   "file": "SequenceFile v6, Text->Text, BLOCK, DefaultCodec, 1,000,000-byte blocks, "
                           "Hadoop's writer", "file_bytes": written["file_bytes"] if written else None},
        "steps": runner.steps, "rates": rates, "gossamer": gossamer, "java": java, "crawldatum": crawldatum,
        "ratios": ratios, "checks": runner.checks, "goals": goals,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.nutchformats_bench")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("write-java", "write-crawldatum"):
        writer = sub.add_parser(name)
        writer.add_argument("path", type=Path)
        writer.add_argument("records", type=int)
    reader = sub.add_parser("gossamer")
    reader.add_argument("path", type=Path)
    reader.add_argument("mode", choices=MODES)
    reader.add_argument("runs", type=int)
    reader.add_argument("warmups", type=int)
    java = sub.add_parser("java")
    java.add_argument("path", type=Path)
    java.add_argument("runs", type=int)
    java.add_argument("warmups", type=int)
    args = parser.parse_args(argv)
    if str(REPO_ROOT) not in sys.path:
        sys.path.insert(0, str(REPO_ROOT))
    if args.command == "write-java":
        result = write_java(args.path, args.records)
    elif args.command == "write-crawldatum":
        result = write_crawldatum(args.path, args.records)
    elif args.command == "gossamer":
        result = gossamer_read(args.path, args.mode, args.runs, args.warmups)
    else:
        result = java_read(args.path, args.runs, args.warmups)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
