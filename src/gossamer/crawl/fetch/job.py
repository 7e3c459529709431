"""The ``fetch`` job: fetch a segment's fetch list with one polite async loop per process.

The hosts of the fetch list are split between ``P`` processes (``fetcher.processes``,
default one per core; with ``engine=spark`` ``P`` Spark tasks, default one per task slot)
by queue key (host, domain or IP), balanced by URL count
(:func:`balanced_shares`), so a host is only ever fetched by one process and
politeness holds across them; a redirect to a host another process owns is
recorded for the next round.  A politeness-free crawl (several connections per
host, no delay: :func:`shared_hosts`) instead splits every host's URLs between the
processes, each with its share of the host's connections, so big hosts keep every
core busy.
Each process streams its share of ``crawl_generate`` (hosts interleaved, see
:func:`~gossamer.store.segments.fetch_order`) through
:func:`~gossamer.crawl.fetch.fetcher.fetch_all` into a
:class:`~gossamer.crawl.fetch.segment_sink.SegmentSink` writing part ``k`` of
crawl_fetch (and of the parse tables with ``fetcher.parse``) plus its own WARC
files, all under ``<segment>/.fetch-staging/`` — or, for a segment on another
filesystem (``s3://``, ``hdfs://`` …), into local scratch uploaded under the
segment when the share is done.  When every process is done the tables are
installed (:mod:`gossamer.crawl.fetch.install`: locally renamed into the segment,
content first, crawl_fetch last; elsewhere committed by ``crawl_fetch/_SUCCESS``):
a crash leaves the segment as it was before the fetch, and the next run starts over.
Progress reaches the parent through a queue.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import queue
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gossamer.core.datum import CrawlDatum
from gossamer.core.http import agent_string
from gossamer.core.settings import Settings
from gossamer.crawl.fetch.fetcher import fetch_all
from gossamer.crawl.fetch.install import STAGING, check_fetchable, install_fetch, prepare_fetch, recent_requests
from gossamer.crawl.fetch.results import FetchSummary
from gossamer.crawl.fetch.segment_sink import CRAWL_FETCH, SegmentSink
from gossamer.store.crawldb_schema import batch_to_datums
from gossamer.store.location import Location, local_or_remote
from gossamer.store.segment_files import Place, ShareOutput
from gossamer.store.segments import partition_key_function
from gossamer.store.table import TableVersion

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class FetchOptions:
    """Switches of ``fetch``: ``threads`` (total over all processes) and ``parse`` (None: fetcher.parse)."""

    threads: int | None = None
    parse: bool | None = None
    processes: int | None = None


@dataclass
class FetchProgress:
    """Totals over all processes, for a progress display."""

    pages: int = 0
    bytes: int = 0
    errors: int = 0
    active_hosts: int = 0
    elapsed: float = 0.0


@dataclass
class FetchReport:
    """What one fetch run did: merged summary, drops, parse counts, rows per table."""

    segment: str
    processes: int
    seconds: float = 0.0
    pages: int = 0
    bytes: int = 0
    errors: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    by_protocol: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    parse_status: Counter[str] = field(default_factory=Counter)
    parse_errors: list[str] = field(default_factory=list)
    rows: Counter[str] = field(default_factory=Counter)
    files: list[str] = field(default_factory=list)
    redirects_followed: int = 0
    redirect_loops: int = 0
    stopped: list[str] = field(default_factory=list)

    def absorb(self, part: dict[str, Any]) -> None:
        """Add one process's result."""
        summary = part["summary"]
        self.pages += summary["pages"]
        self.bytes += summary["bytes"]
        self.errors += summary["errors"]
        self.by_status.update(summary["by_status"])
        self.by_protocol.update(summary["by_protocol"])
        self.dropped.update(part["drops"])
        self.redirects_followed += summary["redirects_followed"]
        self.redirect_loops += summary["redirect_loops"]
        if summary["stopped"]:
            self.stopped.append(summary["stopped"])
        self.parse_status.update(part["parse_status"])
        self.parse_errors.extend(part["parse_errors"][: max(0, 20 - len(self.parse_errors))])
        self.rows.update(part["rows"])
        self.files.extend(part["files"])


def on_spark(settings: Settings) -> bool:
    """Whether the job runs its tasks on Spark (``engine=spark``)."""
    return settings.get_str("engine") == "spark"


def process_count(settings: Settings, requested: int | None) -> int:
    """Fetch processes: ``requested``, else ``fetcher.processes``, else the cores (Spark: its task slots)."""
    count = requested if requested is not None else settings.get_int("fetcher.processes")
    if count > 0:
        return count
    if on_spark(settings):
        from gossamer.engine.spark import task_slots

        return task_slots(settings)
    return os.cpu_count() or 1


def balanced_shares(generate_dir: Place, settings: Settings, processes: int) -> dict[int, int]:
    """Queue key → fetch process, so that every process gets about as many URLs.

    The keys (hashes of host, domain or IP as ``partition.url.mode`` says) are
    counted over the fetch list and handed out largest first, each to the process
    with the fewest URLs so far (longest-processing-time scheduling).  A host thus
    stays in one process, and one big host no longer shares a process with others
    by the luck of a hash.
    """
    key = partition_key_function(settings.get_str("partition.url.mode"), settings.get_int("partition.url.seed"))
    per_key: Counter[int] = Counter()
    with TableVersion(generate_dir) as version:
        for index in range(version.parts):
            for batch in version.iter_part(index, 65536, columns=["url", "host"]):
                hosts = batch.column("host").to_pylist()
                urls = batch.column("url")
                first = dict(zip(reversed(hosts), range(len(hosts) - 1, -1, -1), strict=True))
                for host, count in Counter(hosts).items():
                    per_key[key(urls[first[host]].as_py())] += count
    loads = [0] * processes
    shares: dict[int, int] = {}
    for queue_key, count in sorted(per_key.items(), key=lambda kv: (-kv[1], kv[0])):
        target = min(range(processes), key=loads.__getitem__)
        shares[queue_key] = target
        loads[target] += count
    return shares


def shared_hosts(settings: Settings, processes: int) -> bool:
    """Whether every process may fetch from every host: a politeness-free crawl.

    That is several connections per host (``fetcher.threads.per.queue`` ≥ the
    number of processes) with no delay between them (``fetcher.server.min.delay``
    = 0, the delay that applies with more than one connection per queue).  Each
    process then opens ``threads.per.queue // processes`` connections per host, so
    a host never gets more at once than the settings allow, and a robots
    Crawl-delay is multiplied by the number of processes.
    """
    per_queue = settings.get_int("fetcher.threads.per.queue")
    return processes > 1 and per_queue >= processes and settings.get_float("fetcher.server.min.delay") <= 0


def share_of(settings: Settings, processes: int, index: int,
             shares: dict[int, int] | None = None, shared: bool = False) -> Callable[[str], bool]:
    """A predicate telling whether a URL is fetched by process ``index``.

    Normally by its host (domain, IP): ``shares`` (from :func:`balanced_shares`)
    decides for the keys it holds; other keys (redirect targets on hosts not in the
    fetch list) go by ``key % processes``.  With ``shared`` (see :func:`shared_hosts`)
    by a hash of the whole URL, so every process gets part of every host.
    """
    if shared:
        return lambda url: zlib.crc32(url.encode("utf-8")) % processes == index
    key = partition_key_function(settings.get_str("partition.url.mode"), settings.get_int("partition.url.seed"))
    table = shares or {}

    def owns(url: str) -> bool:
        queue_key = key(url)
        return table.get(queue_key, queue_key % processes) == index

    return owns


def fetch_list(generate_dir: Place, owns: Callable[[str], bool], batch_rows: int = 4096
               ) -> Iterator[tuple[str, CrawlDatum]]:
    """Stream this process's share of the fetch list, part by part, in file order."""
    with TableVersion(generate_dir) as version:
        for index in range(version.parts):
            for batch in version.iter_part(index, batch_rows):
                for url, datum in batch_to_datums(batch):
                    if owns(url):
                        yield url, datum


def _fetch_share(segment: Place, settings: Settings, processes: int, index: int, threads: int, parse: bool,
                 updates: Any, shares: dict[int, int] | None = None,
                 recent: dict[str, float] | None = None) -> dict[str, Any]:
    """Run one process's fetch loop into part ``index``; returns its counts and the files it uploaded (picklable)."""
    output = ShareOutput(segment, STAGING, settings)
    shared = shared_hosts(settings, processes)
    owns = share_of(settings, processes, index, shares, shared)
    # engine.memory.budget.mb is the job's: each process's sorted-part writers get their share of it
    values: list[tuple[str, object]] = [
        ("fetcher.threads.fetch", threads),
        ("engine.memory.budget.mb", max(16, settings.get_int("engine.memory.budget.mb") // processes))]
    if shared:
        values.append(("fetcher.threads.per.queue", settings.get_int("fetcher.threads.per.queue") // processes))
    per_process = settings.with_values(values, "fetch job (share of one process)")
    try:
        sink = SegmentSink(output.directory, index, per_process, parse, settings.get_bool("fetcher.store.content"),
                           f"{segment.name}-{index:05d}{output.suffix}", segment.name)
    except BaseException:
        output.discard()
        raise

    def report(summary: FetchSummary, active: int) -> None:
        if updates is not None:
            updates.put((index, summary.pages, summary.bytes, summary.errors, active))

    try:
        summary = asyncio.run(fetch_all(fetch_list(segment / "crawl_generate", owns), per_process, sink,
                                        progress=report, owns=owns, monitor_interval=0.5,
                                        sharers=processes if shared else 1,
                                        recent={u: t for u, t in (recent or {}).items() if owns(u)}))
        rows = sink.close()
        files = output.publish()
    except BaseException:
        sink.abort()
        output.discard()
        raise
    report(summary, 0)
    return {"summary": summary.to_dict(), "drops": dict(sink.drops), "parse_status": dict(sink.parse_status),
            "parse_errors": sink.parse_errors, "rows": rows, "files": files}


def _child(segment: Place, settings: Settings, processes: int, index: int, threads: int, parse: bool,
           updates: Any, results: Any, shares: dict[int, int], recent: dict[str, float]) -> None:
    try:
        results.put((index, _fetch_share(segment, settings, processes, index, threads, parse, updates, shares,
                                         recent), ""))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which fails the job
        results.put((index, None, f"{type(exc).__name__}: {exc}"))


def _shares(segment: Place, settings: Settings, processes: int) -> dict[int, int]:
    if shared_hosts(settings, processes):
        return {}
    return balanced_shares(segment / "crawl_generate", settings, processes)


def _run_spark_tasks(segment: Place, settings: Settings, processes: int, threads: int, parse: bool,
                     progress: Callable[[FetchProgress], None] | None, report: FetchReport) -> None:
    """One Spark task per share: each runs the same asyncio fetch loop over whole hosts."""
    from gossamer.engine.spark import run_tasks

    recent, shares = recent_requests(segment, settings), _shares(segment, settings, processes)
    started = time.monotonic()
    calls = [(segment, settings, processes, i, threads, parse, None, shares, recent) for i in range(processes)]
    for part in run_tasks(settings, f"fetch {segment.name}", _fetch_share, calls):
        report.absorb(part)
    if progress is not None:
        progress(FetchProgress(report.pages, report.bytes, report.errors, 0, time.monotonic() - started))


def _run_processes(segment: Place, settings: Settings, processes: int, threads: int, parse: bool,
                   progress: Callable[[FetchProgress], None] | None, report: FetchReport) -> None:
    context = multiprocessing.get_context("spawn")
    updates, results = context.Queue(), context.Queue()
    recent, shares = recent_requests(segment, settings), _shares(segment, settings, processes)
    children = [context.Process(target=_child, name=f"gossamer-fetch-{i}", daemon=True,
                                args=(segment, settings, processes, i, threads, parse, updates, results, shares,
                                      recent))
                for i in range(processes)]
    for child in children:
        child.start()
    latest: dict[int, tuple[int, int, int, int]] = {}
    done: dict[int, dict[str, Any]] = {}
    started = time.monotonic()
    try:
        while len(done) < processes:
            try:
                index, part, error = results.get(timeout=0.25)
                if error:
                    raise RuntimeError(f"fetch process {index} failed: {error}")
                done[index] = part
            except queue.Empty:
                dead = [c for i, c in enumerate(children) if i not in done and not c.is_alive()]
                if dead and results.empty():
                    raise RuntimeError(f"fetch process {dead[0].name} died (exit code {dead[0].exitcode})") \
                        from None
            while True:
                try:
                    index, *counts = updates.get_nowait()
                except queue.Empty:
                    break
                latest[index] = tuple(counts)  # type: ignore[assignment]
            if progress is not None:
                totals = [sum(v[i] for v in latest.values()) for i in range(4)]
                progress(FetchProgress(*totals, elapsed=time.monotonic() - started))
    finally:
        for child in children:
            if child.is_alive() and len(done) < processes:
                child.terminate()
            child.join(timeout=5)
    for index in sorted(done):
        report.absorb(done[index])


def fetch_segment(segment: Path | Location | str, settings: Settings, options: FetchOptions | None = None,
                  progress: Callable[[FetchProgress], None] | None = None) -> FetchReport:
    """Fetch ``segment``, a path or URI (see the module docstring).

    Raises ValueError / TableError for unusable input.
    """
    options = options or FetchOptions()
    segment = local_or_remote(segment, settings)
    agent_string(settings)  # http.agent.name must be set: fail before starting processes
    parse = settings.get_bool("fetcher.parse") if options.parse is None else options.parse
    check_fetchable(segment, parse)
    prepare_fetch(segment)  # what a crashed run left
    processes = process_count(settings, options.processes)
    total_threads = options.threads or settings.get_int("fetcher.threads.fetch")
    threads = max(1, -(-total_threads // processes))
    report = FetchReport(segment.name, processes)
    started = time.monotonic()
    if on_spark(settings):
        _run_spark_tasks(segment, settings, processes, threads, parse, progress, report)
    elif processes == 1:
        def local_progress(summary: FetchSummary, active: int) -> None:
            if progress is not None:
                progress(FetchProgress(summary.pages, summary.bytes, summary.errors, active, summary.elapsed))

        report.absorb(_fetch_share(segment, settings, 1, 0, threads, parse, _Relay(local_progress),
                                   recent=recent_requests(segment, settings)))
    else:
        _run_processes(segment, settings, processes, threads, parse, progress, report)
    install_fetch(segment, processes, parse, report.rows[CRAWL_FETCH], report.files)
    report.seconds = time.monotonic() - started
    return report


class _Relay:
    """A queue-like object that forwards in-process progress tuples to a callback."""

    def __init__(self, callback: Callable[[FetchSummary, int], None]) -> None:
        self.callback = callback
        self.started = time.monotonic()

    def put(self, item: tuple[int, int, int, int, int]) -> None:
        _, pages, size, errors, active = item
        summary = FetchSummary(pages=pages, bytes=size, errors=errors, elapsed=time.monotonic() - self.started)
        self.callback(summary, active)
