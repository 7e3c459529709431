"""The Spark engine runs the same jobs as the local engine and writes the same parts (issue 7)."""

from __future__ import annotations

import dataclasses
import importlib
import os
import random
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

pytest.importorskip("pyspark")
if shutil.which("java") is None:
    pytest.skip("Spark needs a Java 17+ runtime (scripts/_venv.sh installs one)", allow_module_level=True)

from gossamer.core import CrawlDatum, CrawlStatus  # noqa: E402
from gossamer.core.settings import Settings, load_settings  # noqa: E402
from gossamer.crawl.linkdb import invert_links  # noqa: E402
from gossamer.engine import Input, Job, JobResult, LocalEngine, TableSource, TextSource, run_job  # noqa: E402
from gossamer.engine.spark import stop_session  # noqa: E402
from gossamer.store import (  # noqa: E402
    ARROW_SUFFIX,
    TableDescription,
    finish_version,
    iter_arrow_part,
    new_staging_dir,
    part_name,
)
from gossamer.store.install import live_version_dir  # noqa: E402
from gossamer.store.location import Location  # noqa: E402
from gossamer.store.place import Place

from . import engine_jobs  # noqa: E402
from .conftest import write_lines  # noqa: E402
from .test_engine import make_lines, text_job  # noqa: E402
from .test_linkdb import write_parse_data  # noqa: E402
from .test_updatedb import write_segment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOW = 1_790_000_000_000


@pytest.fixture(scope="module", autouse=True)
def spark_session() -> Iterator[None]:
    """One local[2] session for the module; Python workers must import ``tests.engine_jobs``."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), saved) if p)
    try:
        yield
    finally:
        stop_session()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


def settings(engine: str, *extra: str) -> Settings:
    return load_settings(overrides=[f"engine={engine}", "spark.master=local[2]", "store.parts=4", *extra])


def run_both(job: Job, tmp: Path, *extra: str) -> tuple[Path, JobResult, Path, JobResult]:
    outputs = []
    for engine in ("local", "spark"):
        out = new_staging_dir(tmp / f"out-{engine}-{job.name}-{len(list(tmp.glob('out-*')))}")
        result = run_job(job, out, settings(engine, *extra))
        finish_version(out, TableDescription(kind="test", parts=job.parts, rows=result.rows,
                                             partitioner=job.partitioner))
        outputs += [out, result]
    return outputs[0], outputs[1], outputs[2], outputs[3]


def assert_same_parts(local: Path, spark: Path) -> None:
    names = sorted(p.name for p in local.glob("part-*.parquet"))
    assert names and names == sorted(p.name for p in spark.glob("part-*.parquet"))
    for name in names:
        a, b = pq.read_table(local / name), pq.read_table(spark / name)
        assert a.equals(b), name  # same rows, same order, in the same part
        assert a.sort_by([("url", "ascending")]).equals(b.sort_by([("url", "ascending")]))


def assert_same_results(local: JobResult, spark: JobResult) -> None:
    assert local.counters == spark.counters
    assert local.errors == spark.errors
    assert local.rows_per_part == spark.rows_per_part


@pytest.mark.parametrize("partitioner", ["host-crc32", "key-crc32"])
def test_generic_job_gives_identical_parts(tmp_path: Path, partitioner: str) -> None:
    lines = tmp_path / "lines.txt"
    make_lines(lines, 20_000, 30)
    job = dataclasses.replace(text_job(lines), partitioner=partitioner)
    assert len(job.inputs[0].source.splits()) > 1
    local, local_result, spark, spark_result = run_both(job, tmp_path, "engine.batch.rows=3000",
                                                        "engine.memory.budget.mb=1")
    assert_same_parts(local, spark)
    assert_same_results(local_result, spark_result)
    assert spark_result.counters["errors"] == 21 and len(spark_result.errors) == 20


def test_copartitioned_input_gives_identical_parts(tmp_path: Path) -> None:
    lines = tmp_path / "lines.txt"
    make_lines(lines, 5_000, 10)
    first = new_staging_dir(tmp_path / "first")
    result = LocalEngine(settings("local")).run(text_job(lines), first)
    finish_version(first, TableDescription(kind="test", parts=4, rows=result.rows))
    job = Job("sum2", [Input(TableSource(str(first)), engine_jobs.map_table, copartitioned=True),
                       Input(TextSource((str(lines),), split_bytes=16 * 1024), engine_jobs.map_lines)],
              engine_jobs.SHUFFLE, engine_jobs.reduce_sum, engine_jobs.OUTPUT, 4)
    local, local_result, spark, spark_result = run_both(job, tmp_path)
    assert_same_parts(local, spark)
    assert_same_results(local_result, spark_result)
    rows = pq.read_table(spark).to_pylist()
    assert rows and all(row["sources"].startswith("0") for row in rows)
    only_side = dataclasses.replace(job, name="side", inputs=job.inputs[:1])  # nothing to shuffle
    local, local_result, spark, spark_result = run_both(only_side, tmp_path)
    assert_same_parts(local, spark)
    assert_same_results(local_result, spark_result)
    assert spark_result.rows == result.rows


def crawldb_version(crawl: Path) -> Path:
    version = live_version_dir(crawl / "crawldb")
    assert version is not None
    return version


def test_inject_and_updatedb_give_identical_crawldbs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inject_module = importlib.import_module("gossamer.crawl.inject.injector")
    updatedb_module = importlib.import_module("gossamer.crawl.updatedb.updater")

    monkeypatch.setattr(inject_module, "now_millis", lambda: NOW)
    monkeypatch.setattr(updatedb_module, "now_millis", lambda: NOW + 1000)
    rng = random.Random(7)
    seeds = [f"http://h{rng.randrange(40)}.example/{i}" for i in range(3000)] + ["not a url", "ftp://"]
    more = [f"http://h{rng.randrange(60)}.example/more/{i}" for i in range(500)] + seeds[:100]
    first, second = write_lines(tmp_path / "seeds.txt", seeds), write_lines(tmp_path / "more.txt", more)
    fetch = [(url, CrawlDatum(CrawlStatus.FETCH_SUCCESS, NOW, 0, 2592000, 1.0)) for url in seeds[:200]]
    fetch += [(url, CrawlDatum(CrawlStatus.FETCH_GONE, NOW, 0, 2592000, 1.0)) for url in seeds[200:260]]
    parse = [(f"http://new{i % 30}.example/x{i}", CrawlDatum(CrawlStatus.LINKED, NOW, 0, 2592000, 0.5))
             for i in range(400)]
    segment = write_segment(tmp_path / "segments", "20261122000000", fetch, parse)
    reports: dict[str, list[dict[str, int]]] = {}
    for engine in ("local", "spark"):
        crawl = tmp_path / engine
        conf = settings(engine)
        created = inject_module.inject(crawl / "crawldb", first, conf)
        merged = inject_module.inject(crawl / "crawldb", second, conf)  # existing crawldb: co-partitioned
        updated = updatedb_module.updatedb(crawl / "crawldb", [segment], conf)
        reports[engine] = [created.counters, merged.counters, updated.counters]
    assert reports["local"] == reports["spark"]
    created, merged, updated = reports["spark"]
    assert (created["urls_injected"], created["errors"], merged["urls_merged"]) == (3000, 2, 100)
    assert updated["urls_updated"] == 660 and updated.get("errors", 0) == 0
    assert_same_parts(crawldb_version(tmp_path / "local"), crawldb_version(tmp_path / "spark"))


@pytest.mark.parametrize("max_count", [-1, 3])
def test_generate_gives_identical_fetch_lists_and_crawldbs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           max_count: int) -> None:
    """Scores tie in large groups: both engines break ties by URL and select (and mark) the same URLs."""
    inject_module = importlib.import_module("gossamer.crawl.inject.injector")
    generate_module = importlib.import_module("gossamer.crawl.generate.generator")
    monkeypatch.setattr(inject_module, "now_millis", lambda: NOW)
    monkeypatch.setattr(generate_module, "now_millis", lambda: NOW + 1000)
    from gossamer.crawl.generate.generator import GenerateOptions, generate

    seeds = write_lines(tmp_path / "seeds.txt", [f"http://h{i % 9}.example/p{i}\tnutch.score={1 + i % 3}"
                                                 for i in range(400)] + ["http://h1.example/logo.gif\tnutch.score=9"])
    lists, counters = {}, {}
    for engine in ("local", "spark"):
        crawl = tmp_path / engine
        conf = settings(engine, f"generate.max.count={max_count}", "crawl.gen.delay=0")
        inject_module.inject(crawl / "crawldb", seeds, conf, inject_module.InjectOptions(filter=False))
        report = generate(crawl / "crawldb", crawl / "segments", conf,
                          GenerateOptions(top_n=25, num_fetchers=2, max_num_segments=3))
        assert report.selected == [25, 25, 25]
        counters[engine] = report.counters
        lists[engine] = [pq.read_table(s / "crawl_generate").select(["url", "fetch_time", "score"]).to_pylist()
                         for s in report.segments]
        assert [p.name for p in (crawl / "crawldb").iterdir() if p.name.startswith("tmp-")] == []
    assert lists["local"] == lists["spark"] and counters["local"] == counters["spark"]
    assert counters["spark"]["urls_filtered"] == 1  # the best-scored URL is looked at, and filtered
    assert_same_parts(crawldb_version(tmp_path / "local"), crawldb_version(tmp_path / "spark"))


def test_invertlinks_gives_identical_linkdbs(tmp_path: Path) -> None:
    rng = random.Random(3)
    pages = [(f"http://s{i % 25}.example/p{i}",
              [(f"http://t{rng.randrange(50)}.example/{rng.randrange(20)}", f"anchor {i}") for _ in range(5)])
             for i in range(600)]
    first = write_parse_data(tmp_path / "segments", "20260101000000", pages[:400], parts=3)
    second = write_parse_data(tmp_path / "segments", "20260102000000", pages[300:], parts=2)
    counters = {}
    for engine in ("local", "spark"):
        linkdb = tmp_path / engine / "linkdb"
        conf = settings(engine)
        created = invert_links(linkdb, [first], conf)
        merged = invert_links(linkdb, [second], conf)  # the existing linkdb is a co-partitioned input
        counters[engine] = [created.counters, merged.counters]
    assert counters["local"] == counters["spark"]
    local, spark = live_version_dir(tmp_path / "local" / "linkdb"), live_version_dir(tmp_path / "spark" / "linkdb")
    assert local is not None and spark is not None
    assert_same_parts(local, spark)


def test_index_actions_are_identical(tmp_path: Path) -> None:
    from gossamer.index.documents import IndexOptions
    from gossamer.index.job import actions_job, index_inputs
    from gossamer.store.table import TableVersion

    from .index_fixtures import Page, make_crawl

    pages = [Page(f"http://s{i % 7}.test/p{i}", f"Page {i}", f"words of page {i} about kettles",
                  outlinks=[(f"http://s{(i + 1) % 7}.test/p{i + 1}", f"link {i}")]) for i in range(60)]
    pages += [Page("http://gone.test/", "Gone", "gone", status=CrawlStatus.FETCH_GONE)]
    crawl, _ = make_crawl(tmp_path / "crawl", pages, index=False)
    segment = next((crawl / "segments").iterdir())
    db = TableVersion(live_version_dir(crawl / "crawldb"))
    links = TableVersion(live_version_dir(crawl / "linkdb"))
    inputs, notes = index_inputs(db, links, [segment])
    assert not notes
    job = actions_job(inputs, IndexOptions(delete_gone=True), 3)
    assert job.partitioner == "key-crc32"
    try:
        local, local_result, spark, spark_result = run_both(job, tmp_path)
    finally:
        db.close()
        links.close()
    assert_same_parts(local, spark)
    assert_same_results(local_result, spark_result)
    assert pq.read_table(spark).num_rows == len(pages)  # an add per page, a delete for the gone one
    # ``index`` stages the same job's actions as Arrow files: the same rows, in every part, on both engines
    staged = dataclasses.replace(job, output_format="arrow")
    db, links = TableVersion(live_version_dir(crawl / "crawldb")), TableVersion(live_version_dir(crawl / "linkdb"))
    try:
        for engine in ("local", "spark"):
            out = new_staging_dir(tmp_path / f"staged-{engine}")
            assert run_job(staged, out, settings(engine)).rows_per_part == local_result.rows_per_part
            for part in range(job.parts):
                rows = pa.Table.from_batches(list(iter_arrow_part(out / part_name(part, ARROW_SUFFIX), 100)),
                                             schema=job.output_schema)
                assert rows.equals(pq.read_table(local / part_name(part))), (engine, part)
    finally:
        db.close()
        links.close()


def test_engine_option_is_short_for_the_setting() -> None:
    from gossamer.cli.common import STATE, extract_defines

    before = list(STATE.defines)
    try:
        rest = extract_defines(["inject", "--engine", "spark", "crawldb", "--engine=local", "seeds"])
        assert rest == ["inject", "crawldb", "seeds"]
        assert STATE.defines[len(before):] == ["engine=spark", "engine=local"]
    finally:
        STATE.defines[:] = before


TIME_VALUED = {"_ngt_", "_fst_", "tstamp", "segment", "warc", "date", "fetch_time", "modified_time", "_warc_",
               "nutch.segment.name", "timestamp", "_rs_"}
"""Fields that hold when a run happened (times, segment names): they differ between two runs."""


def _timeless(value: object) -> object:
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in sorted(value.items()) if k not in TIME_VALUED}
    if isinstance(value, list):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):  # an Arrow map
            return sorted((k, _timeless(v)) for k, v in value if k not in TIME_VALUED)
        return [_timeless(v) for v in value]
    return value


def crawl_contents(crawl: Place, settings: Settings | None = None) -> dict[str, object]:
    """Everything a crawl holds that does not depend on when it ran: crawldb, linkdb and index documents.

    ``crawl`` may be a Location (``s3://…``); its index is then read from a local copy.
    """
    from gossamer.index.cache import IndexCache, local_live_version
    from gossamer.store import open_live
    from tests.test_index import _docs

    tables = {}
    for name in ("crawldb", "linkdb"):
        with open_live(crawl / name) as version:
            rows = [row for batch in version.iter_batches() for row in batch.to_pylist()]
        tables[name] = sorted((_timeless(row) for row in rows), key=lambda row: row["url"])
    index = crawl / "index"
    cache = IndexCache(index, settings or load_settings()) if isinstance(index, Location) else None
    live = local_live_version(index, cache)
    assert live is not None
    tables["index"] = {url: _timeless(doc) for url, doc in sorted(_docs(Path(), live[0]).items())}
    return tables


def _serve_site(site) -> None:
    html = {"Content-Type": "text/html; charset=utf-8"}
    site.route("/robots.txt", body=b"User-agent: *\nDisallow: /private/\n", headers={"Content-Type": "text/plain"})
    words = ["resilient", "distributed", "datasets", "shuffle", "partition", "executor", "driver", "stage"]
    for i in range(24):
        links = " ".join(f"<a href='/p{(i * 7 + k) % 30}.html'>{words[(i + k) % 8]} page {k}</a>" for k in range(3))
        extra = " <a href='/copy-a.html'>copy</a>" if i == 0 else ""  # copy-a: the higher score of the two copies
        body = (f"<html><head><title>Page {i}</title></head><body>{words[i % 8]} {words[(i * 3) % 8]} "
                f"{links} <a href='/private/x.html'>private</a>{extra}</body></html>")
        site.route(f"/p{i}.html", body=body.encode(), headers=html)
    # Two copies of one text, fetched in the same round. dedup's order is score, fetchTime, urlLength; p0's extra
    # link gives copy-a the higher score, so which copy is kept never depends on which one was fetched last.
    copy = b"<html><head><title>Copy</title></head><body>the same text twice</body></html>"
    site.route("/copy-a.html", body=copy, headers=html)
    site.route("/copy-with-longer-url.html", body=copy, headers=html)
    start = " ".join(f"<a href='/p{i}.html'>start {i}</a>" for i in range(0, 24, 4))
    site.route("/", body=f"<html><head><title>Spark home</title></head><body>{start} <a href='/copy-a.html'>a"
                         f"</a> <a href='/copy-with-longer-url.html'>b</a></body></html>".encode(), headers=html)


CRAWL_DEFINES = ("http.agent.name=t", "fetcher.server.delay=0", "linkdb.ignore.internal.links=false",
                 "store.parts=3")
"""Settings of the equivalence crawls: no politeness delay on the test site, internal links kept."""


@contextmanager
def reference_crawl(cli, tmp_path: Path, defines: list[str], rounds: int = 2) -> Iterator[tuple[object, Path]]:
    """Serve the test site and crawl it into ``tmp_path/local`` with the local engine (``--index``).

    Yields the site (still serving) and the seed file, for the crawl to compare with.
    """
    from tests.fetch_server import ThreadedSite

    with ThreadedSite() as site:
        _serve_site(site)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        local = cli("crawl", seeds, "-d", tmp_path / "local", "-r", str(rounds), "--index", *defines)
        assert local.code == 0, local.err
        yield site, seeds


def test_a_crawl_gives_the_same_crawldb_linkdb_and_index_on_both_engines(cli, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """crawl --index (inject, generate, fetch, parse, updatedb, invertlinks, dedup, index) on each engine."""
    from gossamer.engine import spark as spark_engine
    from tests.fetch_server import ThreadedSite

    spark_tasks: list[str] = []
    run_tasks = spark_engine.run_tasks

    def recording_run_tasks(settings, name, function, calls):
        spark_tasks.append(name.split()[0])
        return run_tasks(settings, name, function, calls)

    monkeypatch.setattr(spark_engine, "run_tasks", recording_run_tasks)
    outputs = {}
    with ThreadedSite() as site:
        _serve_site(site)
        seeds = write_lines(tmp_path / "seeds.txt", [site.url("/")])
        for engine, parse in (("local", "true"), ("spark", "false")):  # Spark: fetch, then parse, as tasks
            crawl = tmp_path / engine
            result = cli("crawl", seeds, "-d", crawl, "-r", "3", "--index", "--engine", engine,
                         "-D", f"fetcher.parse={parse}",
                         "-D", "spark.master=local[2]", "-D", "http.agent.name=t", "-D", "fetcher.server.delay=0",
                         "-D", "linkdb.ignore.internal.links=false", "-D", "store.parts=3")
            assert result.code == 0, result.err
            outputs[engine] = (result.out, crawl_contents(crawl))
    (_, local), (spark_out, spark) = outputs["local"], outputs["spark"]
    assert "db_duplicate 1" in spark_out and "Indexer: documents added/replaced" in spark_out
    for name in ("crawldb", "linkdb", "index"):
        assert local[name] == spark[name], name
    assert len(spark["index"]) >= 12 and len(spark["linkdb"]) >= 12
    statuses = {row["url"].rsplit("/", 1)[1]: row["status"] for row in spark["crawldb"]}
    assert (statuses["copy-a.html"], statuses["copy-with-longer-url.html"]) == (2, 7)  # db_fetched, db_duplicate
    assert spark_tasks == ["fetch", "parse"] * 3
    found = cli("search", "-d", tmp_path / "spark", "distributed datasets", "--json")
    assert found.code == 0 and site.url("/p") in found.out


def test_other_spark_properties_are_passed_to_spark() -> None:
    """-D spark.<anything> reaches Spark's configuration; Gossamer's own two stay Gossamer's."""
    from gossamer.engine.spark import spark_properties, spark_session

    conf = settings("spark", "spark.executor.memory=1g", "spark.sql.shuffle.partitions=3")
    assert spark_properties(conf) == {"spark.executor.memory": "1g", "spark.sql.shuffle.partitions": "3"}
    stop_session()  # the next session is created with these settings
    try:
        spark_conf = spark_session(conf, "gossamer-test").sparkContext.getConf()
        assert spark_conf.get("spark.sql.shuffle.partitions") == "3"
        assert spark_conf.get("spark.driver.bindAddress") == "127.0.0.1"
    finally:
        stop_session()
    with pytest.raises(ValueError, match="unknown property 'spark.'"):
        load_settings(overrides=["spark.=1"])


def test_progress_reports_task_counts_while_the_job_runs(tmp_path: Path) -> None:
    """The status tracker's counts reach the progress callback: map tasks, then parts."""
    from gossamer.engine.spark import SparkEngine

    lines = tmp_path / "lines.txt"
    make_lines(lines, 5_000, 10)
    job = text_job(lines)
    seen: list[tuple[str, int, int]] = []
    out = new_staging_dir(tmp_path / "out")
    SparkEngine(settings("spark"), lambda phase, done, total: seen.append((phase, done, total))).run(job, out)
    maps = len(job.inputs[0].source.splits())
    assert seen[0] == ("map", 0, maps) and seen[-1] == ("reduce", job.parts, job.parts)
    assert all(0 <= done <= total for _, done, total in seen)
    assert {phase for phase, _, _ in seen} == {"map", "reduce"}


def test_stage_progress_reads_the_stages_of_its_job_group() -> None:
    from gossamer.engine.spark import spark_session
    from gossamer.engine.spark_progress import StageProgress

    context = spark_session(settings("spark"), "gossamer-test").sparkContext
    seen: list[tuple[str, int, int]] = []
    with StageProgress(context, "test", lambda *args: seen.append(args), interval=60) as watcher:
        context.parallelize(range(100), 5).map(lambda x: (x % 3, x)).reduceByKey(lambda a, b: a + b, 2).collect()
        watcher.poll_once(context.statusTracker())
    assert seen == [("map", 5, 5), ("reduce", 2, 2)]
