"""Exporting the crawldb and linkdb as Nutch MapFiles, partitioned as Nutch's readers look keys up.

Two sets of engine tasks (:func:`~gossamer.engine.run_tasks`), a shuffle done by hand:

1. **scatter**, a task per Gossamer part: each row's Hadoop part is computed
   (:mod:`.hadoop_hash`, ``HashPartitioner`` on ``Text``) and the rows of each target part
   are written to ``<out>/_temporary/scatter/<part>/from-<k>.parquet``, a batch at a time;
2. **write**, a task per Nutch part: its scattered rows are sorted in ``Text`` order
   (unsigned bytes of UTF-8 — Arrow's string order) by the engine's external sort
   (:class:`~gossamer.engine.SortedPartWriter`, spilling under the memory budget), converted
   (``from_core_datum``, ``from_core_inlinks``) and streamed into ``part-r-NNNNN/{data,index}``,
   uncompressed as Nutch writes its dbs by default.

Then ``_temporary`` is removed and ``_SUCCESS`` written.  Memory is bounded by the budget, not
by the size of a part.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from gossamer.core import Settings, sample_limit
from gossamer.crawl.nutchio.grouped import run_grouped
from gossamer.crawl.nutchio.hadoop_hash import partitions
from gossamer.crawl.nutchio.segment_rows import PartTally
from gossamer.engine import SortedPartWriter, TaskReporter, default_task_count
from gossamer.store import Place, TableVersion, batch_to_datums, batch_to_rows, live_version_dir
from gossamer.store.hadoop import NONE, TEXT, MapFileWriter, from_core_datum, from_core_inlinks

VALUE_CLASSES = {"crawldb": "org.apache.nutch.crawl.CrawlDatum", "linkdb": "org.apache.nutch.crawl.Inlinks"}
SUCCESS = "_SUCCESS"
SCATTER_BATCH_ROWS = 65_536


def hadoop_part_name(part: int) -> str:
    """``part-r-NNNNN``."""
    return f"part-r-{part:05d}"


def scatter_part(part_file: Place, index: int, scatter: Path, parts: int, reporter: TaskReporter) -> int:
    """Split one Gossamer part by Hadoop part into ``scatter/<part>/from-<index>.parquet``; rows read.

    Streams the part a row group at a time, one open writer per target part: memory is one
    batch, however large the part.
    """
    writers: dict[int, pq.ParquetWriter] = {}
    rows = 0
    try:
        with part_file.open_binary() as stream:
            reader = pq.ParquetFile(stream)
            for batch in reader.iter_batches(batch_size=SCATTER_BATCH_ROWS):
                target = pa.array(partitions(batch.column("url"), parts))
                for part in pc.unique(target).to_pylist():
                    writer = writers.get(part)
                    if writer is None:
                        directory = scatter / str(part)
                        directory.mkdir(parents=True, exist_ok=True)
                        writer = writers[part] = pq.ParquetWriter(directory / f"from-{index:05d}.parquet",
                                                                  batch.schema, compression="lz4")
                    writer.write_batch(batch.filter(pc.equal(target, part)))
                rows += batch.num_rows
                reporter.report(rows)
    finally:
        for writer in writers.values():
            writer.close()
    return rows


def write_part(kind: str, scatter: Path, part: int, out: Path, settings: Settings, memory_bytes: int,
               reporter: TaskReporter) -> PartTally:
    """Write Nutch part ``part`` of ``kind`` from its scattered rows; the tally.

    The rows are sorted by URL (Text order) with the engine's external sort buffering at most
    ``memory_bytes`` (this task's share of ``engine.memory.budget.mb``), then streamed into the
    MapFile: memory stays bounded whatever the size of the part.
    """
    tally = PartTally(limit=sample_limit(settings))
    directory = scatter / str(part)
    files = sorted(directory.glob("from-*.parquet")) if directory.is_dir() else []
    sorted_path = directory / "sorted.parquet"
    schema = pq.read_schema(files[0]) if files else None
    if schema is not None:
        sorter = SortedPartWriter(sorted_path, schema, key="url", memory_bytes=memory_bytes, compression="lz4")
        for file in files:
            for batch in pq.ParquetFile(file).iter_batches(batch_size=SCATTER_BATCH_ROWS):
                sorter.add(batch)
            file.unlink()
        sorter.close()
    writer = MapFileWriter(out / hadoop_part_name(part), TEXT.java_class, VALUE_CLASSES[kind], compression=NONE)
    try:
        if schema is not None:
            for batch in pq.ParquetFile(sorted_path).iter_batches(batch_size=10_000):
                _append(kind, batch, writer, tally)
    finally:
        writer.close()
    reporter.report(tally.converted[kind])
    return tally


def _append(kind: str, batch: pa.RecordBatch, writer: MapFileWriter, tally: PartTally) -> None:
    pairs = batch_to_datums(batch) if kind == "crawldb" else batch_to_rows(batch)
    for url, record in pairs:
        try:
            value = from_core_datum(record) if kind == "crawldb" else from_core_inlinks(record)
            writer.append(url, value)
        except (ValueError, OverflowError) as exc:
            tally.problem(kind, f"{url}: cannot be written as a Nutch record: {exc}")
            continue
        tally.converted[kind] += 1


def export_tables(tables: list[tuple[str, Place, Path]], settings: Settings, parts: int | None = None) -> PartTally:
    """Write the live version of each ``(kind, table_dir, out)`` as ``out/current/part-r-*``; the tally."""
    scatter_calls: list[tuple[object, ...]] = []
    write_calls: list[tuple[object, ...]] = []
    scratches: list[Path] = []
    at_once = default_task_count(settings, 0)  # write tasks running at once share the memory budget
    for kind, table_dir, out in tables:
        live = live_version_dir(table_dir)
        if live is None:
            raise ValueError(f"{table_dir.display()}: no {kind} to export")
        with TableVersion(live) as version:
            part_files = version.part_paths()
            count = parts or version.parts
        shutil.rmtree(out, ignore_errors=True)
        (out / "current").mkdir(parents=True)
        scatter = out / "_temporary" / "scatter"
        scatter.mkdir(parents=True)
        scratches.append(out / "_temporary")
        scatter_calls += [(file, i, scatter, count) for i, file in enumerate(part_files)]
        share = settings.get_int("engine.memory.budget.mb") * (1 << 20) // max(1, min(count, at_once))
        write_calls += [(kind, scatter, part, out / "current", settings, share) for part in range(count)]
    tally = PartTally(limit=sample_limit(settings))
    try:
        run_grouped(settings, "export-nutch scatter", scatter_part, scatter_calls)
        for result in run_grouped(settings, "export-nutch write", write_part, write_calls):
            tally.merge(result)
    finally:
        for scratch in scratches:
            shutil.rmtree(scratch, ignore_errors=True)
    for _, _, out in tables:
        (out / "current" / SUCCESS).write_bytes(b"")
    return tally
