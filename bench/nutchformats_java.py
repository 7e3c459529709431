"""Hadoop's Java ``SequenceFile.Reader`` speed: the peer for Gossamer's reader in ``scripts/bench nutchformats``.

The read loop runs inside the JVM: a small Java class (below), compiled in the JVM by Janino (shipped with
Spark; no ``javac`` needed), opens the file with ``SequenceFile.Reader`` and calls ``next(key, value)`` until
the end, timing itself with ``System.nanoTime``. Python only starts the JVM (:class:`tests.hadoop_jvm.HadoopJvm`)
and makes one py4j call per run, so neither JVM start-up nor py4j is in the rate.

``python -m bench.nutchformats_java [--records N] [--keep DIR]`` writes an N-record (default 1M) BLOCK
DefaultCodec Text→Text SequenceFile with Hadoop's writer (also a loop inside the JVM), measures it and prints
JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.hadoop_jvm import HadoopJvm, full_class_name  # noqa: E402

CLASS_NAME = "GossamerSequenceFileBench"
JAVA_SOURCE = """
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.SequenceFile;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.io.Writable;
import org.apache.hadoop.io.compress.CompressionCodec;
import org.apache.hadoop.util.ReflectionUtils;

public class GossamerSequenceFileBench {
    /** Read every record of uri into one key and one value instance: {records, nanoseconds, key bytes}. */
    public long[] read(Configuration conf, String uri, String keyClass, String valueClass) throws Exception {
        long start = System.nanoTime();
        SequenceFile.Reader reader = new SequenceFile.Reader(conf,
            new SequenceFile.Reader.Option[] { SequenceFile.Reader.file(new Path(uri)) });
        Writable key = (Writable) ReflectionUtils.newInstance(conf.getClassByName(keyClass), conf);
        Writable value = (Writable) ReflectionUtils.newInstance(conf.getClassByName(valueClass), conf);
        long records = 0;
        long keyBytes = 0;
        boolean text = key instanceof Text;
        while (reader.next(key, value)) {
            records++;
            if (text) keyBytes += ((Text) key).getLength();
        }
        reader.close();
        return new long[] { records, System.nanoTime() - start, keyBytes };
    }

    /** Write records Text->Text records (URL-like keys in order, 40-120 byte values): nanoseconds taken. */
    public long writeTextText(Configuration conf, String uri, long records, String compression, String codecClass)
            throws Exception {
        long start = System.nanoTime();
        CompressionCodec codec = (CompressionCodec) ReflectionUtils.newInstance(conf.getClassByName(codecClass), conf);
        SequenceFile.Writer writer = SequenceFile.createWriter(conf, new SequenceFile.Writer.Option[] {
            SequenceFile.Writer.file(new Path(uri)),
            SequenceFile.Writer.keyClass(Text.class),
            SequenceFile.Writer.valueClass(Text.class),
            SequenceFile.Writer.compression(SequenceFile.CompressionType.valueOf(compression), codec) });
        String[] words = new String[] { "crawl", "fetch", "parse", "index", "segment", "link", "anchor", "score",
            "nutch", "hadoop", "gossamer", "sequence", "file", "block", "record", "sync" };
        Text key = new Text();
        Text value = new Text();
        long state = 17;
        StringBuilder sb = new StringBuilder();
        for (long i = 0; i < records; i++) {
            key.set("http://host" + (i % 1000) + ".example.com/page/" + i);
            sb.setLength(0);
            state = state * 6364136223846793005L + 1442695040888963407L;
            int words_ = 6 + (int) ((state >>> 33) % 14);
            for (int w = 0; w < words_; w++) {
                state = state * 6364136223846793005L + 1442695040888963407L;
                if (w > 0) sb.append(' ');
                sb.append(words[(int) ((state >>> 40) % words.length)]);
            }
            value.set(sb.toString());
            writer.append(key, value);
        }
        writer.close();
        return System.nanoTime() - start;
    }
}
"""


def bench_object(jvm: HadoopJvm) -> Any:
    """The compiled :data:`JAVA_SOURCE` instance in ``jvm`` (compiled once per JVM)."""
    cached = getattr(jvm, "_sequence_file_bench", None)
    if cached is None:
        cached = jvm.compile_java(JAVA_SOURCE, CLASS_NAME)
        jvm._sequence_file_bench = cached  # type: ignore[attr-defined]
    return cached


def write_text_text(jvm: HadoopJvm, path: str | Path, records: int, compression: str = "BLOCK",
                    codec: str = "DefaultCodec") -> float:
    """Write ``records`` Text→Text records with Hadoop's writer, looping in the JVM; seconds taken."""
    nanos = bench_object(jvm).writeTextText(jvm.conf, jvm.path(path).toString(), records, compression,
                                            "org.apache.hadoop.io.compress." + codec)
    return nanos / 1e9


def java_read_rate(path: str | Path, key_class: str = "Text", value_class: str = "Text", runs: int = 5,
                   warmups: int = 2, jvm: HadoopJvm | None = None) -> dict[str, Any]:
    """Hadoop's ``SequenceFile.Reader`` reading all of ``path``: records/s of the best of ``runs`` timed runs
    after ``warmups`` untimed ones (JIT warm-up), JVM start-up and py4j excluded.

    Returns ``records``, ``records_per_s`` (best run), ``records_per_s_median``, ``seconds`` (every timed run),
    ``first_run_s`` (the first, cold run), ``mb_per_s`` (file bytes), ``file_bytes``, ``jvm_start_s``, ``java``
    (runtime version). Uses ``jvm`` if given, else starts (and stops) its own.
    """
    own = jvm is None
    started = time.perf_counter()
    jvm = jvm or HadoopJvm(heap="2g")
    jvm_start_s = time.perf_counter() - started if own else 0.0
    try:
        bench = bench_object(jvm)
        uri = jvm.path(path).toString()
        keys, values = full_class_name(key_class), full_class_name(value_class)
        timings: list[float] = []
        records = 0
        first_run_s = 0.0
        for run in range(warmups + runs):
            got = bench.read(jvm.conf, uri, keys, values)
            records, seconds = int(got[0]), got[1] / 1e9
            if run == 0:
                first_run_s = seconds
            if run >= warmups:
                timings.append(seconds)
        size = Path(path).stat().st_size
        best = min(timings)
        return {
            "reader": "org.apache.hadoop.io.SequenceFile.Reader (loop in the JVM)",
            "records": records, "records_per_s": round(records / best), "records_per_s_median":
            round(records / statistics.median(timings)), "seconds": [round(t, 4) for t in timings],
            "first_run_s": round(first_run_s, 4), "file_bytes": size, "mb_per_s": round(size / best / 1e6, 1),
            "jvm_start_s": round(jvm_start_s, 2), "java": jvm.jvm.java.lang.System.getProperty("java.version"),
        }
    finally:
        if own:
            jvm.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Hadoop's Java SequenceFile read rate (loop inside the JVM)")
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--keep", type=Path, help="write the file here and keep it (default: a temp dir)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nutchformats-java-") as tmp:
        path = args.keep or Path(tmp, "text-text-block-deflate.seq")
        started = time.perf_counter()
        with HadoopJvm(heap="2g") as jvm:
            jvm_start_s = time.perf_counter() - started
            write_s = write_text_text(jvm, path, args.records)
            result = java_read_rate(path, "Text", "Text", runs=args.runs, jvm=jvm)
        if result["records"] != args.records:
            raise SystemExit(f"wrote {args.records} records but Hadoop read {result['records']}")
        result.update(jvm_start_s=round(jvm_start_s, 2), write_s=round(write_s, 2), file=str(path) if args.keep
                      else None, format="SequenceFile v6, Text→Text, BLOCK, DefaultCodec (zlib), Hadoop's writer")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
