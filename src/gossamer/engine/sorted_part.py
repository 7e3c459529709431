"""Write one sorted Parquet part from rows that arrive in any order, in bounded memory.

:class:`SortedPartWriter` is for jobs that produce rows in arrival order (the
fetcher, the parser) but must leave parts sorted by key like every other table.
Rows are buffered up to ``memory_bytes``; a full buffer is sorted and spilled
as an Arrow IPC run next to the part; :meth:`SortedPartWriter.close` merges the
runs (the engine's vectorized k-way merge, after merging down to :data:`MERGE_FAN_IN` runs) into the part through a
:class:`~gossamer.store.table.PartWriter`.  Nothing is visible under the part's
name before ``close`` finishes: the merge writes ``<part>.tmp`` and renames it.
Rows with equal keys keep their arrival order.

With ``spill_in_thread`` a full buffer is sorted and written by a thread of the writer's own
while the caller goes on (Arrow's sort and IPC writer release the GIL): a fetch process's event
loop kept starting requests meanwhile instead of stopping for the 1–2 s a 64 MB spill takes on a
busy machine.  The hand-off is bounded: one run at a time is being written, and the buffer
spills at half of ``memory_bytes``, so the buffer being filled and the one being written stay
within ``memory_bytes`` (a synchronous spill holds the full buffer).  A run is written from the
buffer in sorted order a few ~1 MB batches at a time (:func:`~gossamer.engine.sort.write_sorted_run`):
no sorted copy of the buffer is ever held, and Arrow never concatenates its columns.  The spill
thread then hands the buffer's memory back to the system (:func:`~gossamer.engine.memory.trim_malloc`):
a fetch process of a polite crawl spills every few seconds for minutes, and the freed buffers
otherwise stayed resident as free space in malloc's heap (~60–110 MB per process by the end of a
5,000-host round).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow as pa

from gossamer.engine.api import SEQ_COLUMN, SRC_COLUMN
from gossamer.engine.background_job import BackgroundJob
from gossamer.engine.gather import gather_slices
from gossamer.engine.memory import trim_malloc
from gossamer.engine.sort import merge_sorted, read_run, reduce_fan_in, sort_order, write_sorted_run
from gossamer.engine.spill_budget import SpillBudget
from gossamer.store import PartWriter

_BATCH_ROWS = 8192
_RUN_BATCH_BYTES = 1 << 20
"""Target size of one batch of a spilled run: the merge holds one batch per run in memory, and each
merge step sorts up to one batch of every run.  Measured on 10 runs of page text (64 MB each): the
merge added 272 MB to the process with 8 MB batches, 94 MB with 1 MB batches, at no more CPU."""
_CHUNK_BYTES = 32 << 20
"""Target size of one Parquet row group (wide rows, e.g. page text, get fewer rows)."""
_MERGE_CHUNK_BYTES = 4 << 20
"""Target size of one table the merge of the runs hands to the part writer."""
MERGE_FAN_IN = 16
"""Most runs merged at once.  The merge holds about two batches per run, and each of its steps
visits every run; a fetch process of a 5,000-host polite crawl spills ~70 runs of page text, whose
one merge held ~100 MB more than the process's fetching did.  Beyond this many runs, the smallest
are merged into larger runs first (:func:`~gossamer.engine.sort.reduce_fan_in`)."""


def _write_run_then_trim(path: Path, holder: list[pa.Table], key: str, batch_rows: int) -> None:
    """Spill thread: write ``holder``'s one table as a sorted run, drop it, give the freed memory back."""
    table = holder.pop()  # the only reference: the table is freed when this function lets it go
    write_sorted_run(path, table, key, batch_rows)
    del table
    trim_malloc()


class SortedPartWriter:
    """Collects rows of ``schema`` (batches in any order); ``close`` writes ``path`` sorted by ``key``.

    ``memory_bytes`` bounds the buffered rows (spilled runs go to ``<path>.runs/``,
    removed on close or :meth:`abort`).  ``row_group_rows`` and ``compression`` are
    passed to the part writer; with wide rows a row group gets fewer rows, so that it
    stays near 32 MB.  Memory stays bounded however many runs there are: a run's
    batches are ~1 MB, the merge holds one or two per run, and it merges at most
    :data:`MERGE_FAN_IN` runs at once.  ``spill_in_thread`` spills in a
    background thread (module docstring); an error there is raised by the next :meth:`add`
    or by :meth:`close`.  With a ``budget`` (:class:`~gossamer.engine.spill_budget.SpillBudget`) the
    writer spills when the budget says so, on the budget's thread, and ``memory_bytes`` and
    ``spill_in_thread`` are not used.  Not thread-safe: one caller thread.
    """

    def __init__(self, path: Path, schema: pa.Schema, key: str = "url", memory_bytes: int = 64 << 20,
                 row_group_rows: int = 10_000, compression: str = "zstd", spill_in_thread: bool = False,
                 budget: SpillBudget | None = None) -> None:
        self.path = Path(path)
        self.schema = schema
        self.key = key
        self.memory_bytes = max(1 << 20, memory_bytes)
        self.spill_bytes = self.memory_bytes // 2 if spill_in_thread else self.memory_bytes
        """The buffer spills when it holds this much (without a budget)."""
        self._budget = budget
        if budget is not None:
            self._spiller: BackgroundJob | None = budget.spiller
            budget.join(self)
        else:
            self._spiller = BackgroundJob("sorted-part-spill") if spill_in_thread else None
        self.row_group_rows = row_group_rows
        self.compression = compression
        self.rows = 0
        self._bytes = 0
        self._internal = pa.schema([*schema, pa.field(SRC_COLUMN, pa.int32()), pa.field(SEQ_COLUMN, pa.int64())])
        self._buffer: list[pa.RecordBatch] = []
        self._buffered_bytes = 0
        self._runs: list[Path] = []
        self._run_dir = self.path.with_name(self.path.name + ".runs")

    def add(self, batch: pa.RecordBatch | pa.Table) -> None:
        """Buffer rows (cast to the schema); spills a sorted run when the buffer is full."""
        if batch.num_rows == 0:
            return
        table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
        table = table.select(self.schema.names).cast(self.schema)
        seq = pa.array(range(self.rows, self.rows + table.num_rows), pa.int64())
        table = table.append_column(SRC_COLUMN, pa.array([0] * table.num_rows, pa.int32()))
        table = table.append_column(SEQ_COLUMN, seq)
        self.rows += table.num_rows
        self._bytes += table.nbytes
        for piece in table.to_batches():
            self._buffer.append(piece)
            self._buffered_bytes += piece.nbytes
        if self._budget is not None:
            self._budget.grew()
        elif self._buffered_bytes >= self.spill_bytes:
            self._spill()

    @property
    def buffered_bytes(self) -> int:
        """Bytes of rows buffered, not yet handed to a run."""
        return self._buffered_bytes

    @property
    def spilled_runs(self) -> int:
        """Runs spilled so far (``close`` merges them)."""
        return len(self._runs)

    def spill(self) -> None:
        """Hand the buffer to the spill thread now, as the next run (what a :class:`SpillBudget` calls)."""
        if self._buffer:
            self._spill()

    def _take_buffer(self) -> pa.Table:
        """The buffered rows as one table; the buffer starts empty again."""
        table = pa.Table.from_batches(self._buffer, schema=self._internal)
        self._buffer, self._buffered_bytes = [], 0
        return table

    def _spill(self) -> None:
        """Sort the buffer and write it as the next run: here, or handed to the spill thread."""
        self._run_dir.mkdir(parents=True, exist_ok=True)
        path = self._run_dir / f"run-{len(self._runs):05d}.arrow"
        batch_rows = self._run_batch_rows()
        if self._spiller is None:
            write_sorted_run(path, self._take_buffer(), self.key, batch_rows)
        else:  # the bound: one run in the making at a time (submit waits for the one before)
            self._spiller.submit(_write_run_then_trim, path, [self._take_buffer()], self.key, batch_rows)
        self._runs.append(path)

    def _wait_spill(self) -> None:
        """Until the run being written is on disk; raises what went wrong writing it."""
        if self._spiller is not None:
            self._spiller.wait()

    def _stop_thread(self) -> None:
        if self._budget is not None:
            self._budget.leave(self)  # the budget's thread is the budget's to stop
        elif self._spiller is not None:
            self._spiller.stop()

    def _rows_for(self, target_bytes: int, most: int) -> int:
        """Rows that make about ``target_bytes`` at the average row size so far (16 … ``most``)."""
        average = self._bytes / self.rows if self.rows else 0
        return max(16, min(most, int(target_bytes / average))) if average else most

    def _run_batch_rows(self) -> int:
        """Rows per batch of a run file (~:data:`_RUN_BATCH_BYTES`; what the merge holds per run)."""
        return self._rows_for(_RUN_BATCH_BYTES, _BATCH_ROWS)

    def close(self) -> int:
        """Write the sorted part (possibly empty) and return its row count."""
        tmp = self.path.with_name(self.path.name + ".tmp")
        group_rows = self._rows_for(_CHUNK_BYTES, self.row_group_rows)
        try:
            self._wait_spill()
        except BaseException:
            self.abort()
            raise
        writer = PartWriter(tmp, self.schema, group_rows, self.compression)
        try:
            if not self._runs:
                table = self._take_buffer()
                chunks = gather_slices(table, sort_order(table, self.key).to_numpy(), group_rows)
            else:
                if self._buffer:
                    self._spill()
                    self._wait_spill()
                merge_rows = self._rows_for(_MERGE_CHUNK_BYTES, group_rows)
                self._runs = reduce_fan_in(self._runs, self._internal, self.key, MERGE_FAN_IN,
                                           self._run_batch_rows())
                chunks = merge_sorted([read_run(p) for p in self._runs], self._internal, self.key, merge_rows)
            for chunk in chunks:
                for batch in chunk.select(self.schema.names).to_batches(max_chunksize=group_rows):
                    writer.write(batch)
            writer.close()
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        finally:
            self._stop_thread()
            shutil.rmtree(self._run_dir, ignore_errors=True)
        os.replace(tmp, self.path)
        return self.rows

    def abort(self) -> None:
        """Drop everything buffered and spilled (after the run being written, if any, is done)."""
        self._buffer, self._buffered_bytes = [], 0
        if self._spiller is not None:
            self._spiller.discard()  # waits; the error does not matter any more
        self._stop_thread()
        shutil.rmtree(self._run_dir, ignore_errors=True)
