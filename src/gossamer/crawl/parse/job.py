"""The ``parse`` job: parse a fetched segment's content with every core (Nutch's ParseSegment).

Input: ``<segment>/content/*.warc.gz`` (the fetcher's WARC files) and the fetch
datums of ``<segment>/crawl_fetch``.  The WARC files are split into groups of
about equal size, one per task (``parser.processes``, default as many as the engine runs
at once: one per core locally, one per task slot with ``engine=spark``), run by the engine
(:func:`gossamer.engine.run_tasks`; a group whose process dies is started again, up to
``engine.task.retries`` times: it rewrites its part from scratch); task ``k`` parses
its files into part ``k`` of parse_data, parse_text and
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
import shutil
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pyarrow.compute as pc

from gossamer.core import Content, CrawlDatum, CrawlStatus, Report, Settings, page_work_gc, sample_limit
from gossamer.crawl.parse.outputs import TABLES, ParseOutputs, complete_parse_tables, finish_parse_tables
from gossamer.crawl.parse.page import PageParser
from gossamer.crawl.parse.warc_input import decoded_size_cap, read_responses
from gossamer.engine import TaskReporter, default_task_count, run_tasks, table_lock
from gossamer.store import (
    Place,
    ShareOutput,
    TableError,
    TableVersion,
    as_place,
    batch_to_datums,
    file_size,
    local_copy,
    remove_tree,
    sweep_unreported,
    table_present,
    warc_files,
)

LOG = logging.getLogger(__name__)
STAGING = ".parse-staging"
ProgressFn = Callable[[str, int, int], None]


@dataclass
class ParseReport(Report):
    """What one parse run (or one group of it) did: pages by outcome, skip reasons, sample failures, rows."""

    MERGE_MAX = ("seconds",)

    segment: str
    processes: int = 0
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
                reporter: TaskReporter) -> ParseReport:
    """Parse ``files`` into part ``index`` of the parse tables; the group's report (with the files it uploaded).

    Progress values sent through ``reporter``: pages parsed so far.
    """
    fetched = fetch_successes(segment / "crawl_fetch")
    parser = PageParser(settings)
    output = ShareOutput(segment, STAGING, settings)
    outputs = ParseOutputs(output.directory, index, settings, segment.name)
    cap = decoded_size_cap(settings)
    report = ParseReport(segment.name, sample_limit=sample_limit(settings))
    seen: set[str] = set()
    try:
        with page_work_gc():
            for path in files:
                try:
                    with local_copy(path, settings) as local:  # one download at a time for a remote segment
                        for response in read_responses(local, cap):
                            _parse_response(segment.name, response.content, fetched, seen, parser, outputs, report)
                            if report.pages % 200 == 0:
                                reporter.report(report.pages)
                except (OSError, ValueError) as exc:
                    report.not_parsed["unreadable WARC file"] += 1
                    report.add_sample(f"{path.name}: {exc}")
            report.rows = Counter(outputs.close())
        report.files = output.publish()
    except BaseException:
        outputs.abort()
        output.discard()
        raise
    finally:
        parser.close()
    reporter.report(report.pages)
    return report


def _parse_response(segment_name: str, content: Content, fetched: dict[str, CrawlDatum], seen: set[str],
                    parser: PageParser, outputs: ParseOutputs, report: ParseReport) -> None:
    url = content.url
    datum = fetched.get(url)
    if datum is None:
        report.not_parsed["not fetch_success"] += 1
        return
    if url in seen:
        report.not_parsed["duplicate response"] += 1
        return
    seen.add(url)
    content.metadata.setdefault("nutch.segment.name", segment_name)
    content.metadata["_fst_"] = str(int(CrawlStatus.FETCH_SUCCESS))
    content.metadata["_ftk_"] = str(datum.fetch_time)
    parser.pass_score_before_parsing(url, datum, content)
    page = parser.parse(url, datum, content)
    outputs.add(page)
    report.pages += 1
    report.bytes += len(content.content)
    report.by_status[page.outcome] += 1
    if page.skipped:
        report.skipped[page.skipped] += 1
    if page.failed:
        report.add_sample(f"{url}: {page.failed}")


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


class _PageTotals:
    """The driver's view of the groups' progress: pages parsed, summed over the groups."""

    def __init__(self, progress: ProgressFn | None, total: int) -> None:
        self.progress, self.total = progress, total
        self.pages: dict[int, int] = {}

    def __call__(self, index: int, pages: int) -> None:
        self.pages[index] = pages
        if self.progress is not None:
            self.progress("pages", sum(self.pages.values()), self.total)


def parse_segment(segment: Place | str, settings: Settings,
                  progress: ProgressFn | None = None) -> ParseReport:
    """Parse ``segment``, a path or URI (see the module docstring).

    ``progress(phase, done, total)`` gets page counts.  Holds the segment's lock throughout
    (like fetch: a second job on the segment waits or fails with LockedError).
    """
    segment = as_place(segment, settings)
    with table_lock(segment, settings):
        return _parse_locked(segment, settings, progress)


def _parse_locked(segment: Place, settings: Settings, progress: ProgressFn | None) -> ParseReport:
    files = check_parsable(segment)
    started = time.monotonic()
    report = ParseReport(segment.name, sample_limit=sample_limit(settings))
    for table in TABLES:  # left by an install that crashed before crawl_parse was installed
        if remove_tree(segment / table):
            report.removed.append(table)
    groups = split_files(files, default_task_count(settings, settings.get_int("parser.processes")))
    report.processes = len(groups)
    if len(groups) > 1:
        PageParser(settings)  # a configuration error is reported here, not from a child process
    total = len(fetch_successes(segment / "crawl_fetch")) if progress is not None else 0
    staging = segment / STAGING if segment.is_local else None
    if staging is not None:
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
    try:
        calls = [(segment, settings, i, group) for i, group in enumerate(groups)]
        for part in run_tasks(settings, f"parse {segment.name}", parse_group, calls,
                              progress=_PageTotals(progress, total)):
            report.merge(part)
        if staging is not None:
            finish_parse_tables(staging, segment, len(groups), partitioner="warc-files", job="parse")
        else:
            sweep_unreported(segment, TABLES, report.files)
            complete_parse_tables(segment, len(groups), partitioner="warc-files", job="parse")
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    report.seconds = time.monotonic() - started
    return report
