"""Resuming a killed fetch: what each share had finished survives in a journal, checkpoint by checkpoint.

Writing (:class:`FetchJournal`, one per share attempt, in ``<staging>/journal/<token>/``):
every batch a share hands to its part writers (crawl_fetch and, with ``fetcher.parse``,
the parse tables) is also appended to an Arrow IPC stream per table.  Every
``fetcher.checkpoint.seconds`` the sink makes a checkpoint: buffered rows are flushed as
batches, the WARC file and the table streams are flushed, then — on a thread of the sink, so
that the event loop never waits for the disk — both are synced and one JSON line — the number
of batches per stream, the WARC files written so far and the length of the last one, as they
were when the checkpoint began — is appended to ``marks.jsonl`` and synced.  That line is the
checkpoint's commit: whatever a journal holds after its last complete line is discarded.

Reading (:func:`recover_journals`, by the next fetch of the segment, under its lock):
per journal the batches its last mark covers; WARC files cut to the marked length, files
no mark covers deleted; everything else in the staging directory (unfinished Parquet parts,
spill files) deleted.  The fetch then skips the URLs the recovered crawl_fetch rows fetched
(:func:`fetched_urls`), and share ``k`` writes the rows of journals ``j ≡ k (mod P)`` into its
parts (:func:`recovered_batches`) — not into its own journal, so a row lives in exactly one
journal until the install removes the staging directory with all of them.  A journal is a
local directory: a segment on another filesystem starts over.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol

import pyarrow as pa

from gossamer.core import has_fetch_status

LOG = logging.getLogger(__name__)
JOURNALS = "journal"
MARKS = "marks.jsonl"
CONTENT = "content"


class BatchWriter(Protocol):
    """What a journal tees: a part writer taking Arrow batches."""

    def add(self, batch: pa.RecordBatch) -> None: ...

    def close(self) -> int: ...

    def abort(self) -> None: ...


@dataclass
class _Stream:
    file: BinaryIO
    writer: pa.ipc.RecordBatchStreamWriter
    batches: int = 0


class FetchJournal:
    """One share attempt's journal: table streams plus checkpoint marks (see the module docstring)."""

    def __init__(self, staging: Path, parse: bool) -> None:
        self.directory = Path(staging) / JOURNALS / uuid.uuid4().hex[:12]
        self.directory.mkdir(parents=True)
        self.parse = parse
        self._streams: dict[str, _Stream] = {}
        self._marks = open(self.directory / MARKS, "ab")  # noqa: SIM115 - closed in close()
        self.checkpoints = 0

    def tee(self, table: str, writer: BatchWriter) -> TeeWriter:
        """``writer`` with every batch it receives also journaled as ``table``."""
        return TeeWriter(self, table, writer)

    def append(self, table: str, batch: pa.RecordBatch) -> None:
        """Journal one batch of ``table`` (covered by the next checkpoint)."""
        stream = self._streams.get(table)
        if stream is None:
            file = open(self.directory / f"{table}.arrow", "wb")  # noqa: SIM115 - closed in close()
            stream = self._streams[table] = _Stream(file, pa.ipc.new_stream(file, batch.schema))
        stream.writer.write_batch(batch)
        stream.batches += 1

    def checkpoint(self, warc_files: list[str], warc_length: int) -> None:
        """Commit what was journaled so far; the WARC files it names must already be on disk."""
        self.begin_checkpoint(warc_files, warc_length)()

    def begin_checkpoint(self, warc_files: list[str], warc_length: int,
                         warc_fd: int | None = None) -> Callable[[], None]:
        """A checkpoint in two halves: this call flushes the streams to the OS; the returned call commits.

        The returned function syncs the streams as they are now (and ``warc_fd``, a descriptor of
        the open WARC file that it closes), then appends and syncs the mark: the batch counts and
        WARC length *of this moment*, so batches journaled after this call — while the commit runs
        on another thread — are covered only by a later checkpoint.  Run one commit at a time, and
        no :meth:`close` while one runs.
        """
        fds: list[int] = []
        for stream in self._streams.values():
            stream.file.flush()
            fds.append(os.dup(stream.file.fileno()))
        if warc_fd is not None:
            fds.append(warc_fd)
        mark = {"batches": {name: s.batches for name, s in self._streams.items()}, "parse": self.parse,
                "warc": warc_files, "warc_length": warc_length}

        def commit() -> None:
            try:
                for fd in fds:
                    os.fsync(fd)
            finally:
                for fd in fds:
                    os.close(fd)
            self._marks.write(json.dumps(mark).encode("utf-8") + b"\n")
            self._marks.flush()
            os.fsync(self._marks.fileno())
            self.checkpoints += 1

        return commit

    def close(self) -> None:
        """Close the files (the journal stays until the install removes the staging directory)."""
        for stream in self._streams.values():
            stream.writer.close()
            stream.file.close()
        self._streams.clear()
        self._marks.close()


class TeeWriter:
    """A part writer whose batches are journaled too; other calls go to the writer."""

    def __init__(self, journal: FetchJournal, table: str, writer: BatchWriter) -> None:
        self.journal, self.table, self.writer = journal, table, writer

    def add(self, batch: pa.RecordBatch) -> None:
        self.writer.add(batch)
        self.journal.append(self.table, batch)

    def close(self) -> int:
        return self.writer.close()

    def abort(self) -> None:
        self.writer.abort()


@dataclass
class Recovered:
    """What :func:`recover_journals` kept: journals (with their batch counts) and counts for the report."""

    journals: list[tuple[Path, dict[str, int]]] = field(default_factory=list)
    rows: int = 0
    fetched: int = 0


def _last_mark(path: Path) -> dict | None:
    """The last complete mark line of a journal (a torn last line does not count)."""
    try:
        lines = path.read_bytes().split(b"\n")[:-1]  # the part after the last newline is torn or empty
    except OSError:
        return None
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def _stream_batches(path: Path, count: int) -> Iterator[pa.RecordBatch]:
    """The first ``count`` batches of a journal stream (all complete: a mark covered them)."""
    if count <= 0:
        return
    with pa.OSFile(str(path), "rb") as file, pa.ipc.open_stream(file) as reader:
        for _ in range(count):
            yield reader.read_next_batch()


def recover_journals(staging: Path, parse: bool | None) -> Recovered:
    """Keep the checkpointed work of killed fetches in ``staging``; delete everything else there.

    Returns the usable journals.  A journal is dropped (its pages are fetched again), never
    half used, when its streams cannot be read up to its mark, when a WARC file it covers is
    missing or shorter than marked, or when it was written with another ``parse`` setting
    (inline parse tables must cover every page or none; ``None`` keeps either).
    """
    staging = Path(staging)
    recovered = Recovered()
    keep_warc: dict[str, int] = {}
    root = staging / JOURNALS
    for directory in sorted(root.iterdir()) if root.is_dir() else []:
        mark = _last_mark(directory / MARKS)
        if (mark is None or parse not in (None, mark.get("parse")) or not _warc_present(staging / CONTENT, mark)
                or not _readable(directory, mark["batches"], recovered)):
            shutil.rmtree(directory, ignore_errors=True)
            continue
        recovered.journals.append((directory, mark["batches"]))
        *closed, last = mark["warc"] or [None]
        keep_warc.update({name: -1 for name in closed})
        if last is not None:
            keep_warc[last] = mark["warc_length"]
    _prune_staging(staging, keep_warc)
    return recovered


def _warc_present(content: Path, mark: dict) -> bool:
    *closed, last = mark["warc"] or [None]
    try:
        return all((content / name).is_file() for name in closed) and (
            last is None or (content / last).stat().st_size >= mark["warc_length"])
    except OSError:
        return False


def _readable(directory: Path, batches: dict[str, int], recovered: Recovered) -> bool:
    rows = fetched = 0
    try:
        for table, count in batches.items():
            for batch in _stream_batches(directory / f"{table}.arrow", count):
                if table == "crawl_fetch":
                    rows += batch.num_rows
                    fetched += sum(1 for s in batch.column("status").to_pylist() if has_fetch_status(s))
    except (OSError, pa.ArrowException, StopIteration) as exc:
        LOG.warning("%s: fetch journal unreadable (%s); its pages are fetched again", directory, exc)
        return False
    recovered.rows += rows
    recovered.fetched += fetched
    return True


def _prune_staging(staging: Path, keep_warc: dict[str, int]) -> None:
    """Delete all but journals and the covered WARC files (cut to their marked length)."""
    for entry in staging.iterdir():
        if entry.name == JOURNALS:
            continue
        if entry.name != CONTENT or not entry.is_dir():
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
            continue
        for warc in entry.iterdir():
            length = keep_warc.get(warc.name)
            if length is None:
                warc.unlink()
            elif length >= 0:
                os.truncate(warc, length)


def fetched_urls(recovered: Recovered) -> dict[str, tuple[str, float]]:
    """URL → (host, fetch time in epoch seconds) of every page the recovered journals fetched."""
    done: dict[str, tuple[str, float]] = {}
    for directory, batches in recovered.journals:
        for batch in _stream_batches(directory / "crawl_fetch.arrow", batches.get("crawl_fetch", 0)):
            times = batch.column("fetch_time").cast(pa.timestamp("ms", tz="UTC")).cast(pa.int64()).to_pylist()
            for url, host, status, ms in zip(batch.column("url").to_pylist(), batch.column("host").to_pylist(),
                                             batch.column("status").to_pylist(), times, strict=True):
                if has_fetch_status(status):
                    done[url] = (host, (ms or 0) / 1000)
    return done


def recovered_batches(recovered: Recovered, share: int, shares: int) -> Iterator[tuple[str, pa.RecordBatch]]:
    """``(table, batch)`` of the journals share ``share`` of ``shares`` writes into its parts."""
    for number, (directory, batches) in enumerate(recovered.journals):
        if number % shares == share:
            for table, count in batches.items():
                for batch in _stream_batches(directory / f"{table}.arrow", count):
                    yield table, batch
