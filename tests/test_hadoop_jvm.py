"""Hadoop's own Java readers against the committed vectors in tests/vectors/hadoop (issue 17, part 6).

The committed JSON must be exactly what Hadoop's ``SequenceFile.Reader``/``MapFile.Reader`` read from the
committed bytes, and re-writing a vector with Hadoop must give the committed bytes once the (random) sync
marker is swapped. Tests needing the JVM skip with the reason when Java or PySpark is missing.

Hooks for the other direction (Hadoop reads what Gossamer wrote), for tests of ``gossamer.store.hadoop``:
:func:`assert_hadoop_reads`, :func:`assert_hadoop_map_file_gets` and :func:`assert_same_bytes_but_sync`,
all taking the ``hadoop`` fixture's :class:`~tests.hadoop_jvm.HadoopJvm`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.hadoop_jvm import HadoopJvm, unavailable_reason, vector_facts

VECTORS = Path(__file__).resolve().parent / "vectors" / "hadoop"
SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "make_hadoop_vectors.py"
NAMES = sorted(p.stem for p in VECTORS.glob("*.json") if p.name != "skipped.json")
PURE_JAVA_CODECS = ("DefaultCodec", "GzipCodec", "BZip2Codec", "SnappyCodec", "Lz4Codec")


def vector_path(name: str) -> Path:
    """The vector's file (``NAME.seq``) or directory (``NAME/``)."""
    return VECTORS / f"{name}.seq" if (VECTORS / f"{name}.seq").exists() else VECTORS / name


def expected(name: str) -> dict[str, Any]:
    return json.loads((VECTORS / f"{name}.json").read_text(encoding="utf-8"))


def as_json(value: Any) -> Any:
    """Tuples → lists etc., as a JSON round trip leaves them."""
    return json.loads(json.dumps(value))


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location("make_hadoop_vectors", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def hadoop() -> Iterator[HadoopJvm]:
    """One JVM for the whole module (about a second to start)."""
    reason = unavailable_reason()
    if reason:
        pytest.skip(f"Hadoop's Java classes unavailable: {reason}")
    with HadoopJvm() as jvm:
        yield jvm


# --- hooks for tests of gossamer.store.hadoop ------------------------------------------------------------------


def assert_hadoop_reads(jvm: HadoopJvm, path: str | Path, expected_records: Sequence[Sequence[Any]],
                        header: Mapping[str, Any] | None = None, element_class: str = "Text") -> None:
    """Hadoop's ``SequenceFile.Reader`` reads ``expected_records`` (``[key JSON, value JSON]``) from ``path``,
    and every item of ``header`` (e.g. ``{"codec": …, "metadata": …, "sync_hex": …}``) matches its header."""
    contents = jvm.describe_sequence_file(path, element_class)
    assert as_json(contents.records) == as_json(list(expected_records))
    for key, value in (header or {}).items():
        assert contents.header[key] == value, f"header {key}: Hadoop read {contents.header[key]!r}"


def assert_hadoop_map_file_gets(jvm: HadoopJvm, dirpath: str | Path, lookups: Mapping[Any, Any],
                                element_class: str = "Text") -> None:
    """``MapFile.Reader.get`` finds every key of ``lookups`` with its value JSON (``None`` = must be absent)."""
    for key, value in lookups.items():
        found, got = jvm.map_file_lookup(dirpath, key, element_class=element_class)
        assert (found, as_json(got)) == (value is not None, as_json(value)), f"MapFile.get({key!r})"


def assert_same_bytes_but_sync(ours: bytes, hadoops: bytes, hadoop_sync_hex: str) -> None:
    """``ours`` equals ``hadoops`` once Hadoop's sync marker is replaced by ours (taken from the same offset)."""
    sync = bytes.fromhex(hadoop_sync_hex)
    start = hadoops.find(sync)
    assert start > 0, "Hadoop's sync marker is not in Hadoop's file"
    ours_sync = ours[start:start + 16]
    assert ours == hadoops.replace(sync, ours_sync), "files differ beyond the sync marker"


# --- the committed vectors ------------------------------------------------------------------------------------


def test_every_vector_has_its_json_and_the_directory_is_small() -> None:
    files = {p.stem if p.suffix == ".seq" else p.name for p in VECTORS.iterdir()
             if p.suffix == ".seq" or p.is_dir()}
    assert files == set(NAMES)
    for name in NAMES:
        facts = expected(name)
        assert facts["file"] == vector_path(name).name
        if facts["kind"] == "MapFile":
            assert sorted(p.name for p in vector_path(name).iterdir()) == ["data", "index"]
    total = sum(p.stat().st_size for p in VECTORS.rglob("*") if p.is_file())
    assert total < 2_000_000
    assert not list(VECTORS.rglob("*.crc"))


def test_the_vectors_cover_the_issue() -> None:
    headers = [expected(n)["header"] for n in NAMES if expected(n)["kind"] == "SequenceFile"]
    pairs = {(h["compression"], h["codec"]) for h in headers}
    for codec in PURE_JAVA_CODECS:
        for compression in ("RECORD", "BLOCK"):
            assert (compression, f"org.apache.hadoop.io.compress.{codec}") in pairs
    assert ("NONE", None) in pairs
    classes = {h[side].rsplit(".", 1)[1] for h in headers for side in ("key_class", "value_class")}
    assert classes >= {"Text", "IntWritable", "LongWritable", "FloatWritable", "DoubleWritable", "BooleanWritable",
                       "VIntWritable", "VLongWritable", "BytesWritable", "NullWritable", "MD5Hash", "MapWritable",
                       "ArrayWritable"}
    assert any(h["metadata"] for h in headers)
    many = expected("text-text-none")
    assert len(many["records"]) == 3000 and many["sync_before"]
    assert len(expected("mapfile-text-text")["index"]["records"]) > 1


@pytest.mark.parametrize("name", NAMES)
def test_hadoop_reads_the_committed_vector(hadoop: HadoopJvm, name: str) -> None:
    facts = expected(name)
    writer = facts.pop("writer")
    assert facts.pop("file") == vector_path(name).name
    lookups = [key for key, _, _ in facts.get("lookups", [])]
    got = vector_facts(hadoop, vector_path(name), writer["element_class"], "typed_records" in facts.get(
        "data", facts), lookups)
    assert as_json(got) == facts


@pytest.mark.slow
def test_hadoop_writes_the_committed_bytes_again_but_for_the_sync_marker(hadoop: HadoopJvm,
                                                                          tmp_path: Path) -> None:
    """Hadoop's output is deterministic apart from the sync marker: so a writer given the committed sync marker
    must reproduce the committed bytes exactly (the target for ``gossamer.store.hadoop``'s writer)."""
    script = load_script()
    for vector in script.vectors(list(PURE_JAVA_CODECS)):
        fresh = script.write(hadoop, vector, tmp_path)
        committed = vector_path(vector.name)
        parts = ["data", "index"] if committed.is_dir() else [""]
        for part in parts:
            theirs, ours = (committed / part) if part else committed, (fresh / part) if part else fresh
            facts = expected(vector.name)
            sync_hex = (facts[part] if part else facts)["header"]["sync_hex"]
            assert_same_bytes_but_sync(ours.read_bytes(), theirs.read_bytes(), sync_hex)


def test_codecs_that_need_no_libhadoop_work(hadoop: HadoopJvm) -> None:
    problems = hadoop.working_codecs()
    assert {c: problems[c] for c in PURE_JAVA_CODECS} == dict.fromkeys(PURE_JAVA_CODECS)
    skipped = json.loads((VECTORS / "skipped.json").read_text())
    assert set(skipped) == {c for c, p in problems.items() if p}


# --- the hooks on files Hadoop wrote -----------------------------------------------------------------------------


def test_hooks_accept_hadoops_own_files(hadoop: HadoopJvm, tmp_path: Path) -> None:
    records = [("b", {"n": 1, "t": "x"}), ("a", {})]
    path = tmp_path / "m.seq"
    hadoop.write_sequence_file(path, "Text", "MapWritable", records, "BLOCK", "GzipCodec", metadata={"k": "v"})
    assert_hadoop_reads(hadoop, path, records, {"codec": "org.apache.hadoop.io.compress.GzipCodec",
                                                "metadata": {"k": "v"}, "version": 6})
    with pytest.raises(AssertionError):
        assert_hadoop_reads(hadoop, path, records[:1])
    hadoop.write_map_file(tmp_path / "mf", "Text", "LongWritable", [(f"k{i:03d}", i) for i in range(300)],
                          index_interval=7)
    assert_hadoop_map_file_gets(hadoop, tmp_path / "mf", {"k000": 0, "k150": 150, "k299": 299, "k300": None})
    assert not list(tmp_path.rglob("*.crc"))
    assert hadoop.read_map_file(tmp_path / "mf")[:2] == [("k000", 0), ("k001", 1)]


def test_java_read_rate_loops_inside_the_jvm(hadoop: HadoopJvm, tmp_path: Path) -> None:
    from bench.nutchformats_java import java_read_rate, write_text_text

    rate = java_read_rate(vector_path("text-text-none"), "Text", "Text", runs=2, warmups=1, jvm=hadoop)
    assert rate["records"] == 3000 and rate["records_per_s"] > 0 and len(rate["seconds"]) == 2
    path = tmp_path / "bench.seq"
    write_text_text(hadoop, path, 2000)
    assert java_read_rate(path, runs=1, warmups=0, jvm=hadoop)["records"] == 2000
    records = hadoop.read_sequence_file(path)
    assert records[1][0] == "http://host1.example.com/page/1" and all(v for _, v in records)
    assert hadoop.sequence_file_header(path)["codec"] == "org.apache.hadoop.io.compress.DefaultCodec"
