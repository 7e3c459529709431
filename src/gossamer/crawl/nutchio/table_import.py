"""Importing Nutch's crawldb and linkdb as table jobs: SequenceFile splits → decode → one row per URL.

* **map** (:class:`DatumMapper`, :class:`InlinksMapper`): the raw records of a
  :class:`~.seqsource.SequenceFileSplit` decoded with the registry's codec for the file's value
  class and converted with ``to_core_datum`` / ``to_core_inlinks`` (lossless, see
  ``docs/nutch-records.md``).  Counters ``converted`` and ``bad``; a record that cannot be
  read or converted is reported (file, offset or key, why) and skipped.
* **reduce** (:class:`OneRowPerUrl`): a URL found more than once (in two parts, or twice in
  one) keeps the row with the latest ``fetch_time`` (crawldb; Nutch's ``mergedb`` rule) or
  the first row in input order (linkdb); counter ``duplicates``.

:func:`import_table` runs one of them with :func:`~gossamer.engine.run_table_job`, so the
table is installed atomically under its lock, partitioned and sorted as Gossamer's tables are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlDatum, Settings
from gossamer.crawl.nutchio.seqsource import SequenceFileSource
from gossamer.engine import Input, Job, JobResult, ProgressFn, TableJobRun, TaskContext, run_table_job
from gossamer.store import (
    CRAWLDB_SCHEMA,
    LINKDB_SCHEMA,
    TIMESTAMP,
    Place,
    datums_to_batch,
    hosts_of,
    inlinks_array,
    linkdb_batch,
)
from gossamer.store.hadoop import (
    DEFAULT_REGISTRY,
    TEXT,
    HadoopFormatError,
    crawl_datum_column,
    decode_metadata,
    map_to_strings,
    to_core_datum,
    to_core_inlinks,
)

CRAWL_DATUM_CLASS = "org.apache.nutch.crawl.CrawlDatum"
MAP_WRITABLE_CLASS = "org.apache.hadoop.io.MapWritable"
INLINKS_CLASS = "org.apache.nutch.crawl.Inlinks"


def count_problems(batch: pa.RecordBatch, ctx: TaskContext) -> pa.RecordBatch:
    """Count and report the reader's problem rows of a raw batch; the good rows."""
    problems = batch.column("problem")
    if problems.null_count == len(problems):
        return batch
    bad = batch.filter(problems.is_valid())
    for message, lost in zip(bad.column("problem").to_pylist(), bad.column("lost").to_pylist(), strict=True):
        ctx.count("bad", lost)
        ctx.report(message)
    return batch.filter(problems.is_null())


def decoded(batch: pa.RecordBatch, ctx: TaskContext, expected: str) -> Iterator[tuple[str, object]]:
    """``(url, Nutch record)`` of each good raw row whose value class is ``expected``; the rest reported."""
    batch = count_problems(batch, ctx)
    if not batch.num_rows:
        return
    keys, values = batch.column("key").to_pylist(), batch.column("value").to_pylist()
    classes, files = batch.column("value_class").to_pylist(), batch.column("file").to_pylist()
    codecs: dict[str, object] = {}
    for key, value, value_class, file in zip(keys, values, classes, files, strict=True):
        try:
            if value_class != expected:
                raise HadoopFormatError(f"values of class {expected}, found {value_class}", file=file)
            codec = codecs.get(value_class) or codecs.setdefault(value_class, DEFAULT_REGISTRY.get(value_class))
            url = TEXT.deserialize(key, name=file)
            record = codec.deserialize(value, name=file)  # type: ignore[attr-defined]
        except HadoopFormatError as exc:
            ctx.count("bad")
            ctx.report(f"{exc} (record skipped)")
            continue
        yield url, record


def _buffers(column: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """``(data, offsets)`` of a ``binary`` array, offsets into ``data`` (no copy)."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    _, offsets, data = column.buffers()
    bounds = np.frombuffer(offsets, dtype=np.int32)[column.offset:column.offset + len(column) + 1]
    return np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8), bounds.astype(np.int64)


def crawldb_rows(batch: pa.RecordBatch) -> pa.RecordBatch:
    """Good raw ``Text → CrawlDatum`` rows as crawldb rows, the fixed fields decoded for all rows at once.

    Only the metadata maps are decoded one by one (``map_to_strings``, as ``to_core_datum``
    does).  Raises :class:`HadoopFormatError` when a value is not a well-formed version-7
    CrawlDatum (the caller then decodes the batch record by record and reports the bad ones).
    """
    fields = crawl_datum_column(*_buffers(batch.column("value")))
    urls = TEXT.arrow_column(*_buffers(batch.column("key")))
    map_codec = DEFAULT_REGISTRY.get(MAP_WRITABLE_CLASS)
    metadata = []
    for serialized in fields.field("metadata").to_pylist():
        strings = map_to_strings(decode_metadata(serialized, map_codec), DEFAULT_REGISTRY) if serialized else None
        metadata.append(list(strings.items()) if strings else None)
    columns = {
        "url": urls.cast(pa.string()), "status": fields.field("status"),
        "fetch_time": fields.field("fetch_time").cast(TIMESTAMP), "retries": fields.field("retries").cast(pa.int16()),
        "fetch_interval": fields.field("fetch_interval"), "score": fields.field("score"),
        "signature": fields.field("signature"), "modified_time": fields.field("modified_time").cast(TIMESTAMP),
        "metadata": pa.array(metadata, CRAWLDB_SCHEMA.field("metadata").type),
    }
    columns["host"] = hosts_of(columns["url"])
    return pa.RecordBatch.from_arrays([columns[f.name] for f in CRAWLDB_SCHEMA], schema=CRAWLDB_SCHEMA)


@dataclass(frozen=True)
class DatumMapper:
    """Raw ``Text → CrawlDatum`` records → crawldb rows (vectorised; record by record when a batch has bad ones)."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Decode, convert and yield crawldb rows; bad records counted and reported."""
        good = count_problems(batch, ctx)
        classes = good.column("value_class")
        if good.num_rows and pc.all(pc.equal(classes, CRAWL_DATUM_CLASS)).as_py():
            try:
                rows = crawldb_rows(good)
            except (HadoopFormatError, ValueError):
                pass
            else:
                ctx.count("converted", rows.num_rows)
                yield rows
                return
        yield from self._one_by_one(good, ctx)

    def _one_by_one(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        rows: list[tuple[str, CrawlDatum]] = []
        for url, record in decoded(batch, ctx, CRAWL_DATUM_CLASS):
            try:
                rows.append((url, to_core_datum(record)))  # type: ignore[arg-type]
            except (HadoopFormatError, ValueError) as exc:
                ctx.count("bad")
                ctx.report(f"{url}: cannot convert the CrawlDatum: {exc}")
        ctx.count("converted", len(rows))
        if rows:
            yield datums_to_batch(rows)


@dataclass(frozen=True)
class InlinksMapper:
    """Raw ``Text → Inlinks`` records → linkdb rows."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Decode, convert and yield linkdb rows; bad records counted and reported."""
        urls: list[str] = []
        offsets, froms, anchors = [0], [], []
        for url, record in decoded(batch, ctx, INLINKS_CLASS):
            for inlink in to_core_inlinks(record):  # type: ignore[arg-type]
                froms.append(inlink.from_url)
                anchors.append(inlink.anchor)
            urls.append(url)
            offsets.append(len(froms))
        ctx.count("converted", len(urls))
        if urls:
            yield linkdb_batch(urls, inlinks_array(offsets, froms, anchors))


@dataclass(frozen=True)
class OneRowPerUrl:
    """Reduce: one row per URL — the latest ``fetch_time`` when ``by_fetch_time``, else the first."""

    schema: pa.Schema
    by_fetch_time: bool

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield ``batch`` (sorted by url, _src, _seq) with duplicate URLs dropped."""
        table = pa.Table.from_batches([batch])
        if self.by_fetch_time:
            table = table.take(pc.sort_indices(table, [("url", "ascending"), ("fetch_time", "descending"),
                                                       ("_seq", "ascending")]))
        n = table.num_rows
        if n > 1:
            urls = table.column("url").combine_chunks()
            first = pa.concat_arrays([pa.array([True]), pc.not_equal(urls.slice(1), urls.slice(0, n - 1))])
            kept = int(pc.sum(first).as_py() or 0)
            if kept < n:
                ctx.count("duplicates", n - kept)
                table = table.filter(first)
        yield from table.select(self.schema.names).cast(self.schema).combine_chunks().to_batches()


def import_table(table_dir: Place, kind: str, files: Sequence[Place], settings: Settings,
                 progress: ProgressFn | None = None, absorbs: Sequence[str] = (),
                 split_bytes: int | None = None) -> JobResult:
    """Replace the ``kind`` (``crawldb`` or ``linkdb``) table at ``table_dir`` with the records of ``files``."""
    schema = CRAWLDB_SCHEMA if kind == "crawldb" else LINKDB_SCHEMA
    mapper = DatumMapper() if kind == "crawldb" else InlinksMapper()
    source = SequenceFileSource(tuple(files)) if split_bytes is None else SequenceFileSource(tuple(files), split_bytes)

    def build(run: TableJobRun) -> Job:
        return Job(f"import-nutch {kind}", [Input(source, mapper)], schema,
                   OneRowPerUrl(schema, kind == "crawldb"), schema, run.parts)

    result, _ = run_table_job(table_dir, kind, settings, build, progress, absorbs=absorbs)
    return result
