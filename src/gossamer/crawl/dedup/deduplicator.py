"""``dedup``: mark duplicate pages in the crawldb (Nutch's DeduplicationJob, reference §7.3).

Two steps, both under the crawldb's lock:

1. Find (:mod:`gossamer.crawl.dedup.duplicates`): among the ``db_fetched`` /
   ``db_notmodified`` rows with a non-empty signature, group by signature (plus host
   or registered domain with ``group``) and run Nutch's reducer over each group of
   two or more, with ``compare_order`` deciding which member is the duplicate.
2. Mark: when anything was found, the crawldb is rewritten as a new version by a
   job that streams every part in place and changes only the ``status`` column of
   the duplicates to ``db_duplicate`` (Arrow, no row passes through Python
   objects), then installed atomically.  A failure at any point leaves the
   previous version as it was.  With no duplicates, no new version is written.

Rows that are already ``db_duplicate`` are not candidates and stay as they are,
even when the page they duplicated is gone (as in Nutch: a later fetch and
``updatedb`` make such a row ``db_fetched`` again, and the next ``dedup`` judges it
anew).

The crawldb may live on any filesystem a :class:`~gossamer.store.location.Location`
reaches (``s3://`` …).  Both steps stage their intermediate data (the duplicate URLs
found, the per-part lists the mark job reads) inside the crawldb's directory, where
every executor of a cluster can reach them; they are removed when the run ends, and
a crash leaves them to the next writer's recovery.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import CrawlStatus, Report, Settings
from gossamer.crawl.dedup.duplicates import DEFAULT_COMPARE_ORDER, check_group, find_duplicates, parse_compare_order
from gossamer.engine import Input, Job, ProgressFn, TableJobRun, TableSource, TaskContext, run_table_job, table_lock
from gossamer.store import (
    CRAWLDB_SCHEMA,
    Place,
    as_place,
    discard,
    new_staging_dir,
    open_live,
    part_of_url,
    parts_of_urls,
    recover,
)

_DUPLICATE = pa.scalar(int(CrawlStatus.DB_DUPLICATE), pa.uint8())
_STATUS_INDEX = CRAWLDB_SCHEMA.get_field_index("status")


@dataclass
class DedupReport(Report):
    """Outcome of one dedup run.

    ``candidates``: rows taking part (db_fetched / db_notmodified with a signature);
    ``groups``: groups of two or more candidates sharing a group key;
    ``duplicates``: rows this run marked ``db_duplicate``; ``previous_duplicates``:
    rows that already were (left unchanged); ``installed``: whether a new crawldb
    version was installed (only when something was marked).
    """

    group: str = "none"
    compare_order: tuple[str, ...] = DEFAULT_COMPARE_ORDER
    candidates: int = 0
    groups: int = 0
    duplicates: int = 0
    previous_duplicates: int = 0
    total_urls: int = 0
    installed: bool = False
    seconds: float = 0.0
    recovered: list[str] = field(default_factory=list)


class _SortedStrings:
    """A sorted Arrow string array seen as a Python sequence, for :mod:`bisect` (no copy into a list)."""

    def __init__(self, array: pa.Array) -> None:
        self._array = array

    def __len__(self) -> int:
        return len(self._array)

    def __getitem__(self, index: int) -> str:
        return self._array[index].as_py()


def duplicate_list_path(directory: Place | str, part: int) -> Place:
    """The file listing part ``part``'s duplicate URLs."""
    return as_place(directory) / f"duplicates-{part:05d}.arrow"


class MarkDuplicates:
    """Reduce: every crawldb row unchanged, except ``status`` = db_duplicate for the listed URLs.

    ``dup_dir`` (a local path or a Location's URI) holds a :func:`duplicate_list_path`
    file per crawldb part with duplicates: one string column of that part's duplicate
    URLs, sorted.  A reduce batch holds rows of one part (found from its first URL's
    host), sorted by URL, so only the slice of that part's list between the batch's
    first and last URL (found by binary search) is matched against it.
    """

    def __init__(self, dup_dir: str, parts: int) -> None:
        self.dup_dir = dup_dir
        self.parts = parts
        self._loaded: tuple[int, pa.Array] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"dup_dir": self.dup_dir, "parts": self.parts, "_loaded": None}

    def _duplicates_of(self, part: int) -> pa.Array:
        if self._loaded is None or self._loaded[0] != part:
            place = duplicate_list_path(self.dup_dir, part)
            if place.is_file():
                with place.open_input() as source:
                    array = pa.ipc.open_file(source).read_all().column(0).combine_chunks()
            else:
                array = pa.array([], pa.string())
            self._loaded = (part, array)
        return self._loaded[1]

    def __call__(self, batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
        """Yield the batch's rows in the crawldb schema, duplicates marked."""
        if batch.num_rows == 0:
            return
        columns = [batch.column(name) for name in CRAWLDB_SCHEMA.names]
        urls = columns[0]
        first, last = urls[0].as_py(), urls[-1].as_py()
        duplicates = self._duplicates_of(part_of_url(first, self.parts))
        sorted_view = _SortedStrings(duplicates)
        lo = bisect.bisect_left(sorted_view, first)
        hi = bisect.bisect_right(sorted_view, last, lo)
        if hi > lo:
            mask = pc.is_in(urls, value_set=duplicates.slice(lo, hi - lo))
            ctx.count("duplicates_marked", pc.sum(mask).as_py() or 0)
            columns[_STATUS_INDEX] = pc.if_else(mask, _DUPLICATE, columns[_STATUS_INDEX])
        yield pa.RecordBatch.from_arrays(columns, schema=CRAWLDB_SCHEMA)


def write_duplicate_lists(urls: pa.Array, parts: int, directory: Place | str) -> None:
    """Write ``urls`` as one sorted list per crawldb part, in Arrow IPC files (parts without any: no file).

    ``directory`` exists (a staging directory); on an object store each file appears whole when written.
    """
    table = pa.table({"part": parts_of_urls(urls, parts), "url": urls})
    table = table.take(pc.sort_indices(table, sort_keys=[("part", "ascending"), ("url", "ascending")]))
    offset = 0
    for entry in sorted(pc.value_counts(table.column("part")).to_pylist(), key=lambda e: e["values"]):
        part, count = entry["values"], entry["counts"]
        piece = table.slice(offset, count).select(["url"])
        with duplicate_list_path(directory, part).open_output() as sink, pa.ipc.new_file(sink, piece.schema) as writer:
            writer.write_table(piece)
        offset += count


def dedup(crawldb_dir: Place | str, settings: Settings, group: str = "none",
          compare_order: Sequence[str] = DEFAULT_COMPARE_ORDER, progress: ProgressFn | None = None) -> DedupReport:
    """Mark duplicates in the crawldb at ``crawldb_dir``, a path or a URI (see the module docstring).

    ``group``: ``none``, ``host`` or ``domain``; ``compare_order``: criteria names
    (:data:`~gossamer.crawl.dedup.duplicates.CRITERIA`), which must include score,
    fetchTime and urlLength.  Raises :class:`ValueError` for a bad group or order,
    :class:`~gossamer.store.TableError` when there is no crawldb and
    :class:`~gossamer.store.LockedError` when another writer holds it.
    """
    order = parse_compare_order(compare_order)
    report = DedupReport(check_group(group), order)
    started = time.monotonic()
    crawldb_dir = as_place(crawldb_dir, settings)
    open_live(crawldb_dir).close()  # no crawldb: fail before the lock creates the directory
    with table_lock(crawldb_dir, settings) as lock:
        report.recovered = recover(crawldb_dir)
        if lock.stale is not None:
            report.recovered.insert(0, f"took over the stale lock of {lock.stale.describe()}, which is gone")
        work = new_staging_dir(crawldb_dir)  # a crash leaves it to the next writer's recover()
        try:
            with open_live(crawldb_dir) as version:
                found = find_duplicates(version, settings, report.group, order, work)
        finally:
            discard(work)
        report.candidates, report.groups = found.candidates, found.groups
        report.previous_duplicates, report.total_urls = found.previous, found.total
        if len(found.urls):
            lists: list[Place] = []

            def build(run: TableJobRun) -> Job:
                assert run.existing is not None
                lists.append(new_staging_dir(crawldb_dir))
                write_duplicate_lists(found.urls, run.parts, lists[0])
                source = TableSource(str(run.existing.directory))
                return Job("dedup", [Input(source, copartitioned=True)], CRAWLDB_SCHEMA,
                           MarkDuplicates(str(lists[0]), run.parts), CRAWLDB_SCHEMA, run.parts)

            try:
                result, _ = run_table_job(crawldb_dir, "crawldb", settings, build, progress, held_lock=lock)
            finally:
                for directory in lists:
                    discard(directory)
            report.duplicates = result.counters.get("duplicates_marked", 0)
            report.total_urls = result.rows
            report.installed = True
    report.seconds = time.monotonic() - started
    return report
