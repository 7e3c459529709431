"""Module-level map/reduce functions for the engine tests (spawned workers import them)."""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.engine import TaskContext

SHUFFLE = pa.schema([pa.field("url", pa.string()), pa.field("value", pa.int64())])
OUTPUT = pa.schema([pa.field("url", pa.string()), pa.field("total", pa.int64()),
                    pa.field("count", pa.int64()), pa.field("sources", pa.string())])


def map_lines(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    urls, values = [], []
    for line in batch.column("line").to_pylist():
        url, _, value = line.partition(" ")
        if not value.isdigit():
            ctx.report(f"bad line {line!r}")
            continue
        urls.append(url)
        values.append(int(value))
    ctx.count("lines", batch.num_rows)
    yield pa.RecordBatch.from_arrays([pa.array(urls, pa.string()), pa.array(values, pa.int64())],
                                     schema=SHUFFLE)


def map_table(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    yield pa.RecordBatch.from_arrays([batch.column("url"), batch.column("total")], schema=SHUFFLE)


def reduce_sum(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    urls = batch.column("url").to_pylist()
    values = batch.column("value").to_pylist()
    sources = batch.column("_src").to_pylist()
    out: dict[str, list] = {"url": [], "total": [], "count": [], "sources": []}
    for url, value, src in zip(urls, values, sources, strict=True):
        if out["url"] and out["url"][-1] == url:
            out["total"][-1] += value
            out["count"][-1] += 1
            out["sources"][-1] += str(src)
        else:
            out["url"].append(url)
            out["total"].append(value)
            out["count"].append(1)
            out["sources"].append(str(src))
    ctx.count("groups", len(out["url"]))
    yield pa.RecordBatch.from_pydict(out, schema=OUTPUT)


def keys_sorted(batch: pa.RecordBatch) -> bool:
    keys = batch.column("url")
    return batch.num_rows < 2 or pc.all(pc.less_equal(keys.slice(0, len(keys) - 1), keys.slice(1))).as_py()


def reduce_sum_then_fail(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """``reduce_sum``, but a batch holding the URL ``http://h0.example/0`` raises after the part began."""
    yield from reduce_sum(batch, ctx)
    if "http://h0.example/0" in batch.column("url").to_pylist():
        raise RuntimeError("reduce failed on purpose")
