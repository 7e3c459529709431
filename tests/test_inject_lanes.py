"""Inject's fast lane (issue 22) gives exactly the rows, counters and reports of the per-line path."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from gossamer.core.settings import load_settings
from gossamer.crawl.inject import seed_merge
from gossamer.crawl.inject.seed_merge import InjectOptions, SeedMapper
from gossamer.engine import TaskContext
from gossamer.engine.text_lines import TEXT_SCHEMA

from .test_urlscreen import CLEAN, _random_urls

EXTRA = [
    "# comment", "", "   ", "http://example.com/", "http://example.com/\tnutch.score=3", "http://example.com/",
    "https://www.example.org/docs/index.html\tnutch.score=2.5\tcategory=news", "HTTP://Example.com/Up",
    "http://example.com/a/../b", "http://example.com/x#frag", "http://example.com/x?y=1", "not a url",
    "mailto:someone@example.com", "http://", "http://example.com/x.gif", "http://example.com/ok\tnutch.score=abc",
    "http://example.com/a/b/a/c/a/", "http://example.com/a/b/a/c/a/d", " http://example.com/lead", "\thttp://t.com/",
    "http://example.com/\u00e9", "http://xn--bcher-kva.de/", "http://example.com:8080/p", "http://example.com:80/p",
    "ftp://ftp.example.com/pub/", "http://example.com/ok\tnutch.fetchInterval.fixed=60", "http://example.com/dup",
    "http://example.com/dup\tcategory=x", "http://example.com/dup",
]


def _batch(lines: list[str], problems: dict[int, str] | None = None) -> pa.RecordBatch:
    problems = problems or {}
    return pa.RecordBatch.from_arrays(
        [pa.array(lines, pa.string()), pa.array(range(1, len(lines) + 1), pa.int64()),
         pa.array(["seeds.txt"] * len(lines), pa.string()),
         pa.array([problems.get(i) for i in range(len(lines))], pa.string())],
        schema=TEXT_SCHEMA,
    )


def _run(batch: pa.RecordBatch, settings, options: InjectOptions) -> tuple[pa.Table | None, dict, list[str]]:
    ctx = TaskContext(settings, 10_000)
    out = list(SeedMapper(options, 1_700_000_000_000)(batch, ctx))
    return (pa.Table.from_batches(out) if out else None), dict(ctx.counters), ctx.errors


def _lines(seed: int) -> list[str]:
    rnd = random.Random(seed)
    lines = EXTRA + CLEAN * 3 + _random_urls(1500, seed)
    lines += [f"http://host{i % 50}.example.com/p/{i}.html" for i in range(3000)]
    rnd.shuffle(lines)
    return [line.replace("\n", "") for line in lines]


@pytest.mark.parametrize("options", [InjectOptions(), InjectOptions(normalize=False), InjectOptions(filter=False)])
@pytest.mark.parametrize("seed", [1, 2])
def test_fast_lane_equals_line_by_line(monkeypatch: pytest.MonkeyPatch, options: InjectOptions, seed: int) -> None:
    lines = _lines(seed)
    batch = _batch(lines, {3: "not UTF-8 text (invalid start byte at byte 3)"})
    settings = load_settings()
    fast = _run(batch, settings, options)
    monkeypatch.setattr(seed_merge, "fast_line_mask", lambda *args: None)
    slow = _run(batch, settings, options)
    assert fast[1] == slow[1]
    assert fast[2] == slow[2]
    assert fast[0] is not None and slow[0] is not None
    assert fast[0].equals(slow[0])
    assert fast[1]["urls_injected_total"] > 3000


def test_fast_lane_takes_most_clean_lines() -> None:
    lines = [f"http://host{i % 50}.example.com/p/{i}.html" for i in range(1000)] + ["x\ty"]
    mask = seed_merge.fast_line_mask(_batch(lines), seed_merge.task_chain(TaskContext(load_settings()), "inject"),
                                     {"http", "https"})
    assert mask is not None and mask.to_pylist() == [True] * 1000 + [False]
