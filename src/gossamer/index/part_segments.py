"""The index job's documents indexed in its own reduce tasks, as tantivy segments the writer adopts.

With the local engine and a local index, each reduce task of the index job adds its part's documents to
small tantivy indexes of its own (one per shard) instead of handing them, as JSON rows, to the driver
that fed them one by one to a single writer.  Tantivy's work is then spread over the engine's workers
and runs beside their filters; the driver only applies deletes and links the finished segments in.
A part is a directory ``part-NNNNN.segments`` (:data:`PART_SUFFIX`)::

    actions.arrow      the part's actions (ACTIONS_SCHEMA, in order) with ``doc`` null: what the driver needs
    shard-NNNNN/       a tantivy index of the part's added documents that belong to that shard (absent: none)

Contracts:

* :class:`PartSegments` is a picklable part sink factory (:class:`gossamer.engine.PartSinkFactory`):
  its sink sends every ``add`` row's document to the index of ``shard_of(url)`` (``add_json``, one
  indexing thread, the analyzers of the index's fields) and every row, ``doc`` nulled, to
  ``actions.arrow``; ``close`` commits each index and waits for its merges.  The engine writes the
  part under an attempt name and renames it when complete, so a part directory is always whole.
* :func:`segment_files` links (or copies) the segments of a complete index into a shard directory
  and returns their ``meta.json`` entries; :func:`attach_segments` then lists them in the shard's
  ``meta.json`` and ``.managed.json`` (new names written, then renamed: a crash leaves the old lists).
  No tantivy writer may be open on the shard meanwhile; both indexes must have the same schema
  (else :class:`~gossamer.store.TableError`).  Documents keep their place within a segment, segments
  are attached in part order.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import tantivy

from gossamer.index.analysis import register_analyzers
from gossamer.index.schema import build_schema
from gossamer.index.store import shard_name, shard_of
from gossamer.plugins import IndexField
from gossamer.store import ArrowPartWriter, TableError, iter_arrow_part

PART_SUFFIX = ".segments"
ACTIONS_FILE = "actions.arrow"
META_FILE = "meta.json"
MANAGED_FILE = ".managed.json"
ACTION_ADD = 1


@dataclass(frozen=True)
class PartSegments:
    """Part sink factory of the index job: see the module docstring."""

    fields: tuple[IndexField, ...]
    shards: int
    heap_bytes: int
    """Indexing memory of each shard's writer in a task (tantivy flushes a segment when it fills)."""
    suffix: str = PART_SUFFIX

    def __call__(self, path: Path, schema: pa.Schema) -> PartSegmentsSink:
        return PartSegmentsSink(path, schema, self)


class PartSegmentsSink:
    """Writes one part directory (see the module docstring); ``rows`` counts every action."""

    def __init__(self, path: Path, schema: pa.Schema, spec: PartSegments) -> None:
        self.path = path
        self.rows = 0
        self.spec = spec
        path.mkdir()
        self._actions = ArrowPartWriter(path / ACTIONS_FILE, schema)
        self._writers: dict[int, Any] = {}

    def _writer(self, shard: int) -> Any:
        writer = self._writers.get(shard)
        if writer is None:
            directory = self.path / shard_name(shard)
            directory.mkdir()
            index = tantivy.Index(build_schema(self.spec.fields), path=str(directory), reuse=False)
            register_analyzers(index, (f.name for f in self.spec.fields))
            writer = self._writers[shard] = index.writer(heap_size=self.spec.heap_bytes, num_threads=1)
        return writer

    def write(self, batch: pa.RecordBatch) -> None:
        """Index the batch's added documents; keep every action, without its document, for the driver."""
        if batch.num_rows == 0:
            return
        actions = batch.column("action").to_pylist()
        docs = batch.column("doc")
        urls = batch.column("url").to_pylist()
        texts = docs.to_numpy(zero_copy_only=False)
        shards = self.spec.shards
        for url, action, text in zip(urls, actions, texts, strict=True):
            if action == ACTION_ADD:
                self._writer(shard_of(url, shards) if shards > 1 else 0).add_json(text)
        names = batch.schema.names
        columns = [pa.nulls(batch.num_rows, docs.type) if name == "doc" else batch.column(name) for name in names]
        self._actions.write(pa.RecordBatch.from_arrays(columns, schema=batch.schema))
        self.rows += batch.num_rows

    def close(self) -> None:
        """Commit every shard's index and finish the actions file."""
        try:
            for writer in self._writers.values():
                writer.commit()
                writer.wait_merging_threads()
        finally:
            self._writers = {}
            self._actions.close()


def part_actions(part: Path, batch_rows: int = 65536) -> list[tuple[str, int]]:
    """``(url, action)`` of every action of a part directory, in order."""
    out: list[tuple[str, int]] = []
    for batch in iter_arrow_part(part / ACTIONS_FILE, batch_rows):
        out.extend(zip(batch.column("url").to_pylist(), pc.cast(batch.column("action"), pa.int64()).to_pylist(),
                       strict=True))
    return out


def _read_json(path: Path, default: Any) -> Any:
    return json.loads(path.read_text()) if path.is_file() else default


def _replace_json(path: Path, value: Any) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(value))
    os.replace(temporary, path)


def segment_files(source: Path, target: Path) -> list[dict[str, Any]]:
    """Link the segments of the complete index ``source`` into ``target``; their ``meta.json`` entries.

    Files are hard-linked where both are on one file system, else copied.  Nothing of ``target``'s
    own lists changes here (see :func:`attach_segments`).
    """
    meta = _read_json(source / META_FILE, None)
    if meta is None:
        raise TableError(f"{source}: not a complete tantivy index (no {META_FILE})")
    entries: list[dict[str, Any]] = meta["segments"]
    prefixes = tuple(entry["segment_id"].replace("-", "") + "." for entry in entries)
    for name in os.listdir(source):
        if name.startswith(prefixes):
            try:
                os.link(source / name, target / name)
            except OSError:
                shutil.copyfile(source / name, target / name)
    schema_of_source = json.dumps(meta["schema"], sort_keys=True)
    return [dict(entry, schema=schema_of_source) for entry in entries]


def attach_segments(target: Path, entries: list[dict[str, Any]]) -> int:
    """List segments linked by :func:`segment_files` in ``target``'s index; the documents they hold."""
    if not entries:
        return 0
    meta = _read_json(target / META_FILE, None)
    if meta is None:
        raise TableError(f"{target}: not a tantivy index (no {META_FILE})")
    schema = json.dumps(meta["schema"], sort_keys=True)
    managed = set(_read_json(target / MANAGED_FILE, []))
    docs = 0
    for entry in entries:
        if entry["schema"] != schema:
            raise TableError(f"{target}: a segment built with another schema cannot join the index")
        prefix = entry["segment_id"].replace("-", "") + "."
        managed.update(name for name in os.listdir(target) if name.startswith(prefix))
        meta["segments"].append({k: v for k, v in entry.items() if k != "schema"})
        docs += int(entry["max_doc"]) - int((entry.get("deletes") or {}).get("num_deleted_docs", 0))
    _replace_json(target / MANAGED_FILE, sorted(managed))
    _replace_json(target / META_FILE, meta)
    return docs


__all__ = ["ACTIONS_FILE", "PART_SUFFIX", "PartSegments", "PartSegmentsSink", "attach_segments", "part_actions",
           "segment_files"]
