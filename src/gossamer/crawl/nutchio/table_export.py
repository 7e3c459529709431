"""Exporting the crawldb and linkdb as Nutch MapFiles, partitioned as Nutch's readers look keys up.

Two sets of engine tasks (:func:`~gossamer.engine.run_tasks`), a shuffle done by hand:

1. **scatter**, a task per Gossamer part: each row's Hadoop part is computed
   (:mod:`.hadoop_hash`, ``HashPartitioner`` on ``Text``) and the rows of each target part
   are written to ``<out>/_temporary/scatter/<part>/from-<k>.parquet``;
2. **write**, a task per Nutch part: its scattered rows are read, sorted in ``Text`` order
   (unsigned bytes of UTF-8 — Arrow's string order), converted (``from_core_datum``,
   ``from_core_inlinks``) and written as ``part-r-NNNNN/{data,index}``, uncompressed as Nutch
   writes its dbs by default.

Then ``_temporary`` is removed and ``_SUCCESS`` written.  One Nutch part is held in memory by
its write task (choose ``parts`` so a part is a few million rows at most).
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
from gossamer.engine import TaskReporter
from gossamer.store import Place, TableVersion, batch_to_datums, batch_to_rows, live_version_dir
from gossamer.store.hadoop import NONE, TEXT, MapFileWriter, from_core_datum, from_core_inlinks

VALUE_CLASSES = {"crawldb": "org.apache.nutch.crawl.CrawlDatum", "linkdb": "org.apache.nutch.crawl.Inlinks"}
SUCCESS = "_SUCCESS"


def hadoop_part_name(part: int) -> str:
    """``part-r-NNNNN``."""
    return f"part-r-{part:05d}"


def scatter_part(part_file: Place, index: int, scatter: Path, parts: int, reporter: TaskReporter) -> int:
    """Split one Gossamer part by Hadoop part into ``scatter/<part>/from-<index>.parquet``; rows read."""
    with part_file.open_binary() as stream:
        table = pq.read_table(stream)
    if not table.num_rows:
        return 0
    target = pa.array(partitions(table.column("url"), parts))
    for part in pc.unique(target).to_pylist():
        rows = table.filter(pc.equal(target, part))
        directory = scatter / str(part)
        directory.mkdir(parents=True, exist_ok=True)
        pq.write_table(rows, directory / f"from-{index:05d}.parquet", compression="lz4")
    reporter.report(table.num_rows)
    return table.num_rows


def write_part(kind: str, scatter: Path, part: int, out: Path, settings: Settings,
               reporter: TaskReporter) -> PartTally:
    """Write Nutch part ``part`` of ``kind`` from its scattered rows; the tally."""
    tally = PartTally(limit=sample_limit(settings))
    directory = scatter / str(part)
    files = sorted(directory.iterdir()) if directory.is_dir() else []
    table = pa.concat_tables([pq.read_table(f) for f in files]) if files else None
    writer = MapFileWriter(out / hadoop_part_name(part), TEXT.java_class, VALUE_CLASSES[kind], compression=NONE)
    try:
        if table is not None and table.num_rows:
            table = table.take(pc.sort_indices(table, [("url", "ascending")]))
            for batch in table.to_batches(max_chunksize=10_000):
                pairs = batch_to_datums(batch) if kind == "crawldb" else batch_to_rows(batch)
                for url, record in pairs:
                    try:
                        value = from_core_datum(record) if kind == "crawldb" else from_core_inlinks(record)
                        writer.append(url, value)
                    except (ValueError, OverflowError) as exc:
                        tally.problem(kind, f"{url}: cannot be written as a Nutch record: {exc}")
                        continue
                    tally.converted[kind] += 1
    finally:
        writer.close()
    reporter.report(tally.converted[kind])
    return tally


def export_tables(tables: list[tuple[str, Place, Path]], settings: Settings, parts: int | None = None) -> PartTally:
    """Write the live version of each ``(kind, table_dir, out)`` as ``out/current/part-r-*``; the tally."""
    scatter_calls: list[tuple[object, ...]] = []
    write_calls: list[tuple[object, ...]] = []
    scratches: list[Path] = []
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
        write_calls += [(kind, scatter, part, out / "current", settings) for part in range(count)]
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
