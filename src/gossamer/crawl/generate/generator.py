"""``generate``: pick due URLs from the crawldb into new segments (Nutch's Generator).

The crawldb is locked for the whole run.  Selection is in
:mod:`gossamer.crawl.generate.selection`; each non-empty fetch list becomes a
segment ``segments/<yyyyMMddHHmmss>/crawl_generate`` split into
``-numFetchers`` parts by ``partition.url.mode``.  With
``generate.update.crawldb`` the selected URLs get the ``_ngt_`` marker in the
crawldb too (rewritten atomically), so a second generate within
``crawl.gen.delay`` does not select them again.  Nothing due → no segment and
:attr:`GenerateReport.segments` is empty (the command exits with 1).

The crawldb may live on any filesystem a :class:`~gossamer.store.location.Location`
reaches (``s3://`` …): the candidate table is staged beside it, where every executor
of a cluster can write it (see :mod:`gossamer.crawl.generate.selection`).  So may the
segments directory: a remote segment is written in place and exists once its
``crawl_generate/_SUCCESS`` does (see :mod:`gossamer.store.segments`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import META_GENERATE_TIME, Report, Settings, now_millis
from gossamer.crawl.generate.selection import SelectOptions, select
from gossamer.engine import Input, Job, TableJobRun, TableSource, TaskContext, run_table_job, table_lock
from gossamer.store import (
    CRAWLDB_SCHEMA,
    Place,
    SegmentWriter,
    TableLock,
    as_place,
    batch_to_datums,
    datums_to_batch,
    new_segment_name,
    open_live,
    partition_key_function,
    recover,
)


@dataclass(frozen=True)
class GenerateOptions:
    """Switches of ``generate`` (Nutch's names in comments)."""

    top_n: int | None = None  # -topN
    num_fetchers: int = 1  # -numFetchers
    add_days: float = 0.0  # -adddays
    filter: bool = True  # -noFilter
    normalize: bool = True  # -noNorm
    max_num_segments: int = 1  # -maxNumSegments
    force: bool = False  # -force: take over a lock held by a dead generate


@dataclass
class GenerateReport(Report):
    """Segments created and counters."""

    segments: list[Place] = field(default_factory=list)
    selected: list[int] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def generate(crawldb: Place | str, segments_dir: Place | str, settings: Settings,
             options: GenerateOptions | None = None) -> GenerateReport:
    """Generate up to ``max_num_segments`` fetch lists from ``crawldb`` into ``segments_dir`` (each a path or URI).

    See the module docstring.  Raises :class:`~gossamer.store.TableError` without a
    crawldb and :class:`~gossamer.store.LockedError` when another writer holds it.
    """
    options = options or GenerateOptions()
    crawldb = as_place(crawldb, settings)
    segments = as_place(segments_dir, settings)
    if options.num_fetchers < 1 or options.max_num_segments < 1:
        raise ValueError("-numFetchers and -maxNumSegments must be at least 1")
    started = time.monotonic()
    now = now_millis()
    cur_time = now + int(options.add_days * 86_400_000)
    report = GenerateReport()
    open_live(crawldb).close()  # no crawldb: fail before the lock creates one
    with table_lock(crawldb, settings) as lock:
        recover(crawldb)
        with open_live(crawldb) as version:
            selection = select(crawldb, version, settings, SelectOptions(
                cur_time, options.top_n, options.max_num_segments, options.filter, options.normalize))
        report.counters = dict(selection.counters)
        key = partition_key_function(settings.get_str("partition.url.mode"),
                                     settings.get_int("partition.url.seed"))
        for rows in selection.segments:
            if not rows:
                continue
            writer = SegmentWriter(segments, new_segment_name(segments))
            try:
                writer.write_table("crawl_generate", pa.Table.from_batches([datums_to_batch(rows)]),
                                   options.num_fetchers, key, settings.get_int("store.row.group.rows"),
                                   settings.get_str("store.compression"), "crawl_generate", order="fetch")
                report.segments.append(writer.commit())
                report.selected.append(len(rows))
            except BaseException:
                writer.abort()
                raise
        if report.segments and settings.get_bool("generate.update.crawldb"):
            marked = [url for rows in selection.segments for url, _ in rows]
            _mark_generated(crawldb, settings, marked, str(cur_time), lock)
    report.seconds = time.monotonic() - started
    return report


@dataclass(frozen=True)
class MarkGenerated:
    """Map function: set ``_ngt_`` on the selected URLs, keep every other row as it is."""

    urls: tuple[str, ...]
    generate_time: str

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the batch with the selected rows' metadata updated, in the same order."""
        chosen = pc.is_in(batch.column("url"), value_set=pa.array(self.urls, pa.string()))
        if not pc.any(chosen).as_py():
            yield batch
            return
        rows = batch_to_datums(batch)
        flags = chosen.to_pylist()
        for (_, datum), flag in zip(rows, flags, strict=True):
            if flag:
                datum.metadata[META_GENERATE_TIME] = self.generate_time
        ctx.count("urls_marked", sum(flags))
        yield datums_to_batch(rows)


def _pass_through(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    yield batch.select(CRAWLDB_SCHEMA.names)


def _mark_generated(crawldb: Place, settings: Settings, urls: list[str], generate_time: str,
                    lock: TableLock) -> None:
    def build(run: TableJobRun) -> Job:
        assert run.existing is not None
        source = TableSource(str(run.existing.directory))
        return Job("generate-mark", [Input(source, MarkGenerated(tuple(urls), generate_time), copartitioned=True)],
                   CRAWLDB_SCHEMA, _pass_through, CRAWLDB_SCHEMA, run.parts)

    run_table_job(crawldb, "crawldb", settings, build, held_lock=lock)
