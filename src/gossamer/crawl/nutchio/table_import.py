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

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlDatum, Settings
from gossamer.crawl.nutchio.seqsource import SequenceFileSource
from gossamer.engine import Input, Job, JobResult, ProgressFn, TableJobRun, TaskContext, run_table_job
from gossamer.store import CRAWLDB_SCHEMA, LINKDB_SCHEMA, Place, datums_to_batch, inlinks_array, linkdb_batch
from gossamer.store.hadoop import DEFAULT_REGISTRY, TEXT, HadoopFormatError, to_core_datum, to_core_inlinks

CRAWL_DATUM_CLASS = "org.apache.nutch.crawl.CrawlDatum"
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


@dataclass(frozen=True)
class DatumMapper:
    """Raw ``Text → CrawlDatum`` records → crawldb rows."""

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Decode, convert and yield crawldb rows; bad records counted and reported."""
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
