"""The ``parse`` job: parse a fetched segment's content with every core (Nutch's ParseSegment).

Input: ``<segment>/content/*.warc.gz`` (the fetcher's WARC files) and the fetch
datums of ``<segment>/crawl_fetch``.  The WARC files are split into groups of
about equal size, one per process (``parser.processes``, default one per core; with
``engine=spark`` one Spark task per group, default one per task slot);
process ``k`` parses its files into part ``k`` of parse_data, parse_text and
crawl_parse under ``<segment>/.parse-staging/`` — for a segment on another filesystem
(``s3://``, ``hdfs://`` …) into local scratch, uploaded under the segment when the
group is done, each WARC file read from a local download of it.  A response is parsed when its
URL's crawl_fetch datum says ``fetch_success`` (Nutch checks the same through the
content's fetch status); the first response of a URL in a group wins.  Before
parsing, the content metadata gets ``nutch.segment.name``, ``_fst_``, ``_ftk_`` and
the scoring filters' ``pass_score_before_parsing`` (the page's score), as the
fetcher would have set them.  A page that fails to parse is counted and the job
goes on; so is a WARC file that cannot be read to its end.  When every process is
done the tables are installed together: locally renamed into the segment
(:func:`~.outputs.finish_parse_tables`), elsewhere committed by their ``_SUCCESS``
files, crawl_parse last, after the files no group reported are deleted
(:func:`~gossamer.store.segment_files.sweep_unreported`).  A crash leaves the segment
as it was.  A segment that has crawl_parse is parsed already and is refused; parse
tables there without it are leftovers of a crash and are deleted first.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.compute as pc

from gossamer.core.datum import CrawlDatum
from gossamer.core.records import Content
from gossamer.core.settings import Settings
from gossamer.core.status import CrawlStatus
from gossamer.crawl.parse.outputs import TABLES, ParseOutputs, complete_parse_tables, finish_parse_tables
from gossamer.crawl.parse.page import PageParser
from gossamer.crawl.parse.warc_input import decoded_size_cap, read_responses
from gossamer.store.crawldb_schema import batch_to_datums
from gossamer.store.location import Location, local_or_remote
from gossamer.store.segment_files import (
    Place,
    ShareOutput,
    file_size,
    local_copy,
    remove_tree,
    sweep_unreported,
    table_present,
    warc_files,
)
from gossamer.store.table import TableError, TableVersion

LOG = logging.getLogger(__name__)
STAGING = ".parse-staging"
MAX_REPORTED = 20
ProgressFn = Callable[[str, int, int], None]


@dataclass
class ParseReport:
    """What one parse run did: pages by outcome, skip reasons, sample failures, rows per table."""

    segment: str
    processes: int
    seconds: float = 0.0
    pages: int = 0
    bytes: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    not_parsed: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    rows: Counter[str] = field(default_factory=Counter)
    removed: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def absorb(self, part: dict[str, Any]) -> None:
        """Add one process's counts."""
        self.pages += part["pages"]
        self.bytes += part["bytes"]
        self.by_status.update(part["by_status"])
        self.skipped.update(part["skipped"])
        self.not_parsed.update(part["not_parsed"])
        self.errors.extend(part["errors"][: max(0, MAX_REPORTED - len(self.errors))])
        self.rows.update(part["rows"])
        self.files.extend(part["files"])


def fetch_successes(crawl_fetch: Place) -> dict[str, CrawlDatum]:
    """URL → fetch datum of every ``fetch_success`` row of a crawl_fetch table."""
    found: dict[str, CrawlDatum] = {}
    with TableVersion(crawl_fetch) as version:
        for batch in version.iter_batches():
            ok = batch.filter(pc.equal(batch.column("status"), int(CrawlStatus.FETCH_SUCCESS)))
            for url, datum in batch_to_datums(ok):
                found.setdefault(url, datum)
    return found


def split_files(files: list[Place], groups: int) -> list[list[Place]]:
    """At most ``groups`` non-empty groups of about equal total size (largest files placed first)."""
    groups = max(1, min(groups, len(files)))
    bins: list[tuple[int, list[Place]]] = [(0, []) for _ in range(groups)]
    sizes = {path.name: file_size(path) for path in files}
    for path in sorted(files, key=lambda p: (-sizes[p.name], p.name)):
        index = min(range(groups), key=lambda i: bins[i][0])
        size, members = bins[index]
        members.append(path)
        bins[index] = (size + sizes[path.name], members)
    return [sorted(members, key=lambda p: p.name) for _, members in bins if members] or [[]]


def parse_group(segment: Place, settings: Settings, index: int, files: list[Place],
                updates: Any = None) -> dict[str, Any]:
    """Parse ``files`` into part ``index`` of the parse tables; returns counts and the files uploaded (picklable)."""
    fetched = fetch_successes(segment / "crawl_fetch")
    parser = PageParser(settings)
    output = ShareOutput(segment, STAGING, settings)
    outputs = ParseOutputs(output.directory, index, settings, segment.name)
    cap = decoded_size_cap(settings)
    counts: dict[str, Any] = {"pages": 0, "bytes": 0, "by_status": Counter(), "skipped": Counter(),
                              "not_parsed": Counter(), "errors": []}
    seen: set[str] = set()
    try:
        for path in files:
            try:
                with local_copy(path, settings) as local:  # one download at a time for a remote segment
                    for response in read_responses(local, cap):
                        _parse_response(segment.name, response.content, fetched, seen, parser, outputs, counts)
                        if updates is not None and counts["pages"] % 200 == 0:
                            updates.put((index, counts["pages"]))
            except (OSError, ValueError) as exc:
                counts["not_parsed"]["unreadable WARC file"] += 1
                if len(counts["errors"]) < MAX_REPORTED:
                    counts["errors"].append(f"{path.name}: {exc}")
        counts["rows"] = outputs.close()
        counts["files"] = output.publish()
    except BaseException:
        outputs.abort()
        output.discard()
        raise
    if updates is not None:
        updates.put((index, counts["pages"]))
    return counts


def _parse_response(segment_name: str, content: Content, fetched: dict[str, CrawlDatum], seen: set[str],
                    parser: PageParser, outputs: ParseOutputs, counts: dict[str, Any]) -> None:
    url = content.url
    datum = fetched.get(url)
    if datum is None:
        counts["not_parsed"]["not fetch_success"] += 1
        return
    if url in seen:
        counts["not_parsed"]["duplicate response"] += 1
        return
    seen.add(url)
    content.metadata.setdefault("nutch.segment.name", segment_name)
    content.metadata["_fst_"] = str(int(CrawlStatus.FETCH_SUCCESS))
    content.metadata["_ftk_"] = str(datum.fetch_time)
    for scorer in parser.scoring:
        try:
            scorer.pass_score_before_parsing(url, datum, content)
        except Exception as exc:  # noqa: BLE001 - Nutch logs scoring failures and goes on
            LOG.warning("%s: could not pass score before parsing: %s", url, exc)
    page = parser.parse(url, datum, content)
    outputs.add(page)
    counts["pages"] += 1
    counts["bytes"] += len(content.content)
    counts["by_status"][page.outcome] += 1
    if page.skipped:
        counts["skipped"][page.skipped] += 1
    if page.failed and len(counts["errors"]) < MAX_REPORTED:
        counts["errors"].append(f"{url}: {page.failed}")


def _child(segment: Place, settings: Settings, index: int, files: list[Place], updates: Any, results: Any) -> None:
    try:
        results.put((index, parse_group(segment, settings, index, files, updates), ""))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which fails the job
        results.put((index, None, f"{type(exc).__name__}: {exc}"))


def _run_processes(segment: Place, settings: Settings, groups: list[list[Place]], total: int,
                   progress: ProgressFn | None, report: ParseReport) -> None:
    context = multiprocessing.get_context("spawn")
    updates, results = context.Queue(), context.Queue()
    children = [context.Process(target=_child, name=f"gossamer-parse-{i}", daemon=True,
                                args=(segment, settings, i, files, updates, results))
                for i, files in enumerate(groups)]
    for child in children:
        child.start()
    done: dict[int, dict[str, Any]] = {}
    pages: dict[int, int] = {}
    try:
        while len(done) < len(children):
            try:
                index, part, error = results.get(timeout=0.25)
                if error:
                    raise RuntimeError(f"parse process {index} failed: {error}")
                done[index] = part
            except queue.Empty:
                dead = [c for i, c in enumerate(children) if i not in done and not c.is_alive()]
                if dead and results.empty():
                    raise RuntimeError(f"parse process {dead[0].name} died (exit code {dead[0].exitcode})") \
                        from None
            while True:
                try:
                    index, count = updates.get_nowait()
                except queue.Empty:
                    break
                pages[index] = count
            if progress is not None:
                progress("pages", sum(pages.values()), total)
    finally:
        for child in children:
            if child.is_alive() and len(done) < len(children):
                child.terminate()
            child.join(timeout=5)
    for index in sorted(done):
        report.absorb(done[index])


def check_parsable(segment: Place) -> list[Place]:
    """The segment's WARC files; raises TableError / ValueError when it cannot be parsed."""
    if not table_present(segment / "crawl_fetch"):
        raise TableError(f"{segment}: not fetched (no crawl_fetch)")
    TableVersion(segment / "crawl_fetch").close()
    if table_present(segment / "crawl_parse"):
        raise ValueError(f"{segment} is already parsed (crawl_parse exists)")
    if not (segment / "content").is_dir():
        raise ValueError(f"{segment} has no content to parse (fetched with fetcher.store.content=false?)")
    return warc_files(segment / "content")


class _Relay:
    """A queue-like object turning in-process counts into progress callbacks."""

    def __init__(self, progress: ProgressFn | None, total: int) -> None:
        self.progress, self.total = progress, total

    def put(self, item: tuple[int, int]) -> None:
        if self.progress is not None:
            self.progress("pages", item[1], self.total)


def _group_count(settings: Settings, spark: bool) -> int:
    """``parser.processes``, else one group per core (Spark: per task slot)."""
    wanted = settings.get_int("parser.processes")
    if wanted > 0:
        return wanted
    if spark:
        from gossamer.engine.spark import task_slots

        return task_slots(settings)
    return os.cpu_count() or 1


def parse_segment(segment: Path | Location | str, settings: Settings,
                  progress: ProgressFn | None = None) -> ParseReport:
    """Parse ``segment``, a path or URI (see the module docstring).

    ``progress(phase, done, total)`` gets page counts.
    """
    segment = local_or_remote(segment, settings)
    files = check_parsable(segment)
    started = time.monotonic()
    report = ParseReport(segment.name, 0)
    for table in TABLES:  # left by an install that crashed before crawl_parse was installed
        if remove_tree(segment / table):
            report.removed.append(table)
    spark = settings.get_str("engine") == "spark"
    groups = split_files(files, _group_count(settings, spark))
    report.processes = len(groups)
    if len(groups) > 1:
        PageParser(settings)  # a configuration error is reported here, not from a child process
    total = len(fetch_successes(segment / "crawl_fetch")) if progress is not None else 0
    staging = segment / STAGING if isinstance(segment, Path) else None
    if staging is not None:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
    try:
        if spark:
            from gossamer.engine.spark import run_tasks

            calls = [(segment, settings, i, group) for i, group in enumerate(groups)]
            for part in run_tasks(settings, f"parse {segment.name}", parse_group, calls):
                report.absorb(part)
        elif len(groups) == 1:
            report.absorb(parse_group(segment, settings, 0, groups[0], _Relay(progress, total)))
        else:
            _run_processes(segment, settings, groups, total, progress, report)
        if staging is not None:
            finish_parse_tables(staging, segment, len(groups), partitioner="warc-files", job="parse")
        else:
            assert isinstance(segment, Location)
            sweep_unreported(segment, TABLES, report.files)
            complete_parse_tables(segment, len(groups), partitioner="warc-files", job="parse")
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    report.seconds = time.monotonic() - started
    return report
