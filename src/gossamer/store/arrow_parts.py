"""Job output parts as uncompressed Arrow IPC files: a staging table that its driver reads back once.

A job whose output is not a table users open but rows its own driver reads right after the job and
then deletes (the index job's actions, fed to the index writers) gains nothing from Parquet's
compression and encoding, and pays for them twice: every byte is compressed by the task and
decompressed by the driver.  Measured on the index job's 44,555 actions of the doc web
(287 MB of documents): zstd Parquet written and read back 0.72–0.78 s of CPU, this format 0.16–0.49 s.
Such a part is ``part-NNNNN.arrow`` (:data:`ARROW_SUFFIX`), one record batch per batch written, read
through a memory map where it is local (no copy: the driver's batches point into the page cache).

Contracts:

* :class:`ArrowPartWriter` has :class:`~gossamer.store.table.PartWriter`'s interface (``write``,
  ``close``, ``rows``), so an engine writes either form the same way; the rows and their order are
  what was written.  A part is not synced to disk: it lives for one run, and a crash loses the run.
* :func:`iter_arrow_part` yields the part's rows in order, in batches of at most ``batch_rows`` (zero-copy
  slices); a part that is not a complete Arrow IPC file raises ``pyarrow.ArrowInvalid``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.ipc as ipc

from gossamer.store.location import as_place
from gossamer.store.place import Place
from gossamer.store.table import conform_batch

ARROW_SUFFIX = ".arrow"
"""The file name ending of a part written by :class:`ArrowPartWriter` (:func:`~gossamer.store.table.part_name`)."""


class ArrowPartWriter:
    """Writes one part as an uncompressed Arrow IPC file; call :meth:`write` with batches, then :meth:`close`."""

    def __init__(self, path: Place | str, schema: pa.Schema) -> None:
        self.path = as_place(path)
        self.rows = 0
        self._schema = schema
        self._sink: Any = self.path.open_output()
        try:
            self._writer = ipc.new_file(self._sink, schema)
        except BaseException:
            self._sink.close()
            raise

    def write(self, batch: pa.RecordBatch) -> None:
        """Append rows (cast to the part's schema when a batch's types differ)."""
        if batch.num_rows == 0:
            return
        self._writer.write_batch(conform_batch(batch, self._schema))
        self.rows += batch.num_rows

    def close(self) -> None:
        """Write the file's footer and close it."""
        try:
            self._writer.close()
        finally:
            self._sink.close()


def iter_arrow_part(path: Place | str, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """The rows of a part written by :class:`ArrowPartWriter`, in order, at most ``batch_rows`` a batch."""
    place = as_place(path)
    source = pa.memory_map(str(place.local_path())) if place.is_local else place.open_input()
    with source:
        reader = ipc.open_file(source)
        for i in range(reader.num_record_batches):
            batch = reader.get_batch(i)
            for start in range(0, batch.num_rows, batch_rows):
                yield batch.slice(start, batch_rows)


__all__ = ["ARROW_SUFFIX", "ArrowPartWriter", "iter_arrow_part"]
