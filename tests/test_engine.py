import random
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from gossamer.core.settings import load_settings
from gossamer.engine import Input, Job, LocalEngine, TableSource, TextSource
from gossamer.engine.api import SEQ_COLUMN, SRC_COLUMN
from gossamer.engine.sort import merge_sorted, sort_table
from gossamer.store import TableDescription, TableVersion, finish_version, new_staging_dir
from gossamer.store.partitioning import part_of_url

from . import engine_jobs


def make_lines(path: Path, n: int, hosts: int, seed: int = 1) -> Counter[str]:
    rng = random.Random(seed)
    expected: Counter[str] = Counter()
    with path.open("w") as handle:
        for i in range(n):
            url = f"http://h{rng.randrange(hosts)}.example/{rng.randrange(n // 3)}"
            value = rng.randrange(100)
            expected[url] += value
            handle.write(f"{url} {value}\n")
            if i % 997 == 0:
                handle.write("garbage line\n")
    return expected


def run(job: Job, tmp: Path, **settings: object) -> tuple[TableVersion, object]:
    overrides = [f"{k.replace('_', '.')}={v}" for k, v in settings.items()]
    out = new_staging_dir(tmp / f"out-{len(list(tmp.glob('out-*')))}")
    result = LocalEngine(load_settings(overrides=overrides)).run(job, out)
    finish_version(out, TableDescription(kind="test", parts=job.parts, rows=result.rows))
    return TableVersion(out), result


def text_job(path: Path, parts: int = 4) -> Job:
    source = TextSource((str(path),), split_bytes=64 * 1024)
    return Job("sum", [Input(source, engine_jobs.map_lines)], engine_jobs.SHUFFLE, engine_jobs.reduce_sum,
               engine_jobs.OUTPUT, parts)


def read_all(version: TableVersion) -> dict[str, int]:
    return {row["url"]: row["total"] for row in pa.Table.from_batches(list(version.iter_batches()),
                                                                       schema=engine_jobs.OUTPUT).to_pylist()}


def test_spilling_external_sort_gives_exact_results_with_any_worker_count(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    expected = make_lines(lines, 60_000, 40)
    job = text_job(lines)
    assert len(job.inputs[0].source.splits()) > 1
    # A tiny budget forces many spill runs per task; one worker runs in-process, two spawn processes.
    small, small_result = run(job, tmp_path, engine_memory_budget_mb=1, engine_local_workers=1,
                              engine_batch_rows=4096)
    big, big_result = run(job, tmp_path, engine_memory_budget_mb=512, engine_local_workers=2,
                          engine_local_inline_mb=0)
    assert read_all(small) == dict(expected) == read_all(big)
    for version in (small, big):
        for index in range(version.parts):
            for batch in version.iter_part(index):
                assert engine_jobs.keys_sorted(batch)
                assert all(part_of_url(u, version.parts) == index for u in batch.column("url").to_pylist())
    assert small_result.counters["lines"] == big_result.counters["lines"] == 60_000 + 61
    assert small_result.counters["errors"] == 61
    assert small_result.counters["groups"] == len(expected)
    assert len(small_result.errors) == 20  # samples are capped; all are counted
    assert [p.read_bytes() for p in small.part_paths()] == [p.read_bytes() for p in big.part_paths()]


def test_copartitioned_side_input_is_merged_without_shuffle(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    expected = make_lines(lines, 5_000, 10)
    first, _ = run(text_job(lines), tmp_path)
    job = Job("sum2", [Input(TableSource(str(first.directory)), engine_jobs.map_table, copartitioned=True),
                       Input(TextSource((str(lines),)), engine_jobs.map_lines)],
              engine_jobs.SHUFFLE, engine_jobs.reduce_sum, engine_jobs.OUTPUT, first.parts)
    second, _ = run(job, tmp_path, engine_memory_budget_mb=1)
    assert read_all(second) == {url: 2 * total for url, total in expected.items()}
    rows = pa.Table.from_batches(list(second.iter_batches())).to_pylist()
    # within a key, the side input (_src 0) always comes before the text input (_src 1)
    assert all(row["sources"].startswith("0") for row in rows)


def _run_tables(keys: list[str], src: int) -> pa.Table:
    n = len(keys)
    table = pa.table({"url": pa.array(keys, pa.string()), "value": pa.array(range(n), pa.int64()),
                      SRC_COLUMN: pa.array([src] * n, pa.int16()),
                      SEQ_COLUMN: pa.array(range(n), pa.int64())})
    return sort_table(table, "url")


@pytest.mark.parametrize("seed", range(8))
def test_merge_never_splits_a_key_and_keeps_order(seed: int) -> None:
    rng = random.Random(seed)
    runs = []
    for src in range(rng.randrange(1, 6)):
        keys = [f"k{rng.randrange(40):03d}" for _ in range(rng.randrange(0, 300))]
        table = _run_tables(keys, src)
        runs.append(table.to_batches(max_chunksize=rng.randrange(1, 50)))
    schema = _run_tables([], 0).schema
    chunks = list(merge_sorted((iter(r) for r in runs), schema, "url", chunk_rows=rng.randrange(1, 100)))
    seen: set[str] = set()
    merged = []
    for chunk in chunks:
        keys = chunk.column("url").to_pylist()
        assert not seen & set(keys), "a key appeared in two chunks"
        seen |= set(keys)
        merged.extend(zip(keys, chunk.column(SRC_COLUMN).to_pylist(), chunk.column(SEQ_COLUMN).to_pylist(),
                          strict=True))
    everything = [row for r in runs for b in r for row in zip(
        b.column("url").to_pylist(), b.column(SRC_COLUMN).to_pylist(), b.column(SEQ_COLUMN).to_pylist(),
        strict=True)]
    assert merged == sorted(everything)


def test_multi_pass_merge_keeps_everything_and_frees_disk(tmp_path: Path) -> None:
    from gossamer.engine.sort import read_run, reduce_fan_in, write_run

    rng = random.Random(7)
    paths, everything = [], []
    for src in range(37):
        keys = [f"k{rng.randrange(500):04d}" for _ in range(rng.randrange(0, 200))]
        table = _run_tables(keys, src)
        path = tmp_path / f"run-{src}.arrow"
        write_run(path, table, 16)
        paths.append(path)
        everything.extend(zip(keys, [src] * len(keys), strict=True))
    merged = reduce_fan_in(paths, _run_tables([], 0).schema, "url", fan_in=4, batch_rows=32)
    assert len(merged) <= 4
    assert sorted(tmp_path.glob("*.arrow")) == sorted(merged)
    rows = [(k, s) for p in merged for b in read_run(p) for k, s in zip(
        b.column("url").to_pylist(), b.column(SRC_COLUMN).to_pylist(), strict=True)]
    assert sorted(rows) == sorted(everything)
    for path in merged:
        keys = [k for b in read_run(path) for k in b.column("url").to_pylist()]
        assert keys == sorted(keys)


def test_the_fan_in_pass_merges_only_the_smallest_runs_it_needs_to(tmp_path: Path) -> None:
    from gossamer.engine.sort import read_run, reduce_fan_in, write_run

    paths = []
    for src, size in enumerate([50, 5, 40, 6, 30, 7]):
        path = tmp_path / f"run-{src}.arrow"
        write_run(path, _run_tables([f"k{src}-{i:03d}" for i in range(size)], src), 16)
        paths.append(path)
    merged = reduce_fan_in(paths, _run_tables([], 0).schema, "url", fan_in=4, batch_rows=32)
    assert len(merged) == 4
    assert {p.name for p in paths if p.exists()} == {"run-0.arrow", "run-2.arrow", "run-4.arrow"}  # untouched
    (new,) = [p for p in merged if p not in paths]
    assert [k for b in read_run(new) for k in b.column("url").to_pylist()] == sorted(
        f"k{src}-{i:03d}" for src, size in ((1, 5), (3, 6), (5, 7)) for i in range(size))


def test_stale_spill_directories_of_dead_processes_are_removed(tmp_path: Path) -> None:
    import subprocess
    import sys

    from gossamer.engine.local import remove_stale_spill_dirs

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = tmp_path / f"tmp-spill-{dead.stdout.strip()}-inject-abc"
    live = tmp_path / f"tmp-spill-{__import__('os').getpid()}-inject-def"
    stale.mkdir()
    live.mkdir()
    remove_stale_spill_dirs(tmp_path)
    assert not stale.exists() and live.exists()


def test_copartitioned_input_must_match_the_job(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    make_lines(lines, 500, 5)
    first, _ = run(text_job(lines, parts=4), tmp_path)
    job = Job("bad", [Input(TableSource(str(first.directory)), engine_jobs.map_table, copartitioned=True)],
              engine_jobs.SHUFFLE, engine_jobs.reduce_sum, engine_jobs.OUTPUT, parts=3)
    with pytest.raises(ValueError, match="partitioned as host-crc32/4 parts"):
        run(job, tmp_path)


def test_spark_engine_without_pyspark_says_what_to_install(tmp_path: Path, monkeypatch) -> None:
    import sys

    from gossamer.core.settings import SettingsError
    from gossamer.engine import run_job

    monkeypatch.setitem(sys.modules, "pyspark", None)  # import pyspark → ImportError
    lines = tmp_path / "lines.txt"
    make_lines(lines, 10, 2)
    with pytest.raises(SettingsError, match=r"install gossamer\[spark\]"):
        run_job(text_job(lines), tmp_path, load_settings(overrides=["engine=spark"]))


def test_a_failed_reduce_leaves_no_part_and_no_attempt_file(tmp_path: Path) -> None:
    """A reduce writes its part under a temporary name and renames it only when complete."""
    import dataclasses

    lines = tmp_path / "lines.txt"
    with lines.open("w") as handle:
        handle.writelines(f"http://h{i % 5}.example/{i % 40} 1\n" for i in range(400))
    job = dataclasses.replace(text_job(lines, parts=1), reduce=engine_jobs.reduce_sum_then_fail)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(RuntimeError, match="on purpose"):
        LocalEngine(load_settings(overrides=["engine.batch.rows=7"])).run(job, out)
    assert sorted(p.name for p in out.iterdir()) == []


def test_a_host_column_partitions_like_the_urls() -> None:
    from gossamer.engine.tasks import part_numbers
    from gossamer.store import CRAWLDB_SCHEMA, hosts_of, parts_of_urls

    urls = pa.array([f"http://Host{i % 37}.example/p{i}" for i in range(500)] + ["not a url", "http://[::1]:8/x"])
    table = pa.table({"url": urls, "host": hosts_of(urls)})
    by_host = Job("j", [], CRAWLDB_SCHEMA, lambda b, c: [b], CRAWLDB_SCHEMA, 8, host_column="host")
    by_url = Job("j", [], CRAWLDB_SCHEMA, lambda b, c: [b], CRAWLDB_SCHEMA, 8)
    assert part_numbers(table, by_host).equals(part_numbers(table, by_url))
    assert part_numbers(table, by_url).equals(parts_of_urls(urls, 8))


@pytest.mark.parametrize("seed", range(6))
def test_sort_order_equals_the_three_key_sort(seed: int) -> None:
    from gossamer.engine.sort import in_tie_order, sort_keys, sort_order

    rnd = random.Random(seed)
    n = 400
    keys = [rnd.choice("abcdef") * rnd.randint(1, 3) for _ in range(n)]
    src = sorted(rnd.choice([0, 1, 2]) for _ in range(n)) if seed % 2 else [rnd.choice([0, 1]) for _ in range(n)]
    seq = list(range(n)) if seed % 3 else [rnd.randint(0, 50) for _ in range(n)]
    table = pa.table({"url": keys, SRC_COLUMN: pa.array(src, pa.int16()), SEQ_COLUMN: pa.array(seq, pa.int64())})
    expected = pc.sort_indices(table, sort_keys=sort_keys("url"))
    assert table.take(sort_order(table, "url")).equals(table.take(expected))
    assert in_tie_order(table) == (seed % 2 == 1 and seed % 3 != 0)


@pytest.mark.parametrize("in_part_order", [False, True])
def test_reduce_tasks_start_in_part_order_when_the_job_asks(tmp_path: Path, monkeypatch, in_part_order: bool) -> None:
    from dataclasses import replace

    from gossamer.engine import local

    started: list[int] = []
    run_reduce = local._run_reduce

    def recording(task, settings, budget):  # type: ignore[no-untyped-def]
        started.append(task.part)
        return run_reduce(task, settings, budget)

    monkeypatch.setattr(local, "_run_reduce", recording)
    monkeypatch.setattr(local, "_reduce_size", lambda task: 10 * task.part)  # largest first: the last part first
    expected = make_lines(tmp_path / "in.txt", 2_000, 5)
    version, _ = run(replace(text_job(tmp_path / "in.txt", parts=6), reduce_in_part_order=in_part_order), tmp_path)
    assert read_all(version) == expected
    assert started == (list(range(6)) if in_part_order else list(reversed(range(6))))
