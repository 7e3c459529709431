"""``invertlinks`` / ``mergelinkdb`` / single-URL reads of the linkdb (Nutch's LinkDb, LinkDbMerger, LinkDbReader).

The linkdb maps a target URL to the links pointing at it (source URL, anchor
text); table layout and schema in :mod:`gossamer.store.linkdb_schema`.

:func:`invert_links` reads each segment's ``parse_data`` (shuffled; segments
without it are skipped and reported), inverts the outlinks of successfully
parsed pages (:class:`~gossamer.crawl.linkdb.inversion.InvertMapper`) and merges them
with the existing linkdb, streamed as a co-partitioned input and taken as it is
(not normalized or filtered again: ``mergelinkdb -normalize -filter`` does that).
Per URL the inlinks are kept in input order — existing ones first, then the
segments in the order given (by source page, then link order) — with one inlink
per source URL (a later one replaces the anchor of an earlier one in place) and at
most ``linkdb.max.inlinks``: a new source beyond the cap is dropped.  The new
version is installed atomically under the table lock, so a failed or killed job
leaves the previous linkdb as it was.

A linkdb may live on any filesystem a :class:`~gossamer.store.location.Location`
reaches (a path, ``s3://`` …, given as a string with the settings that say how to
reach it); so may the segments (a ``parse_data`` there counts once its ``_SUCCESS``
exists, see :mod:`gossamer.store.segment_files`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gossamer.core import Inlink, Report, Settings
from gossamer.crawl.linkdb.inversion import InvertMapper, LinkDbFilter, LinkDbReducer, LinkDbSettings
from gossamer.engine import Input, Job, ProgressFn, TableJobRun, TableSource, run_table_job
from gossamer.store import (
    LINKDB_SCHEMA,
    Place,
    TableError,
    TableVersion,
    as_place,
    batch_to_rows,
    live_version_dir,
    open_live,
    place_text,
    table_present,
)

KIND = "linkdb"
PARSE_DATA = "parse_data"

__all__ = ["LINKDB_SCHEMA", "InvertReport", "invert_links", "merge_linkdbs", "read_inlinks"]


@dataclass
class InvertReport(Report):
    """Counters and totals of one invertlinks (or mergelinkdb) run.

    ``done`` is false when there was nothing to do (no input with data, or every
    link ignored by the settings): then no job ran and the linkdb is unchanged.
    ``segments`` are the inputs used, ``skipped`` one message per input left out.
    Counters: ``pages``, ``pages_not_parsed``, ``links``, ``links_internal`` /
    ``links_external``, ``links_filtered``, ``inlinks`` (inverted), ``urls_unchanged``,
    ``urls_updated``, ``urls_dropped``, ``inlinks_dropped`` (over ``linkdb.max.inlinks``),
    ``segments_skipped``, ``errors``.
    """

    counters: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    total_urls: int = 0
    segments: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)
    done: bool = True


def _segment_inputs(segment_dirs: Sequence[Place], settings: Settings, normalize: bool, filter: bool,
                    report: InvertReport) -> list[Input]:
    """One shuffled input per segment with a complete parse_data; the others are noted in ``report``."""
    inputs = []
    for given in segment_dirs:
        segment = as_place(given, settings)
        name = place_text(segment)
        if not segment.is_dir():
            raise FileNotFoundError(f"no such segment directory: {name}")
        data = segment / PARSE_DATA
        if not table_present(data):
            report.skipped.append(f"{name}: no {PARSE_DATA} (not parsed yet)")
            continue
        try:
            TableVersion(data).close()
        except TableError as exc:
            report.skipped.append(f"{name}: {exc}")
            continue
        inputs.append(Input(TableSource(str(data)), InvertMapper(normalize, filter)))
        report.segments.append(name)
    report.counters["segments_skipped"] = len(report.skipped)
    return inputs


def invert_links(linkdb_dir: Place, segment_dirs: Sequence[Place], settings: Settings, normalize: bool = True,
                 filter: bool = True, progress: ProgressFn | None = None) -> InvertReport:
    """Add the outlinks of ``segment_dirs`` to the linkdb at ``linkdb_dir`` as inlinks (see the module docstring).

    Creates the linkdb when it does not exist.  Raises :class:`FileNotFoundError`
    for a segment directory that does not exist and
    :class:`~gossamer.store.LockedError` when another writer holds the linkdb.
    """
    started = time.monotonic()
    report = InvertReport()
    options = LinkDbSettings.from_settings(settings)
    seg_inputs = _segment_inputs(segment_dirs, settings, normalize, filter, report)
    if options.ignore_internal and options.ignore_external:
        report.skipped.append("every link (linkdb.ignore.internal.links and linkdb.ignore.external.links "
                              "are both true)")
        seg_inputs = []
    if not seg_inputs:
        report.done = False
        report.seconds = time.monotonic() - started
        return report

    def build(run: TableJobRun) -> Job:
        inputs: list[Input] = []
        unique: tuple[int, ...] = ()
        if run.existing is not None:
            if run.existing.description.kind != KIND:
                raise TableError(f"{linkdb_dir} holds a {run.existing.description.kind!r} table, not a linkdb")
            unique = (0,)
            inputs.append(Input(TableSource(str(run.existing.directory)), None, copartitioned=True))
        inputs.extend(seg_inputs)
        return Job("invertlinks", inputs, LINKDB_SCHEMA, LinkDbReducer(unique), LINKDB_SCHEMA, run.parts)

    return _run(linkdb_dir, settings, build, progress, report, started)


def merge_linkdbs(out_dir: Place, linkdb_dirs: Sequence[Place], settings: Settings, normalize: bool = False,
                  filter: bool = False, progress: ProgressFn | None = None) -> InvertReport:
    """Merge the live versions of ``linkdb_dirs`` into a new version of ``out_dir`` (Nutch's LinkDbMerger).

    Inlinks are merged as by :func:`invert_links`, the inputs in the order given
    (a later linkdb's anchor replaces an earlier one's for the same source).  With
    ``normalize`` / ``filter`` every target and source URL goes through the URL
    chain of scope ``linkdb``.  ``out_dir``'s own current version takes part only
    when it is listed among the inputs.  Raises :class:`~gossamer.store.TableError`
    for an input that is not a complete linkdb.
    """
    started = time.monotonic()
    report = InvertReport()
    sources = []
    for directory in linkdb_dirs:
        with open_live(as_place(directory, settings)) as version:  # TableError when there is none
            if version.description.kind != KIND:
                raise TableError(f"{directory} is a {version.description.kind!r} table, not a linkdb")
            sources.append(TableSource(str(version.directory)))
        report.segments.append(str(directory))
    mapper = LinkDbFilter(normalize, filter) if normalize or filter else None

    def build(run: TableJobRun) -> Job:
        inputs = [Input(source, mapper) for source in sources]
        unique = () if mapper is not None else tuple(range(len(inputs)))
        return Job("mergelinkdb", inputs, LINKDB_SCHEMA, LinkDbReducer(unique), LINKDB_SCHEMA, run.parts)

    return _run(out_dir, settings, build, progress, report, started)


def _run(table_dir: Place, settings: Settings, build: Callable[[TableJobRun], Job], progress: ProgressFn | None,
         report: InvertReport, started: float) -> InvertReport:
    """Run the job under the table lock, install its output, and fill in ``report``."""
    result, recovered = run_table_job(table_dir, KIND, settings, build, progress)
    report.counters.update(result.counters)
    report.errors = result.errors
    report.recovered = recovered
    report.total_urls = result.rows
    report.seconds = time.monotonic() - started
    return report


def read_inlinks(linkdb_dir: Place, url: str, limit: int | None = None) -> list[Inlink]:
    """The inlinks of ``url`` in stored order (at most ``limit``); ``[]`` when the linkdb or the URL is absent.

    Reads one row group of one part of the live version (no lock: a version being
    installed meanwhile is retried once).
    """
    rows: list[tuple[str, list[Inlink]]] = []
    for attempt in range(2):
        directory = live_version_dir(linkdb_dir)
        if directory is None:
            return []
        try:
            with TableVersion(directory) as version:
                rows = batch_to_rows(version.lookup(url))
            break
        except TableError:
            if attempt:
                return []
    inlinks = rows[0][1] if rows else []
    return inlinks if limit is None else inlinks[:max(limit, 0)]
