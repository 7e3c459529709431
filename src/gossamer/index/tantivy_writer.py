"""Plugin ``indexer-tantivy``: the built-in index writer — N tantivy shards in ``<crawl>/index``.

The index may be a local directory or a URI (``s3://``, ``hdfs://`` …): see
:mod:`gossamer.index.target` for how a version is built locally and installed there.
``open`` takes the index directory's lock, repairs what a crashed writer left,
and starts the next version from hard links to the live one (or from empty
shards, ``index.shards`` of them).  ``write`` replaces a URL's document in its
shard (delete by ``id`` then add; in a version started from empty shards the delete
is skipped for a URL not written before in this run, see :class:`FirstWrites`),
``delete`` removes it (in such a version only when this run wrote it: nothing else is there
to remove), ``commit`` commits every shard and installs the version atomically (see :mod:`gossamer.index.store`).
``close`` without ``commit`` drops the staging version; the live index is unchanged.
With ``search.semantic=true`` each shard also gets its page vectors
(:mod:`gossamer.index.vectors`), written into the staging version before it is marked complete.

An existing index keeps its shard count; a different ``index.shards`` is
reported and ignored (re-index into a new directory to re-shard).  An index
whose fields differ from the active filters' fields is refused with a clear
message, since documents already indexed would lack the new fields.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import tantivy

from gossamer.core import Settings
from gossamer.index.analysis import register_analyzers
from gossamer.index.ballast import add_ballast, ballast_document, ballast_needed, engine_stats
from gossamer.index.documents import document_json
from gossamer.index.schema import build_schema
from gossamer.index.store import IndexDescription, finish_index, link_copy, shard_name, shard_of
from gossamer.index.target import IndexTarget
from gossamer.index.vectors import ShardVectorWriter, finish_vectors, vector_writers
from gossamer.plugins import IndexField, IndexWriter, PluginInfo
from gossamer.store import TableError

LOG = logging.getLogger(__name__)
MIN_HEAP_PER_THREAD = 15_000_000
MAX_TRACKED_URLS = 4_000_000
"""URLs whose first write skips the delete (about 60 bytes each); later writes always delete first."""


class FirstWrites:
    """Which writes of a run need no delete: the index started empty and the URL was not written before.

    Deleting a term in tantivy costs a term lookup in every segment at commit; a new index
    holds nothing to delete but what this run wrote.  URLs are remembered by ``hash``
    (a collision only costs an unneeded delete), at most :data:`MAX_TRACKED_URLS` of
    them; past that every write deletes first, as with a live index.
    """

    def __init__(self, empty: bool, limit: int = MAX_TRACKED_URLS) -> None:
        self.tracking = empty
        self.limit = limit
        self.seen: set[int] = set()

    def needs_delete(self, url: str) -> bool:
        """Whether a write of ``url`` must delete an earlier document of it first (and remember it)."""
        if not self.tracking:
            return True
        key = hash(url)
        if key in self.seen:
            return True
        if len(self.seen) >= self.limit:
            self.tracking = False
            self.seen = set()
            return True
        self.seen.add(key)
        return False

    def may_hold(self, url: str) -> bool:
        """Whether the index version may hold a document of ``url``, so that a delete of it can remove something.

        Always for a version started from a live index (or once tracking stopped); in a version started
        empty only for a URL written before in this run.  Remembers nothing: a later write of ``url`` still
        skips its delete.
        """
        return not self.tracking or hash(url) in self.seen


class TantivyIndexWriter(IndexWriter):
    """Writes the crawl's sharded tantivy index (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.shards = max(1, settings.get_int("index.shards"))
        self.heap_bytes = max(1, settings.get_int("index.writer.heap.mb")) << 20
        self.notes: list[str] = []
        self._target: IndexTarget | None = None
        self._staging: Path | None = None
        self._writers: list[tantivy.IndexWriter] = []
        self._fields: tuple[IndexField, ...] = ()
        self.directory: str | None = None
        self._existing: IndexDescription | None = None
        self._vectors: list[ShardVectorWriter] = []
        self._first = FirstWrites(False)

    def open(self, location: str, fields: Sequence[IndexField]) -> None:
        self._fields = tuple(fields)
        self._target = IndexTarget(location, self.settings, self.notes)
        self.directory = self._target.display()
        self._target.acquire()
        try:
            live = self._target.live()
            existing = IndexDescription.read(live) if live is not None else None
            self._existing = existing
            if existing is not None and existing.fields != self._fields:
                new = {f.name for f in self._fields} ^ {f.name for f in existing.fields}
                raise TableError(
                    f"{self.directory}: the index was built with other fields ({', '.join(sorted(new)) or 'options'}"
                    " differ) — index every segment into a new index directory, or restore the indexing filters")
            if existing is not None and existing.shards != self.shards:
                self.notes.append(f"the index has {existing.shards} shards; index.shards={self.shards} ignored")
                self.shards = existing.shards
            self._first = FirstWrites(live is None)
            self._staging = self._target.new_scratch()
            schema = build_schema(self._fields)
            cores = os.cpu_count() or 1
            threads = max(1, min(cores // self.shards, self.heap_bytes // self.shards // MIN_HEAP_PER_THREAD))
            heap = max(self.heap_bytes // self.shards, MIN_HEAP_PER_THREAD * threads)
            for i in range(self.shards):
                target = self._staging / shard_name(i)
                if live is not None:
                    link_copy(live / shard_name(i), target)
                    index = tantivy.Index.open(str(target))
                else:
                    target.mkdir()
                    index = tantivy.Index(schema, path=str(target), reuse=False)
                register_analyzers(index, (f.name for f in self._fields))
                self._writers.append(index.writer(heap_size=heap, num_threads=threads))
            self._vectors = vector_writers(self.settings, live, self._staging, self.shards)
        except BaseException:
            self.close()
            raise

    def write(self, doc: Mapping[str, Any]) -> None:
        url = str(doc["id"])
        shard = shard_of(url, self.shards)
        writer = self._writers[shard]
        if self._first.needs_delete(url):
            writer.delete_documents_by_term("id", url)
        if self._vectors:
            self._vectors[shard].write(url, doc)
        text = getattr(doc, "json", None)
        writer.add_json(text if isinstance(text, str) else document_json(doc))

    def delete(self, url: str) -> None:
        shard = shard_of(url, self.shards)
        if self._first.may_hold(url):  # a delete of what a new index never held would only cost tantivy work
            self._writers[shard].delete_documents_by_term("id", url)
        if self._vectors:
            self._vectors[shard].delete(url)

    def commit(self) -> None:
        assert self._staging is not None and self._target is not None
        for writer in self._writers:
            writer.commit()
        ballast = self._top_up_ballast()
        for writer in self._writers:
            writer.wait_merging_threads()
        self._writers = []
        docs = 0
        for i in range(self.shards):
            index = tantivy.Index.open(str(self._staging / shard_name(i)))
            docs += index.searcher().num_docs - int((ballast[i] or {}).get("docs", 0))
        finish_vectors(self._vectors, self._staging)
        finish_index(self._staging, self.shards, docs, self._fields, ballast)
        self._target.install(self._staging)
        self._staging = None
        self.close()

    def _top_up_ballast(self) -> list[dict[str, Any] | None]:
        """Top up shards whose average field lengths fell behind; returns every shard's ballast record.

        See :mod:`gossamer.index.ballast`.
        """
        assert self._staging is not None
        held = [self._previous_ballast(i) for i in range(self.shards)]
        if self.shards < 2:
            return held
        text_fields = [f.name for f in self._fields if f.kind == "text"]
        stats = []
        for i in range(self.shards):
            index = tantivy.Index.open(str(self._staging / shard_name(i)))
            stats.append(engine_stats(index, index.searcher(), text_fields))
        for i, need in enumerate(ballast_needed(stats, held)):
            if need:
                self._writers[i].add_json(json.dumps(ballast_document(need)))
                self._writers[i].commit()
                held[i] = add_ballast(held[i], need)
        return held

    def _previous_ballast(self, shard: int) -> dict[str, Any] | None:
        return self._existing.ballast_of(shard) if self._existing is not None else None

    def close(self) -> None:
        for writer in self._writers:
            try:
                writer.rollback()
            except ValueError:
                pass
        self._writers = []
        self._vectors = []
        if self._staging is not None:
            IndexTarget.discard(self._staging)
            self._staging = None
        if self._target is not None:
            self._target.release()
            self._target = None


PLUGIN = PluginInfo(
    id="indexer-tantivy",
    point="IndexWriter",
    factory=TantivyIndexWriter,
    description="the built-in full-text index: tantivy shards in <crawl>/index",
)
