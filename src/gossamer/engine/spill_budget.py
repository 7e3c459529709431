"""One memory bound for the buffers of several sorted-part writers of one caller.

A fetch process writes four sorted parts at once (crawl_fetch, parse_data, parse_text,
crawl_parse).  With a bound per writer, the process's sort memory is the sum of four
sawtooths, and how many of them fill at a time depends on the crawl: a crawl of 5,000 small
hosts fills all four, one of 1,000 only the page text, so the fetch processes' memory grew with
the number of hosts although every bound held.  A :class:`SpillBudget` bounds them together:

* each writer created with ``budget=`` reports what it buffers; when the writers' buffers
  together reach :attr:`SpillBudget.spill_bytes` (half of ``memory_bytes``), the writer holding
  the most spills, so a table that fills slowly is not cut into many small runs;
* runs are written by the budget's one spill thread, one run at a time (a new spill waits for
  the run before), so what is buffered plus what is being written stays within
  ``memory_bytes`` (give or take the batch that crossed the line), however many writers share it.

The contract for callers: one caller thread adds to all the budget's writers (as for a single
writer); an error while writing any writer's run is raised by the next ``add`` or ``close`` of
any of them; :meth:`SpillBudget.close` ends the spill thread once every writer is closed or
aborted.
"""

from __future__ import annotations

from typing import Protocol

from gossamer.engine.background_job import BackgroundJob


class BudgetedWriter(Protocol):
    """What the budget needs of a writer: its buffered bytes, and a way to spill them."""

    @property
    def buffered_bytes(self) -> int:
        """Bytes of rows buffered, not yet handed to the spill thread."""
        ...

    def spill(self) -> None:
        """Hand the buffer to the spill thread as the writer's next run."""
        ...


class SpillBudget:
    """Shared bound and spill thread of a group of writers (see the module docstring)."""

    def __init__(self, memory_bytes: int, thread_name: str = "sorted-part-spill") -> None:
        self.memory_bytes = max(1 << 20, memory_bytes)
        self.spill_bytes = self.memory_bytes // 2
        """The writers' buffers together spill (the largest) when they hold this much."""
        self.spiller = BackgroundJob(thread_name)
        self._writers: list[BudgetedWriter] = []
        self.spills = 0
        """Runs handed to the spill thread so far (for tests and profiles)."""

    def join(self, writer: BudgetedWriter) -> None:
        """Count ``writer``'s buffer from now on."""
        self._writers.append(writer)

    def leave(self, writer: BudgetedWriter) -> None:
        """Stop counting ``writer`` (closed or aborted); unknown writers are ignored."""
        if writer in self._writers:
            self._writers.remove(writer)

    def buffered_bytes(self) -> int:
        """What the writers buffer together now."""
        return sum(writer.buffered_bytes for writer in self._writers)

    def grew(self) -> None:
        """After a writer buffered more: spill the largest buffer while together they reach the bound."""
        while self._writers and self.buffered_bytes() >= self.spill_bytes:
            largest = max(self._writers, key=lambda writer: writer.buffered_bytes)
            if largest.buffered_bytes == 0:
                return
            largest.spill()
            self.spills += 1

    def close(self) -> None:
        """End the spill thread (after the run being written); the writers must be closed or aborted."""
        self._writers.clear()
        self.spiller.stop()
