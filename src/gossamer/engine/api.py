"""The job interface shared by every engine.

A :class:`Job` is plain data plus module-level functions, so it pickles and
runs unchanged on the embedded local engine and on a cluster engine::

    inputs ──map──▶ rows of `shuffle_schema` ──partition by `partitioner` (host hash of `key`)──▶
        sort by (key, _src, _seq) within each part ──reduce──▶ rows of `output_schema`
        ──▶ one sorted Parquet part per partition

Contracts
---------
* ``Input.map(batch, ctx)`` receives an Arrow batch of the source's rows and
  yields batches in ``Job.shuffle_schema`` (any number, any order).  It may drop
  rows, count them (``ctx.count``) and report bad ones (``ctx.report``).  It must
  not depend on which worker runs it or on other batches.
* A ``copartitioned`` input is a table already split with the same partitioner
  and part count and sorted by the key (the crawldb, for a merge job): the engine
  streams its part *p* straight into reduce *p* without shuffling.  Its ``map``,
  if any, must keep rows in order and must not change the key.
* The engine adds two columns before the shuffle: ``_src`` (the input's position
  in ``Job.inputs``) and ``_seq`` (a number fixed by the input split and the
  row's place in it).  Within a key, rows arrive ordered by ``(_src, _seq)``, so
  the result never depends on timing or the number of workers.
* ``Job.reduce(batch, ctx)`` receives batches sorted by ``(key, _src, _seq)``;
  all rows of a key are in the same call.  It yields batches in
  ``Job.output_schema`` in key order.  Rows are written to part *p* of the output.
* Counters and error reports from every task are summed into :class:`JobResult`.

Mapping to Spark (``gossamer.engine.spark``): each split's map runs in RDD
``mapPartitions`` and emits Arrow IPC blobs keyed by the part number from the same
hash (``gossamer.store.partitioning``); ``partitionBy(parts)`` is the shuffle; reduce
runs in ``mapPartitionsWithIndex``, sorting by ``key, _src, _seq`` and cutting batches
at key boundaries; each partition writes one Parquet part.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import Settings
from gossamer.store import PARTITIONER_NAME

SRC_COLUMN = "_src"
SEQ_COLUMN = "_seq"
SEQ_SPLIT_SHIFT = 40
"""``_seq = split_index << 40 | row_in_split``: room for 10^12 rows per split."""


_RANGE: list[pa.Array] = [pa.array([], pa.int64())]


def arange(start: int, count: int) -> pa.Array:
    """int64 ``start, start + 1, … start + count - 1``, built in Arrow (a cached ``0..n-1`` plus ``start``)."""
    if len(_RANGE[0]) < count:
        _RANGE[0] = pa.array(range(max(count, 65536)), pa.int64())
    return pc.add(_RANGE[0].slice(0, count), pa.scalar(start, pa.int64()))


class TaskContext:
    """What a map or reduce function may use: settings, counters, error reports, cached helpers.

    Every task (a map over one split, the reduce of one part) gets a fresh context.

    ``report`` keeps at most ``limit`` messages per task but every call is
    counted under ``errors``; :attr:`cache` holds per-process objects (plugin
    chains …) built once per worker.
    """

    _process_cache: dict[str, Any] = {}

    def __init__(self, settings: Settings, limit: int = 20) -> None:
        self.settings = settings
        self.counters: Counter[str] = Counter()
        self.errors: list[str] = []
        self.state: dict[str, Any] = {}
        """Scratch space of this task: a reduce keeping a running count over the calls of one part."""
        self._limit = limit

    def count(self, name: str, amount: int = 1) -> None:
        """Add ``amount`` to counter ``name``."""
        self.counters[name] += amount

    def report(self, message: str) -> None:
        """Record a bad-input message (kept up to the limit; always counted as ``errors``)."""
        self.counters["errors"] += 1
        if len(self.errors) < self._limit:
            self.errors.append(message)

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """Per-process cache: ``build()`` once per worker process and ``key`` (the 16 latest keys kept)."""
        cache = self._process_cache
        if key in cache:
            cache[key] = cache.pop(key)  # most recently used last
        else:
            while len(cache) >= 16:
                cache.pop(next(iter(cache)))
            cache[key] = build()
        return cache[key]


MapFn = Callable[[pa.RecordBatch, TaskContext], Iterable[pa.RecordBatch]]
ReduceFn = Callable[[pa.RecordBatch, TaskContext], Iterable[pa.RecordBatch]]


class Split(Protocol):
    """One unit of input work; picklable."""

    def describe(self) -> str:
        """Short text naming the split in messages."""
        ...

    def read(self, batch_rows: int) -> Iterator[pa.RecordBatch]:
        """Stream the split's rows."""
        ...

    def size_bytes(self) -> int:
        """Approximate bytes of input (used to run small jobs in-process)."""
        ...


class Source(Protocol):
    """Where an input's rows come from."""

    def splits(self) -> Sequence[Split]:
        """The input's splits, in a fixed order (their index numbers ``_seq``)."""
        ...


@dataclass(frozen=True)
class Input:
    """One job input: a source and the map applied to it."""

    source: Source
    map: MapFn | None = None
    copartitioned: bool = False


OUTPUT_FORMATS = ("parquet", "arrow")
"""The forms of a job's output parts (:attr:`Job.output_format`)."""


@dataclass(frozen=True)
class Job:
    """A map → partition → sort → reduce job; see the module docstring for the contract."""

    name: str
    inputs: Sequence[Input]
    shuffle_schema: pa.Schema
    reduce: ReduceFn
    output_schema: pa.Schema
    parts: int
    key: str = "url"
    partitioner: str = PARTITIONER_NAME
    """``host-crc32`` (rows of one host in one part: politeness, co-partitioned tables) or
    ``key-crc32`` (spread by the whole key: balanced parts, no co-partitioned inputs)."""
    partition_by: str | None = None
    """The column the partitioner hashes; ``None``: the key.  Another column lets a job
    sort by one key (``key``) while keeping groups of another together in one part
    (no co-partitioned inputs then)."""
    host_column: str | None = None
    """With ``host-crc32``: a shuffle column that holds ``hosts_of`` of the partition column in
    every row the maps yield (the crawldb's ``host``), hashed instead of extracting hosts again."""
    reduce_in_part_order: bool = False
    """Start the reduce tasks in part order instead of largest first, for a driver that consumes
    part ``i`` as soon as parts ``0 … i`` are done (the index job feeds its writers meanwhile)."""
    reduce_in_memory: bool = False
    """Let a reduce task sort its runs in memory when they fit its budget (no k-way merge): a little
    less CPU for a job that leaves many small runs per part (the index job), at up to
    :data:`~gossamer.engine.tasks.IN_MEMORY_OVERHEAD` times the runs' bytes of memory.  Off for the
    crawl's own jobs: in a polite crawl of 5,000 hosts updatedb's two task processes held ~70 MB
    more each with it, while the kept fetch processes waited beside them (the crawl's peak)."""
    reduce_batch_rows: int | None = None
    """At most this many rows per batch handed to the reduce function (more when one key's rows run on);
    ``None``: ``engine.batch.rows``.  For a reduce that turns its batch into Python objects all at once
    (the index job): a smaller batch keeps fewer of them alive together, so the process's peak, and the
    pages it must first touch, stay smaller."""
    output_format: str = "parquet"
    """``parquet``: each part a zstd Parquet file (``part-NNNNN.parquet``), a table users may open.
    ``arrow``: an uncompressed Arrow IPC file (``part-NNNNN.arrow``, not synced to disk;
    :mod:`gossamer.store.arrow_parts`), for a staging output that the job's driver reads back once and
    removes (the index job's actions): no compression paid by the task and again by the driver."""

    def __post_init__(self) -> None:
        if self.output_format not in OUTPUT_FORMATS:
            raise ValueError(f"job {self.name}: output_format {self.output_format!r} is not one of {OUTPUT_FORMATS}")

    @property
    def partition_column(self) -> str:
        """The column whose values decide a row's part."""
        return self.partition_by or self.key

    @cached_property
    def internal_schema(self) -> pa.Schema:
        """The shuffle schema plus the engine's ``_src`` and ``_seq`` columns."""
        return self.shuffle_schema.append(pa.field(SRC_COLUMN, pa.int16())).append(
            pa.field(SEQ_COLUMN, pa.int64())
        )


@dataclass
class JobResult:
    """Totals of a finished job."""

    counters: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    rows_per_part: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def rows(self) -> int:
        """Rows written in all parts."""
        return sum(self.rows_per_part)

    def absorb(self, counters: Counter[str], errors: list[str], limit: int) -> None:
        """Add a task's counters and error samples."""
        self.counters.update(counters)
        room = max(limit - len(self.errors), 0)
        self.errors.extend(errors[:room])
