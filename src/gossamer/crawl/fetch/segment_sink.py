"""The fetch job's sink: crawl_fetch rows, WARC content and (optionally) inline parse output of one part.

:class:`SegmentSink` receives the fetch loop's results on the event loop and
keeps that cheap: datums are buffered as Python rows and turned into one Arrow
batch every :data:`FLUSH_ROWS` results, exchanges go straight to the WARC
writer (one gzip member per record), and inline parsing (``fetcher.parse``)
hands each successful page to the :class:`~gossamer.crawl.parse.PageParser`.
The part writers sort and spill full buffers in threads of their own, off the event loop.
Everything is written under a local directory (``<staging>/crawl_fetch/``,
``<staging>/content/``, the parse tables): the segment's staging directory, or a
scratch directory uploaded when the part is done for a segment on another
filesystem (:class:`~gossamer.store.segment_files.ShareOutput`).  The job installs
the tables when every part is done, so a crash never leaves a half-fetched segment
visible.

crawl_fetch receives, per fetched URL, its fetch datum, plus the ``linked``
datums of redirect targets recorded for a later round (as Nutch's Fetcher
writes them).  URLs dropped without a fetch get no row; they are counted.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa

from gossamer.core import WARC_RECORD_KEY, CrawlDatum, CrawlStatus, Settings, sample_limit
from gossamer.crawl.fetch.results import FetchResult
from gossamer.crawl.fetch.resume import FetchJournal
from gossamer.crawl.fetch.warc import WarcFileWriter
from gossamer.engine import BackgroundJob, SortedPartWriter, SpillBudget, return_free_memory
from gossamer.store import CRAWLDB_SCHEMA, datums_to_batch, part_name

FLUSH_ROWS = 2000
CRAWL_FETCH = "crawl_fetch"
CONTENT = "content"


SORT_SHARES = 2
"""A fetch process's part writers get 1 / SORT_SHARES of its ``engine.memory.budget.mb`` together
(:class:`~gossamer.engine.SpillBudget`; 128 MB by default, so runs of ~30–60 MB spill at 64 MB
buffered): its sort memory no longer depends on how many of its tables fill at once.  Each writer
had a quarter of its own before; at 5,000 hosts all four filled (docs/fetching.md, "Memory")."""


def part_memory_bytes(settings: Settings) -> int:
    """The sort memory of one fetch process's part writers together (:data:`SORT_SHARES`)."""
    total = settings.get_int("engine.memory.budget.mb") * 1024 * 1024
    return max(1 << 20, total // SORT_SHARES)


class SegmentSink:
    """Writes one fetch part: ``<staging>/crawl_fetch/part-<k>``, WARC files and parse tables.

    ``parse`` turns on inline parsing (the parse tables are written by
    :class:`~gossamer.crawl.parse.ParseOutputs` for the same part).  ``drops``
    counts URLs dropped without a fetch by reason; ``parse_status`` counts parse
    outcomes.  ``segment_name`` goes into the WARC files' ``warcinfo`` and the parse
    data (default: the name of ``staging``'s parent, the segment of a staging directory).
    Call :meth:`close` at the end (or :meth:`abort` on failure).
    """

    def __init__(self, staging: Path, part: int, settings: Settings, parse: bool, store_content: bool,
                 warc_prefix: str, segment_name: str | None = None, journal: FetchJournal | None = None) -> None:
        self.staging = staging
        self.part = part
        segment_name = staging.parent.name if segment_name is None else segment_name
        (staging / CRAWL_FETCH).mkdir(parents=True, exist_ok=True)
        self.sort_budget = SpillBudget(part_memory_bytes(settings))
        fetch_rows = SortedPartWriter(
            staging / CRAWL_FETCH / part_name(part), CRAWLDB_SCHEMA,
            row_group_rows=settings.get_int("store.row.group.rows"),
            compression=settings.get_str("store.compression"), budget=self.sort_budget)
        self.plain_writers: dict[str, SortedPartWriter] = {CRAWL_FETCH: fetch_rows}
        self.journal = journal
        self.fetch_rows = fetch_rows if journal is None else journal.tee(CRAWL_FETCH, fetch_rows)
        self.checkpoint_seconds = settings.get_float("fetcher.checkpoint.seconds")
        self._next_checkpoint = time.monotonic() + self.checkpoint_seconds
        self._syncer = BackgroundJob("fetch-checkpoint")  # commits checkpoints off the event loop
        self.warc = WarcFileWriter(staging / CONTENT, prefix=warc_prefix,
                                   info={"isPartOf": segment_name},
                                   compression_level=settings.get_int("fetcher.warc.compression.level")
                                   ) if store_content else None
        self.parser: Any = None
        self.parse_outputs: Any = None
        if parse:
            from gossamer.crawl.parse import PageParser, ParseOutputs

            self.parser = PageParser(settings)
            self.parse_outputs = ParseOutputs(staging, part, settings, segment_name,
                                              tee=None if journal is None else journal.tee, budget=self.sort_budget)
            self.plain_writers.update(self.parse_outputs.plain_writers)
        self.pending: list[tuple[str, CrawlDatum]] = []
        self.drops: Counter[str] = Counter()
        self.parse_status: Counter[str] = Counter()
        self.parse_errors: list[str] = []
        self.error_limit = sample_limit(settings)

    def result(self, result: FetchResult) -> None:
        """Record one fetched URL (datum, linked redirect targets, content, inline parse)."""
        self.pending.append((result.url, result.datum))
        self.pending.extend(result.linked)
        if self.warc is not None and result.exchange is not None:
            locator = self.warc.write_exchange(result.exchange)
            if result.content is not None:
                result.content.metadata[WARC_RECORD_KEY] = locator
        if self.parser is not None and result.content is not None and result.datum.status == CrawlStatus.FETCH_SUCCESS:
            self.parser.pass_score_before_parsing(result.url, result.datum, result.content)
            page = self.parser.parse(result.url, result.datum, result.content)
            self.parse_outputs.add(page)
            self.parse_status[page.outcome] += 1
            if page.failed and len(self.parse_errors) < self.error_limit:
                self.parse_errors.append(f"{result.url}: {page.failed}")
        if len(self.pending) >= FLUSH_ROWS:
            self.flush()
        if self.journal is not None and time.monotonic() >= self._next_checkpoint:
            self.checkpoint(background=True)

    def dropped(self, url: str, datum: CrawlDatum, reason: str, detail: str) -> None:
        """Count a URL dropped without a fetch (it stays due in the crawldb)."""
        self.drops[reason] += 1

    def flush(self) -> None:
        """Turn buffered rows into one Arrow batch for the part writer."""
        if self.pending:
            self.fetch_rows.add(datums_to_batch(self.pending))
            self.pending = []

    def absorb(self, table: str, batch: pa.RecordBatch) -> None:
        """Write rows an interrupted run checkpointed into this part (not journaled again).

        Rows of a parse table are dropped when this sink does not parse (the journal
        recovery keeps only journals written with the same parse setting).
        """
        writer = self.plain_writers.get(table)
        if writer is not None:
            writer.add(batch)

    def checkpoint(self, background: bool = False) -> None:
        """Make everything written so far survive a kill (see :mod:`gossamer.crawl.fetch.resume`).

        With ``background`` the rows and records are handed to the OS here and synced and committed
        on the sink's syncer thread, so the caller (the event loop) does not wait for the disk;
        while an earlier commit still runs it does nothing (the next call checkpoints).  Without,
        it waits for any running commit and commits this checkpoint before it returns.  An error
        of a background commit is raised by the next checkpoint.
        """
        if self.journal is None:
            return
        if background and self._syncer.busy():
            return
        self._syncer.wait()
        self.flush()
        if self.parse_outputs is not None:
            self.parse_outputs.flush()
        if not background:
            files, length = self.warc.sync() if self.warc is not None else ([], 0)
            self.journal.checkpoint(files, length)
        else:
            files, length, fd = self.warc.flush_for_sync() if self.warc is not None else ([], 0, None)
            self._syncer.submit(self.journal.begin_checkpoint(files, length, fd))
        self._next_checkpoint = time.monotonic() + self.checkpoint_seconds

    def close(self) -> dict[str, int]:
        """Finish every output of the part; returns rows written per table."""
        try:
            self.checkpoint()  # a kill while the parts are written or installed keeps the whole share
        finally:
            self._syncer.stop()
        self.flush()
        self._drop_parser()  # before the merges: its link memos are tens of MB at thousands of hosts
        rows = {CRAWL_FETCH: self.fetch_rows.close()}
        if self.warc is not None:
            self.warc.close()
            rows["warc_records"] = self.warc.records
        if self.parse_outputs is not None:
            rows.update(self.parse_outputs.close())
        self.sort_budget.close()
        if self.journal is not None:
            self.journal.close()
        return rows

    def _drop_parser(self) -> None:
        """Stop the parser and let it go, with what it remembers; its memory goes back to the system."""
        if self.parser is not None:
            self.parser.close()
            self.parser = None
            return_free_memory()  # collects the parser's cycles too

    def abort(self) -> None:
        """Drop buffered output after a failure."""
        self._syncer.discard()
        self._syncer.stop()
        self.fetch_rows.abort()
        if self.warc is not None:
            self.warc.close()
        self._drop_parser()
        if self.parse_outputs is not None:
            self.parse_outputs.abort()
        self.sort_budget.close()
        if self.journal is not None:
            self.journal.close()

