"""Job output parts as Arrow IPC files (``Job.output_format="arrow"``, :mod:`gossamer.store.arrow_parts`)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq
import pytest

from gossamer.core.settings import load_settings
from gossamer.engine import Job, LocalEngine
from gossamer.engine.tasks import output_part_name
from gossamer.store import ARROW_SUFFIX, ArrowPartWriter, iter_arrow_part, new_staging_dir, part_name
from gossamer.store.location import Location

from . import engine_jobs
from .test_engine import make_lines, text_job

SCHEMA = pa.schema([pa.field("url", pa.string(), nullable=False), pa.field("doc", pa.large_string())])


def _batch(urls: list[str], docs: list[str | None], schema: pa.Schema = SCHEMA) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays([pa.array(urls, schema.field(0).type), pa.array(docs, schema.field(1).type)],
                                      schema=schema)


def test_a_part_reads_back_the_rows_written_in_order_in_bounded_batches(tmp_path: Path) -> None:
    path = tmp_path / part_name(3, ARROW_SUFFIX)
    assert path.name == "part-00003.arrow"
    other = pa.schema([pa.field("url", pa.string(), nullable=False), pa.field("doc", pa.string())])
    writer = ArrowPartWriter(path, SCHEMA)
    writer.write(_batch(["a", "b", "c", "d", "e"], ["1", None, "3", "ü" * 1000, ""]))
    writer.write(_batch([], []))  # an empty batch adds nothing
    writer.write(_batch(["f", "g"], ["6", "7"], other))  # cast to the part's schema
    writer.close()
    assert writer.rows == 7
    batches = list(iter_arrow_part(path, 3))
    assert [b.num_rows for b in batches] == [3, 2, 2]
    assert all(b.schema == SCHEMA for b in batches)
    table = pa.Table.from_batches(batches)
    assert table.column("url").to_pylist() == list("abcdefg")
    assert table.column("doc").to_pylist() == ["1", None, "3", "ü" * 1000, "", "6", "7"]


def test_an_empty_part_has_no_rows_and_a_damaged_one_raises(tmp_path: Path) -> None:
    empty = tmp_path / "part-00000.arrow"
    ArrowPartWriter(empty, SCHEMA).close()
    assert list(iter_arrow_part(empty, 10)) == []
    damaged = tmp_path / "part-00001.arrow"
    damaged.write_bytes(empty.read_bytes()[:-12])
    with pytest.raises(pa.ArrowInvalid):
        list(iter_arrow_part(damaged, 10))


def test_a_part_on_a_remote_filesystem_is_written_and_read_through_it(tmp_path: Path) -> None:
    where = Location.on(pafs.LocalFileSystem(), str(tmp_path / "remote"), rename_atomic=True)
    where.make_dirs()
    writer = ArrowPartWriter(where / "part-00000.arrow", SCHEMA)
    writer.write(_batch(["x", "y"], ["1", "2"]))
    writer.close()
    rows = pa.Table.from_batches(list(iter_arrow_part(where / "part-00000.arrow", 10))).to_pylist()
    assert rows == [{"url": "x", "doc": "1"}, {"url": "y", "doc": "2"}]


def test_a_job_with_arrow_output_writes_the_rows_of_its_parquet_form(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    make_lines(lines, 5_000, 9)
    parquet_job = text_job(lines, parts=3)
    arrow_job = dataclasses.replace(parquet_job, output_format="arrow")
    assert [output_part_name(arrow_job, p) for p in (0, 2)] == ["part-00000.arrow", "part-00002.arrow"]
    assert output_part_name(parquet_job, 1) == "part-00001.parquet"
    settings = load_settings(overrides=["engine.local.workers=2", "engine.local.inline.mb=0"])
    outputs = []
    for job in (parquet_job, arrow_job):
        out = new_staging_dir(tmp_path / f"out-{job.output_format}")
        result = LocalEngine(settings).run(job, out)
        outputs.append((out, result))
    (parquet_out, parquet_result), (arrow_out, arrow_result) = outputs
    assert arrow_result.rows_per_part == parquet_result.rows_per_part and arrow_result.rows > 0
    assert sorted(p.name for p in arrow_out.iterdir()) == [f"part-0000{p}.arrow" for p in range(3)]
    for p in range(3):
        expected = pq.read_table(parquet_out / part_name(p))
        got = pa.Table.from_batches(list(iter_arrow_part(arrow_out / part_name(p, ARROW_SUFFIX), 1000)),
                                    schema=engine_jobs.OUTPUT)
        assert got.equals(expected), p  # same rows, same order, same part


def test_an_unknown_output_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="output_format"):
        Job("x", [], engine_jobs.SHUFFLE, engine_jobs.reduce_sum, engine_jobs.OUTPUT, 2, output_format="csv")
