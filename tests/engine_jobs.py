"""Module-level map/reduce functions for the engine tests (spawned workers import them)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.engine import TaskContext, TaskReporter

SHUFFLE = pa.schema([pa.field("url", pa.string()), pa.field("value", pa.int64())])
OUTPUT = pa.schema([pa.field("url", pa.string()), pa.field("total", pa.int64()),
                    pa.field("count", pa.int64()), pa.field("sources", pa.string())])


def map_lines(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    urls, values = [], []
    for line in batch.column("line").to_pylist():
        url, _, value = line.partition(" ")
        if not value.isdigit():
            ctx.report(f"bad line {line!r}")
            continue
        urls.append(url)
        values.append(int(value))
    ctx.count("lines", batch.num_rows)
    yield pa.RecordBatch.from_arrays([pa.array(urls, pa.string()), pa.array(values, pa.int64())],
                                     schema=SHUFFLE)


def map_table(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    yield pa.RecordBatch.from_arrays([batch.column("url"), batch.column("total")], schema=SHUFFLE)


def reduce_sum(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    urls = batch.column("url").to_pylist()
    values = batch.column("value").to_pylist()
    sources = batch.column("_src").to_pylist()
    out: dict[str, list] = {"url": [], "total": [], "count": [], "sources": []}
    for url, value, src in zip(urls, values, sources, strict=True):
        if out["url"] and out["url"][-1] == url:
            out["total"][-1] += value
            out["count"][-1] += 1
            out["sources"][-1] += str(src)
        else:
            out["url"].append(url)
            out["total"].append(value)
            out["count"].append(1)
            out["sources"].append(str(src))
    ctx.count("groups", len(out["url"]))
    yield pa.RecordBatch.from_pydict(out, schema=OUTPUT)


def keys_sorted(batch: pa.RecordBatch) -> bool:
    keys = batch.column("url")
    return batch.num_rows < 2 or pc.all(pc.less_equal(keys.slice(0, len(keys) - 1), keys.slice(1))).as_py()


def reduce_sum_then_fail(batch: pa.RecordBatch, ctx: TaskContext) -> Iterator[pa.RecordBatch]:
    """``reduce_sum``, but a batch holding the URL ``http://h0.example/0`` raises after the part began."""
    yield from reduce_sum(batch, ctx)
    if "http://h0.example/0" in batch.column("url").to_pylist():
        raise RuntimeError("reduce failed on purpose")


def square_task(value: int, reporter: TaskReporter) -> tuple[int, int]:
    """A task: reports ``value`` twice as progress, returns ``(value, value²)`` and its pid."""
    reporter.report(value)
    reporter.report(value * 10)
    return value * value, os.getpid()


def unpicklable_task(value: int, reporter: TaskReporter) -> object:
    """A task whose result cannot be pickled (a lock) for ``value`` 1, else ``value``."""
    import threading

    return threading.Lock() if value == 1 else value


def failing_task(value: int, reporter: TaskReporter) -> int:
    """A task that raises for ``value`` 1."""
    if value == 1:
        raise ValueError(f"bad input {value}")
    time.sleep(0.2)
    return value


def dies_once_task(value: int, marker_dir: str, reporter: TaskReporter) -> int:
    """A task whose process is killed (SIGKILL) on its first attempt for ``value`` 1, then succeeds."""
    marker = Path(marker_dir) / f"attempt-{value}"
    if value == 1 and not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return value


def record_pid_and_sleep(value: int, pid_dir: str, reporter: TaskReporter) -> int:
    """A task that records its pid, then sleeps long (to be stopped when another task fails)."""
    (Path(pid_dir) / f"pid-{value}").write_text(str(os.getpid()))
    if value == 1:
        deadline = time.monotonic() + 30
        while len(list(Path(pid_dir).glob("pid-*"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)  # every task is running
        raise RuntimeError("stop the others")
    time.sleep(60)
    return value


def environment_task(names: tuple[str, ...], reporter: TaskReporter) -> dict[str, str | None]:
    """A task: the values of the environment variables ``names`` in the task process."""
    return {name: os.environ.get(name) for name in names}


def arrow_pool_task(reporter: TaskReporter) -> str:
    """A task: the backend of Arrow's default memory pool in the task process."""
    import pyarrow as pa

    return pa.default_memory_pool().backend_name


def pid_and_square(value: int) -> tuple[int, int]:
    """A plain call (no reporter): ``(value², the process id)``."""
    return value * value, os.getpid()


def raise_lookup_error(value: int) -> int:
    """A plain call that raises a LookupError naming ``value``."""
    raise LookupError(f"no such value {value}")


def exit_process(code: int) -> int:
    """A plain call that ends its process at once with ``code``."""
    os._exit(code)


def unpicklable_result(value: int) -> object:
    """A plain call whose result cannot be pickled (a lock)."""
    import threading

    return threading.Lock()
