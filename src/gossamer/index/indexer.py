"""``index`` and ``clean``: drive the index writers with the actions of the index job.

``index`` opens every active IndexWriter (the built-in one takes the index
lock first, so two index runs never interleave), runs the engine job of
:mod:`gossamer.index.job` into a temporary table beside the index, feeds its
actions to the writers in part order and commits them.  Any failure closes the
writers without committing: the live index stays as it was.

The index, the crawldb, the linkdb and the segments may each be a local path or
a :class:`~gossamer.store.location.Location` (``s3://``, ``hdfs://`` …).  The
job's temporary table lives inside the index's own store (a ``tmp-*`` directory,
or a ``v-*`` prefix that ``CURRENT`` does not name): on a cluster the executors
write it, so it must be where they can reach; it is removed when the run ends,
and a crash leaves it to the next writer's recovery.

``clean`` deletes from the index every URL the crawldb marks gone or duplicate
(Nutch's CleaningJob).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlStatus, Report, Settings, page_work_gc
from gossamer.engine import ProgressFn, run_job
from gossamer.index.analysis import Analysis
from gossamer.index.cjk import is_cjk_field
from gossamer.index.documents import IndexOptions, JsonDocument
from gossamer.index.job import ACTION_ADD, actions_job, index_inputs, inlink_sources_read
from gossamer.index.schema import merge_fields
from gossamer.index.store import IndexDescription, live_index
from gossamer.plugins import IndexField, IndexingFilter, IndexWriter, PluginRepository
from gossamer.store import (
    ARROW_SUFFIX,
    Place,
    TableError,
    TableVersion,
    as_place,
    discard,
    iter_arrow_part,
    live_version_dir,
    new_staging_dir,
    part_name,
)

CLEAN_STATUSES = (CrawlStatus.DB_GONE, CrawlStatus.DB_DUPLICATE)
STAGING_FORMAT = "arrow"
"""The job's actions are staged as uncompressed Arrow files, read back once by the feeding loop
(:mod:`gossamer.store.arrow_parts`): no zstd on either side (−0.5 to −0.7 s of CPU for the doc web)."""


@dataclass
class IndexReport(Report):
    """What an index or clean run did."""

    counters: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def added(self) -> int:
        """Documents added or replaced."""
        return self.counters.get("docs_added", 0)

    @property
    def deleted(self) -> int:
        """Delete actions sent."""
        return self.counters.get("docs_deleted", 0)


def index_fields(repo: PluginRepository) -> tuple[IndexField, ...]:
    """The index schema under the current settings: core fields + every active filter's fields + shadow fields."""
    declared = [f for flt in repo.chain(IndexingFilter) for f in flt.fields]
    return merge_fields([*declared, *Analysis(repo.settings).shadow_fields(declared)])


def settings_for_index(index_dir: Place, settings: Settings, notes: list[str]) -> Settings:
    """``settings``, less the CJK shadow fields when ``index_dir``'s live index was built without them.

    An index written before the CJK shadow fields existed (or with ``index.cjk.fields`` empty) keeps its fields
    when a later run extends it: a new field would make the writer refuse the index (its documents would lack
    it). A note says how to get them: index into a new directory.
    """
    live = live_index(index_dir) if settings.get_list("index.cjk.fields") else None
    if live is None or any(is_cjk_field(f.name) for f in IndexDescription.read(live).fields):
        return settings
    notes.append(f"{index_dir}: the index has no CJK shadow fields (index.cjk.fields), so this run adds none; "
                 "index into a new directory to have Chinese and Japanese pages found by their words")
    return settings.with_values([("index.cjk.fields", [])], "index")


def _open_writers(repo: PluginRepository, index_dir: Place) -> list[IndexWriter]:
    writers: list[IndexWriter] = repo.chain(IndexWriter)
    if not writers:
        raise ValueError("no index writer is active (plugin.includes must match one, e.g. indexer-tantivy)")
    fields = index_fields(repo)
    opened: list[IndexWriter] = []
    try:
        for writer in writers:
            writer.open(str(index_dir), fields)
            opened.append(writer)
    except BaseException:
        for writer in opened:
            writer.close()
        raise
    return opened


def _run_writers(repo: PluginRepository, index_dir: Place, report: IndexReport,
                 feed: Callable[[list[IndexWriter]], None]) -> None:
    writers = _open_writers(repo, index_dir)
    try:
        feed(writers)
        for writer in writers:
            writer.commit()
    finally:
        for writer in writers:
            writer.close()
            report.notes.extend(getattr(writer, "notes", ()))


def _live(table_dir: Place | None) -> TableVersion | None:
    if table_dir is None:
        return None
    live = live_version_dir(table_dir)
    return TableVersion(live) if live is not None else None


def _graph_nodes(crawldb: Place | None, settings: Settings) -> TableVersion | None:
    """The nodes table of the crawl's web graph when ``index.static.rank=linkrank`` (TableError when absent)."""
    if settings.get_str("index.static.rank") != "linkrank":
        return None
    if crawldb is None:
        raise TableError("index.static.rank=linkrank needs the crawldb (its crawl's webgraph/ holds the scores)")
    graph = as_place(crawldb, settings).parent / "webgraph"
    nodes = _live(graph / "nodes")
    if nodes is None:
        raise TableError(f"index.static.rank=linkrank: no web graph at {graph}: run gossamer webgraph and "
                         "gossamer linkrank first")
    return nodes


def index(index_dir: Place | str, crawldb: Place | None, linkdb: Place | None, segments: list[Path] | list[Place],
          settings: Settings, options: IndexOptions | None = None, progress: ProgressFn | None = None) -> IndexReport:
    """Index ``segments`` into ``index_dir`` (see the module docstring)."""
    options = options or IndexOptions()
    index_dir = as_place(index_dir, settings)
    started = time.monotonic()
    report = IndexReport()
    settings = settings_for_index(index_dir, settings, report.notes)
    db = _live(crawldb)
    if crawldb is not None and db is None:
        raise TableError(f"no crawldb at {crawldb}")
    links = _live(linkdb)
    if linkdb is not None and links is None:
        report.notes.append(f"no linkdb at {linkdb}: documents get no anchor texts")
    parts = settings.get_int("store.parts")
    nodes = _graph_nodes(crawldb, settings)
    repo = PluginRepository(settings)
    inputs, notes = index_inputs(db, links, segments, nodes, inlink_sources=inlink_sources_read(repo))
    report.notes.extend(notes)
    if len(inputs) == (db is not None) + (links is not None) + (nodes is not None):
        raise ValueError("none of the segments has fetched and parsed data to index")

    def feed(writers: list[IndexWriter]) -> None:
        staging = new_staging_dir(index_dir)
        fed = 0
        lock = threading.Lock()  # a cluster engine reports progress from its own thread

        def send(upto: int, finished: bool) -> None:
            """Hand parts ``fed`` … ``upto - 1`` to the writers, in part order.

            While the job runs (``finished=False``) stop at the first part not written yet: the local engine
            reports a prefix of parts, but a cluster engine counts finished reduce tasks (Spark's stage
            progress), so part ``i`` may still run when ``i + 1`` is done.  Once the job has finished, a
            part without a file has no actions.
            """
            nonlocal fed
            with lock:
                while fed < upto:
                    if not finished and not _part_written(staging, fed):
                        return
                    for url, action, doc, vector in _read_actions(staging, fed):
                        for writer in writers:
                            if action == ACTION_ADD:
                                writer.write(JsonDocument(url, doc, vector))
                            else:
                                writer.delete(url)
                    fed += 1

        def on_progress(phase: str, done: int, total: int) -> None:
            # index the parts written so far while the others are still being reduced
            if progress is not None:
                progress(phase, done, total)
            if phase == "reduce":
                send(done, finished=False)

        try:
            with page_work_gc():  # a document object per action, dying young (see core.page_work_gc)
                result = run_job(actions_job(inputs, options, parts, STAGING_FORMAT), staging, settings,
                                 on_progress)
                report.counters.update(result.counters)
                report.errors.extend(result.errors)
                send(parts, finished=True)
        finally:
            discard(staging)
            for version in (db, links):
                if version is not None:
                    version.close()

    _run_writers(repo, index_dir, report, feed)
    report.seconds = time.monotonic() - started
    return report


def _part_written(directory: Place, part: int) -> bool:
    """Whether part ``part`` of the job's output is complete.

    A part is written under a temporary name and renamed; an object store's object appears when its upload completes.
    """
    return (as_place(directory) / part_name(part, ARROW_SUFFIX)).is_file()


def _read_actions(directory: Place, part: int) -> Iterator[tuple[str, int, str, np.ndarray | None]]:
    """The actions of one part of the job's output (none when the part is missing), page vectors as float16."""
    path = as_place(directory) / part_name(part, ARROW_SUFFIX)
    if path.is_file():
        for batch in iter_arrow_part(path, 256):
            vectors = [None if v is None else np.frombuffer(v, np.float16)
                       for v in batch.column("vector").to_pylist()] \
                if batch.column("vector").null_count < batch.num_rows else [None] * batch.num_rows
            yield from zip(batch.column("url").to_pylist(), batch.column("action").to_pylist(),
                           batch.column("doc").to_numpy(zero_copy_only=False), vectors, strict=True)


def clean(index_dir: Place | str, crawldb: Place, settings: Settings) -> IndexReport:
    """Delete from the index every URL whose crawldb status is gone or duplicate."""
    started = time.monotonic()
    index_dir = as_place(index_dir, settings)
    report = IndexReport()
    settings = settings_for_index(index_dir, settings, report.notes)
    db = _live(crawldb)
    if db is None:
        raise TableError(f"no crawldb at {crawldb}")
    statuses = pa.array([int(s) for s in CLEAN_STATUSES], pa.uint8())

    def feed(writers: list[IndexWriter]) -> None:
        try:
            for i in range(db.parts):
                for batch in db.iter_part(i, 65536):
                    urls = batch.column("url").filter(pc.is_in(batch.column("status"), value_set=statuses))
                    for url in urls.to_pylist():
                        report.counters["docs_deleted"] = report.counters.get("docs_deleted", 0) + 1
                        for writer in writers:
                            writer.delete(url)
        finally:
            db.close()

    _run_writers(PluginRepository(settings), index_dir, report, feed)
    report.seconds = time.monotonic() - started
    return report
