"""The ``updatedb`` benchmark: update a 10M-URL crawldb with a segment of 200k fetches and 2M outlinks.

Steps, all in a fresh temporary directory and each measured by :mod:`bench.measure`:

1. generate the seed file (``python -m bench.synthetic``, measured separately, not a step);
2. ``inject``: ``gossamer inject <work>/crawl/crawldb <seeds>`` builds the crawldb (setup);
3. ``make_segment``: ``python -m bench.updatedb_bench make-segment`` writes one segment with the
   real schema and partitioning (:class:`gossamer.store.segments.SegmentWriter`, by host):

   * ``crawl_fetch``: one fetch datum for each of ``fetched`` crawldb URLs drawn at random — about
     92% ``fetch_success``, 3% ``fetch_gone``, 3% ``fetch_retry``, 1% each ``fetch_redir_perm`` /
     ``fetch_redir_temp`` — carrying the crawldb row's score, interval and retries and the metadata
     the fetcher writes (``_ngt_``, ``_pst_``, ``nutch.protocol.code``, ``Content-Type``, ``_rs_``);
   * ``crawl_parse``: a ``signature`` datum (MD5) per successful fetch plus ``outlinks`` ``linked``
     datums (score 0.125 each): half point into the crawldb (a random pool of ``outlinks/2`` crawldb
     URLs, drawn with a skew so popular pages repeat), half to new URLs on the same hosts
     (:func:`bench.synthetic.new_urls`, a pool of ``outlinks/2``, same skew);

   it prints what the update must produce: the expected total and status counts;
4. ``duckdb_merge``: the peer baseline — one DuckDB SQL statement (``memory_limit='1GB'``,
   ``threads=2``, as the inject baseline) reading the same Parquet files: the segment rows
   aggregated per URL (latest fetch status, signature, sum and count of inlink scores), a full
   outer join with the crawldb, the new status from the fetch (Nutch's transitions), scores plus
   inlink scores, new URLs added as ``db_unfetched``, written as one zstd Parquet file sorted by
   URL (:data:`DUCKDB_SCRIPT`);
5. ``updatedb``: ``gossamer updatedb <crawldb> <segment>``;
6. ``readdb_after_update``: ``gossamer readdb <crawldb> -stats``;
7. ``duckdb_stats``: row and status counts of the DuckDB output (for the checks).

Checks: the new crawldb and the DuckDB output both hold the expected number of URLs and the
expected count of every status, their average scores agree, and updatedb reports as ``unchanged``
exactly the crawldb URLs the segment does not mention. Goals: ``updatedb`` faster (wall) than the
DuckDB merge, and its peak memory (max of sampled tree RSS and single-process max RSS) under 2 GB.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import MB, REPO_ROOT, BenchOptions
from bench.duckdb_baseline import CONNECT
from bench.inject_bench import dir_size, gossamer_executable, total_urls
from bench.measure import Measurement, run_measured
from bench.steps import StepRunner, work_dir

NAME: str = "updatedb"
DESCRIPTION: str = "update a 10M-URL crawldb with 200k fetches + 2M outlinks; DuckDB full-merge baseline"
DEFAULT_URLS, DEFAULT_HOSTS = 10_000_000, 100_000
QUICK_URLS, QUICK_HOSTS = 200_000, 2_000
FETCHED_PER_URL: float = 0.02  # 200k of 10M
OUTLINKS_PER_URL: float = 0.2  # 2M for 10M
SEGMENT_PARTS: int = 2  # generate -numFetchers 2: one fetch list per core
LINK_SCORE: float = 0.125  # exact in binary, so score sums agree exactly
MEMORY_GOAL_MB: float = 2 * 1024
ROUNDS: int = 3  # DuckDB merge and updatedb, interleaved; ratios are medians over the rounds
DUCKDB_MEMORY_LIMIT: str = "1GB"
DUCKDB_THREADS: int = 2
FETCH_MIX: tuple[tuple[int, int], ...] = ((0x21, 92), (0x25, 3), (0x22, 3), (0x24, 1), (0x23, 1))
"""(fetch status, weight): success, gone, retry, redir_perm, redir_temp."""
RETRY_MAX: int = 3  # db.fetch.retry.max
STATUS_NAMES: dict[int, str] = {1: "db_unfetched", 2: "db_fetched", 3: "db_gone", 4: "db_redir_temp",
                                 5: "db_redir_perm", 6: "db_notmodified", 7: "db_duplicate", 8: "db_orphan",
                                 9: "db_parse_failed"}

DUCKDB_SCRIPT: str = r"""
import os, sys, duckdb
crawldb, segment, out_dir, temp_dir, memory_limit, threads, now_ms = sys.argv[1:8]
""" + CONNECT + r"""
db = lit(os.path.join(crawldb, "*.parquet"))
seg = "[" + lit(os.path.join(segment, "crawl_fetch", "*.parquet")) + ", " + \
      lit(os.path.join(segment, "crawl_parse", "*.parquet")) + "]"
out = lit(os.path.join(out_dir, "part-00000.parquet"))
rows = con.execute(f'''
COPY (
  WITH seg AS (
    SELECT url, any_value(host) AS host,
      arg_max(status, fetch_time) FILTER (WHERE status BETWEEN 33 AND 63) AS f_status,
      max(fetch_time) FILTER (WHERE status BETWEEN 33 AND 63) AS f_time,
      arg_max(metadata, fetch_time) FILTER (WHERE status BETWEEN 33 AND 63) AS f_meta,
      any_value(signature) FILTER (WHERE status = 65) AS sig,
      sum(score) FILTER (WHERE status = 67) AS inlink_score,
      count(*) FILTER (WHERE status = 67) AS inlinks,
      any_value(fetch_interval) FILTER (WHERE status = 67) AS l_interval
    FROM read_parquet({seg})
    GROUP BY url
  )
  SELECT
    coalesce(c.url, s.url) AS url,
    coalesce(c.host, s.host) AS host,
    CAST(CASE s.f_status
      WHEN 33 THEN 2 WHEN 35 THEN 4 WHEN 36 THEN 5 WHEN 37 THEN 3 WHEN 38 THEN 6
      WHEN 34 THEN CASE WHEN coalesce(c.retries, 0) + 1 < 3 THEN 1 ELSE 3 END
      ELSE coalesce(c.status, 1) END AS UTINYINT) AS status,
    CASE
      WHEN s.f_status = 34 THEN s.f_time + INTERVAL 1 DAY
      WHEN s.f_status = 37 THEN s.f_time + to_seconds(CAST(c.fetch_interval * 1.5 AS BIGINT))
      WHEN s.f_status IS NOT NULL THEN s.f_time + to_seconds(c.fetch_interval)
      WHEN c.url IS NULL THEN make_timestamptz({int(now_ms)} * 1000)
      ELSE c.fetch_time END AS fetch_time,
    CAST(CASE WHEN s.f_status = 34 THEN c.retries + 1
              WHEN s.f_status IN (33, 35, 36, 38) THEN 0
              ELSE coalesce(c.retries, 0) END AS SMALLINT) AS retries,
    CAST(CASE WHEN s.f_status = 37 THEN c.fetch_interval * 1.5
              ELSE coalesce(c.fetch_interval, s.l_interval) END AS INTEGER) AS fetch_interval,
    CAST(coalesce(c.score, 0) + coalesce(s.inlink_score, 0) AS FLOAT) AS score,
    CASE WHEN s.f_status IN (33, 35, 36) THEN coalesce(s.sig, c.signature) ELSE c.signature END AS signature,
    coalesce(c.modified_time, make_timestamptz(0)) AS modified_time,
    CASE WHEN s.f_meta IS NULL THEN c.metadata WHEN c.metadata IS NULL THEN s.f_meta
         ELSE map_concat(c.metadata, s.f_meta) END AS metadata
  FROM read_parquet({db}) AS c
  FULL OUTER JOIN seg AS s ON c.url = s.url
  WHERE c.url IS NOT NULL OR s.inlinks > 0
  ORDER BY url
) TO {out} (FORMAT parquet, COMPRESSION zstd)
''').fetchone()[0]
print(f"ROWS\t{rows}")
"""


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[updatedb] {message}", file=sys.stderr, flush=True)


def duckdb_argv(python: str, crawldb_version: Path, segment: Path, out_dir: Path, temp_dir: Path,
                now_ms: int) -> list[str]:
    """The command line of the DuckDB merge baseline, run by ``python`` (which has duckdb)."""
    return [python, "-c", DUCKDB_SCRIPT, str(crawldb_version), str(segment), str(out_dir), str(temp_dir),
            DUCKDB_MEMORY_LIMIT, str(DUCKDB_THREADS), str(now_ms)]


# --- the segment ---------------------------------------------------------------------------------


def _skewed(rng: random.Random, pool: int, draws: int) -> list[int]:
    """``draws`` indices into ``range(pool)``, index ``i`` drawn with density ~ 1/sqrt(i) (repeats)."""
    return [int(pool * rng.random() ** 2) for _ in range(draws)]


def _sample_crawldb(version_dir: Path, picks: dict[str, list[int]]) -> dict[str, Any]:
    """Rows of the crawldb at the given global row numbers (part order, then row order), per name.

    Returns, per name, a table of ``url``, ``status``, ``retries``, ``fetch_interval``, ``score`` in
    the order of the sorted row numbers; part by part, so memory stays at one part.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    from gossamer.store.table import TableVersion

    columns = ["url", "status", "retries", "fetch_interval", "score"]
    wanted = {name: sorted(rows) for name, rows in picks.items()}
    pieces: dict[str, list[Any]] = {name: [] for name in picks}
    cursor = dict.fromkeys(picks, 0)
    base = 0
    with TableVersion(version_dir) as version:
        for part in range(version.parts):
            table = pq.read_table(version.part_locator(part), columns=columns)
            end = base + table.num_rows
            for name, rows in wanted.items():
                lo = cursor[name]
                hi = lo
                while hi < len(rows) and rows[hi] < end:
                    hi += 1
                if hi > lo:
                    pieces[name].append(table.take(pa.array([r - base for r in rows[lo:hi]], pa.int64())))
                cursor[name] = hi
            base = end
    return {name: pa.concat_tables(p) if p else None for name, p in pieces.items()}


def _table(columns: dict[str, Any]) -> Any:
    """A crawldb-schema table from column values (``host`` derived from ``url``)."""
    import pyarrow as pa

    from gossamer.store.crawldb_schema import CRAWLDB_SCHEMA
    from gossamer.store.partitioning import hosts_of

    url = pa.array(columns["url"], pa.string()) if not isinstance(columns["url"], pa.Array) else columns["url"]
    arrays = []
    for field in CRAWLDB_SCHEMA:
        if field.name == "url":
            arrays.append(url)
        elif field.name == "host":
            arrays.append(hosts_of(url))
        else:
            value = columns[field.name]
            arrays.append(value.cast(field.type) if isinstance(value, pa.Array | pa.ChunkedArray)
                          else pa.array(value, field.type))
    return pa.Table.from_arrays(arrays, schema=CRAWLDB_SCHEMA)


def make_segment(crawldb: Path, segments_dir: Path, urls: int, hosts: int, fetched: int, outlinks: int,
                 seed: int) -> dict[str, Any]:
    """Write the benchmark's segment into ``segments_dir`` (see the module docstring); return its facts."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from bench.synthetic import new_urls
    from gossamer.core.datum import now_millis
    from gossamer.store import TableVersion, live_version_dir
    from gossamer.store.segments import SegmentWriter, new_segment_name, partition_key_function

    started = time.perf_counter()
    rng = random.Random(seed * 1_000_003 + 7)
    version_dir = live_version_dir(crawldb)
    if version_dir is None:
        raise SystemExit(f"{crawldb}: no crawldb")
    with TableVersion(version_dir) as version:
        total = version.num_rows()
        before = Counter[int]()
        for part in range(version.parts):
            counts = pq.read_table(version.part_locator(part), columns=["status"]).column("status").value_counts()
            before.update({c["values"]: c["counts"] for c in counts.to_pylist()})
    fetched = min(fetched, total)
    old_links, new_links = outlinks - outlinks // 2, outlinks // 2
    old_pool_size = min(max(old_links // 2, 1), total)
    new_pool_size = max(new_links // 2, 1)
    fetch_rows = rng.sample(range(total), fetched)
    pool_rows = rng.sample(range(total), old_pool_size)
    sampled = _sample_crawldb(version_dir, {"fetch": fetch_rows, "pool": pool_rows})
    fetch_db, pool_db = sampled["fetch"], sampled["pool"]

    # crawl_fetch
    now = now_millis()
    weights = [w for _, w in FETCH_MIX]
    statuses = rng.choices([s for s, _ in FETCH_MIX], weights, k=fetched)
    fetch_times = [now - rng.randrange(3_600_000) for _ in range(fetched)]
    generated = str(now - 7_200_000)
    texts = {0x21: ("success(1), lastModified=0", "200"), 0x25: ("notfound(14), lastModified=0", "404"),
             0x22: ("exception(16), lastModified=0: timeout", "500"),
             0x24: ("moved(12), lastModified=0: http://elsewhere.example/", "301"),
             0x23: ("temp_moved(13), lastModified=0: http://elsewhere.example/", "302")}
    metadata = [[("_ngt_", generated), ("_pst_", texts[s][0]), ("nutch.protocol.code", texts[s][1]),
                 ("Content-Type", "text/html"), ("_rs_", str(50 + i % 400))] for i, s in enumerate(statuses)]
    fetch_urls = fetch_db.column("url").combine_chunks() if fetched else pa.array([], pa.string())
    fetch_table = _table({
        "url": fetch_urls, "status": statuses, "fetch_time": fetch_times,
        "retries": fetch_db.column("retries"), "fetch_interval": fetch_db.column("fetch_interval"),
        "score": fetch_db.column("score"), "signature": [None] * fetched, "modified_time": [0] * fetched,
        "metadata": metadata,
    })

    # crawl_parse: signatures of successful fetches, then outlinks
    fetch_url_list = fetch_urls.to_pylist()
    success = [u for u, s in zip(fetch_url_list, statuses, strict=True) if s == 0x21]
    signatures = _table({
        "url": success, "status": [0x41] * len(success), "fetch_time": [now] * len(success),
        "retries": [0] * len(success), "fetch_interval": [0] * len(success), "score": [0.0] * len(success),
        "signature": [hashlib.md5(u.encode()).digest() for u in success], "modified_time": [0] * len(success),
        "metadata": [None] * len(success),
    })
    pool_urls = pool_db.column("url").combine_chunks()
    old_targets = pool_urls.take(pa.array(_skewed(rng, old_pool_size, old_links), pa.int64()))
    new_pool = new_urls(urls, new_pool_size, hosts, seed=seed, draw_seed=seed * 1_000_003 + 11)
    new_targets = new_pool.take(pa.array(_skewed(rng, new_pool_size, new_links), pa.int64()))
    targets = pa.concat_arrays([old_targets, new_targets])
    order = list(range(len(targets)))
    rng.shuffle(order)  # outlinks arrive mixed, page after page
    targets = targets.take(pa.array(order, pa.int64()))
    n = len(targets)
    linked = _table({
        "url": targets, "status": [0x43] * n, "fetch_time": [now] * n, "retries": [0] * n,
        "fetch_interval": [2_592_000] * n, "score": [LINK_SCORE] * n, "signature": [None] * n,
        "modified_time": [0] * n, "metadata": [None] * n,
    })
    parse_table = pa.concat_tables([signatures, linked])

    segments_dir.mkdir(parents=True, exist_ok=True)
    writer = SegmentWriter(segments_dir, new_segment_name(segments_dir))
    key = partition_key_function("byHost")
    try:
        for sub, table in (("crawl_fetch", fetch_table), ("crawl_parse", parse_table)):
            writer.write_table(sub, table, SEGMENT_PARTS, key, 16384, "zstd", sub)
        segment = writer.commit()
    except BaseException:
        writer.abort()
        raise

    # What the update must produce.
    fetched_set = set(fetch_url_list)
    old_distinct = set(old_targets.to_pylist())
    new_distinct = len(set(new_targets.to_pylist()))
    expected = Counter(before)
    retries = fetch_db.column("retries").to_pylist()
    old_status = fetch_db.column("status").to_pylist()
    for status, old, tries in zip(statuses, old_status, retries, strict=True):
        expected[old] -= 1
        new = {0x21: 2, 0x25: 3, 0x24: 5, 0x23: 4}.get(status)
        expected[new if new is not None else (1 if tries + 1 < RETRY_MAX else 3)] += 1
    expected[1] += new_distinct
    return {
        "segment": str(segment),
        "now_ms": now,
        "crawldb_urls": total,
        "fetched": fetched,
        "fetch_statuses": {f"0x{s:02x}": c for s, c in sorted(Counter(statuses).items())},
        "signatures": len(success),
        "outlinks": n,
        "outlinks_to_crawldb": old_links,
        "outlinks_to_new": new_links,
        "distinct_crawldb_targets": len(old_distinct),
        "distinct_new_targets": new_distinct,
        "crawldb_urls_touched": len(fetched_set | old_distinct),
        "expected_unchanged": total - len(fetched_set | old_distinct),
        "expected_total_urls": total + new_distinct,
        "expected_status": {STATUS_NAMES.get(s, str(s)): c for s, c in sorted(expected.items()) if c},
        "seconds": round(time.perf_counter() - started, 3),
    }


def parquet_stats(directory: Path) -> dict[str, Any]:
    """Rows, status counts (by name) and average score of the Parquet files in ``directory``."""
    import duckdb

    con = duckdb.connect()
    files = "'" + str(directory / "*.parquet").replace("'", "''") + "'"
    rows = con.execute(f"SELECT status, count(*), sum(score) FROM read_parquet({files}) GROUP BY 1").fetchall()
    total = sum(r[1] for r in rows)
    return {
        "rows": total,
        "status": {STATUS_NAMES.get(s, str(s)): c for s, c, _ in sorted(rows)},
        "avg_score": sum(r[2] for r in rows) / total if total else None,
    }


# --- the run -------------------------------------------------------------------------------------


def stats_status(stats_stdout: str) -> dict[str, int]:
    """``{status name: count}`` from ``readdb -stats`` output (``status 1 (db_unfetched):\\t<n>``)."""
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^status \d+ \((\w+)\):\t(\d+)\s*$", stats_stdout, re.MULTILINE)}


def stats_avg_score(stats_stdout: str) -> float | None:
    """The ``avg score:`` value of ``readdb -stats`` output."""
    match = re.search(r"^avg score:\t(\S+)\s*$", stats_stdout, re.MULTILINE)
    return float(match.group(1)) if match else None


def update_counters(stdout: str) -> dict[str, int]:
    """The counters ``gossamer updatedb`` prints (``URLs updated: n, unchanged: n, …``)."""
    found = re.search(r"URLs updated: (\d+), unchanged: (\d+), dropped: (\d+)", stdout)
    if not found:
        return {}
    return dict(zip(("updated", "unchanged", "dropped"), map(int, found.groups()), strict=True))


def _ratio(steps: dict[str, dict[str, Any]], num: str, den: str, key: str) -> float | None:
    a, b = steps.get(num, {}), steps.get(den, {})
    if "error" in a or "error" in b or not a.get(key) or not b.get(key):
        return None
    return round(a[key] / b[key], 3)


def _peak_mb(step: dict[str, Any]) -> float | None:
    if "peak_tree_rss_bytes" not in step:
        return None
    return max(step["peak_tree_rss_bytes"], step["max_process_rss_bytes"]) / MB


def _median(values: list[float | None]) -> float | None:
    """Median of the values (None if any is missing: a failed round)."""
    if not values or any(v is None for v in values):
        return None
    return round(statistics.median(v for v in values if v is not None), 3)


def _rounds_summary(steps: dict[str, dict[str, Any]], rounds: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Per-round ratios and the summary ratios (median over rounds; memory: peaks over all rounds)."""
    per_round = {
        key: [_ratio(steps, f"updatedb_{k}", f"duckdb_merge_{k}", key) for k in range(1, rounds + 1)]
        for key in ("wall_s", "cpu_s")
    }
    peaks = {name: [_peak_mb(steps.get(f"{name}_{k}", {})) for k in range(1, rounds + 1)]
             for name in ("updatedb", "duckdb_merge")}
    ours, theirs = peaks["updatedb"], peaks["duckdb_merge"]
    ours_max = max((v for v in ours if v is not None), default=None)
    theirs_max = max((v for v in theirs if v is not None), default=None)
    peak_ratio = round(ours_max / theirs_max, 3) if ours_max and theirs_max and None not in ours + theirs else None
    ratios = {
        "updatedb_wall_vs_duckdb": _median(per_round["wall_s"]),
        "updatedb_cpu_vs_duckdb": _median(per_round["cpu_s"]),
        "updatedb_peak_rss_vs_duckdb": peak_ratio,
    }
    return ratios, {"wall_ratio": per_round["wall_s"], "cpu_ratio": per_round["cpu_s"],
                    "updatedb_peak_mb": [round(v, 1) if v is not None else None for v in ours],
                    "duckdb_peak_mb": [round(v, 1) if v is not None else None for v in theirs]}


def _goals(steps: dict[str, dict[str, Any]], ratios: dict[str, Any], rounds: int,
           full_size: bool) -> list[dict[str, Any]]:
    names = [f"updatedb_{k}" for k in range(1, rounds + 1)]
    complete = all(name in steps and "error" not in steps[name] for name in names)
    peaks = [p for p in (_peak_mb(steps.get(name, {})) for name in names) if p is not None]
    peak = max(peaks) if peaks else None
    goals: list[dict[str, Any]] = []
    speed = ratios["updatedb_wall_vs_duckdb"]
    if full_size:
        goals.append({"goal": "updatedb faster than the DuckDB merge (median wall ratio < 1)", "ratio": speed,
                      "met": complete and speed is not None and speed < 1.0})
    goals.append({"goal": "updatedb peak memory under 2 GB", "limit_mb": MEMORY_GOAL_MB,
                  "value_mb": round(peak, 1) if peak is not None else None,
                  "met": complete and peak is not None and peak < MEMORY_GOAL_MB})
    return goals


def _restore(pristine: Path, crawldb: Path) -> None:
    """Make ``crawldb`` the pristine crawldb again (hard links: table files are never edited in place)."""
    shutil.rmtree(crawldb, ignore_errors=True)
    shutil.copytree(pristine, crawldb, copy_function=os.link)


@dataclass(frozen=True)
class Inputs:
    """The synthetic inputs shared by the updatedb and spark benchmarks, and where they go."""

    seeds: Path
    generated: dict[str, Any]  # bench.synthetic's report, plus "measured"
    good: int
    crawldb: Path
    pristine: Path
    segments: Path
    fetched: int
    outlinks: int


def prepare_inputs(work: Path, urls: int, hosts: int, opts: BenchOptions,
                   progress: Callable[[str], None]) -> Inputs:
    """Write the synthetic seed file (measured) and lay out the crawl directories under ``work``."""
    seeds = work / "seeds" / "seeds.txt"
    seeds.parent.mkdir(parents=True)
    progress(f"generating {urls:,} URLs over {hosts:,} hosts into {seeds}")
    gen_run = run_measured([sys.executable, "-m", "bench.synthetic", str(seeds), str(urls), str(hosts),
                            "--seed", str(opts.seed)], log_dir=work / "logs", name="generate", cwd=REPO_ROOT)
    gen = json.loads(gen_run.stdout)
    good = gen["good_urls"]
    crawldb = work / "crawl" / "crawldb"
    crawldb.parent.mkdir(parents=True)
    return Inputs(seeds, {**gen, "measured": gen_run.summary(good)}, good, crawldb, work / "crawldb-before-update",
                  work / "crawl" / "segments", max(1, round(good * FETCHED_PER_URL)),
                  max(2, round(good * OUTLINKS_PER_URL)))


def _run_in(work: Path, urls: int, hosts: int, opts: BenchOptions) -> dict[str, Any]:
    inputs = prepare_inputs(work, urls, hosts, opts, log)
    seeds, good, crawldb, pristine, segments = (inputs.seeds, inputs.good, inputs.crawldb, inputs.pristine,
                                                inputs.segments)
    fetched, outlinks = inputs.fetched, inputs.outlinks
    run = StepRunner(work / "logs", good, log)
    gossamer = gossamer_executable()
    result: dict[str, Any] = {
        "benchmark": NAME,
        "params": {"urls": urls, "hosts": hosts, "fetched": fetched, "outlinks": outlinks,
                   "segment_parts": SEGMENT_PARTS, "rounds": ROUNDS, "seed": opts.seed, "quick": opts.quick,
                   "gossamer": gossamer, "workdir": str(work) if opts.keep else None},
        "generate": inputs.generated,
    }
    segment_facts: dict[str, Any] = {}
    if run.step("inject", [gossamer, "inject", str(crawldb), str(seeds)]) is not None:
        made = run.step("make_segment", [sys.executable, "-m", "bench.updatedb_bench", "make-segment",
                                         str(crawldb), str(segments), str(urls), str(hosts), str(fetched),
                                         str(outlinks), "--seed", str(opts.seed)])
        segment_facts = json.loads(made.stdout) if made is not None else {}
    updates: list[Measurement | None] = []
    stats: Measurement | None = None
    ddb_stats: dict[str, Any] = {}
    if segment_facts:
        segment = Path(segment_facts["segment"])
        shutil.move(crawldb, pristine)
        ddb_out = work / "duckdb_out"
        ddb_argv = duckdb_argv(sys.executable, pristine / "current", segment, ddb_out, work / "duckdb_tmp",
                               segment_facts["now_ms"])
        update_argv = [gossamer, "updatedb", str(crawldb), str(segment)]
        ddb: Measurement | None = None
        for k in range(1, ROUNDS + 1):  # interleaved, alternating who goes first: fair on a noisy machine
            _restore(pristine, crawldb)
            shutil.rmtree(ddb_out, ignore_errors=True)
            if k % 2:
                ddb = run.step(f"duckdb_merge_{k}", ddb_argv)
                updates.append(run.step(f"updatedb_{k}", update_argv))
            else:
                updates.append(run.step(f"updatedb_{k}", update_argv))
                ddb = run.step(f"duckdb_merge_{k}", ddb_argv)
        if updates[-1] is not None:
            stats = run.step("readdb_after_update", [gossamer, "readdb", str(crawldb), "-stats"])
        if ddb is not None:
            counted = run.step("duckdb_stats", [sys.executable, "-m", "bench.updatedb_bench", "stats",
                                                str(ddb_out)])
            ddb_stats = json.loads(counted.stdout) if counted is not None else {}
        result["sizes"] = {"crawldb_before": dir_size(pristine / "current"),
                           "crawldb_after": dir_size(crawldb / "current"), "segment": dir_size(segment),
                           "duckdb_parquet": dir_size(ddb_out)}
    _check(run, segment_facts, updates, stats, ddb_stats)
    steps = run.steps
    ratios, rounds = _rounds_summary(steps, ROUNDS)
    result.update({
        "segment": segment_facts,
        "steps": steps,
        "updatedb_counters": [update_counters(m.stdout) if m else None for m in updates],
        "duckdb_output": ddb_stats or None,
        "ratios": ratios,
        "rounds": rounds,
        "checks": run.checks,
        "goals": _goals(steps, ratios, ROUNDS, urls >= DEFAULT_URLS),
    })
    return result


def _check(run: StepRunner, facts: dict[str, Any], updates: list[Measurement | None], stats: Measurement | None,
           ddb: dict[str, Any]) -> None:
    """Record the checks on the outputs of updatedb and of the DuckDB merge."""
    expected_total = facts.get("expected_total_urls")
    expected_status = facts.get("expected_status")
    got = total_urls(stats.stdout) if stats else None
    run.check("updatedb_total_urls", got is not None and got == expected_total,
              f"expected {expected_total}, got {got}")
    got_status = stats_status(stats.stdout) if stats else None
    run.check("updatedb_status_counts", got_status is not None and got_status == expected_status,
              f"expected {expected_status}, got {got_status}")
    unchanged = [update_counters(m.stdout).get("unchanged") if m else None for m in updates]
    expected_unchanged = facts.get("expected_unchanged")
    run.check("updatedb_unchanged", bool(unchanged) and all(u == expected_unchanged for u in unchanged),
              f"expected {expected_unchanged} crawldb URLs untouched by the segment (copied without Python) "
              f"in every round, got {unchanged}")
    run.check("duckdb_rows", ddb.get("rows") == expected_total, f"expected {expected_total}, got {ddb.get('rows')}")
    run.check("duckdb_status_counts", ddb.get("status") == expected_status,
              f"expected {expected_status}, got {ddb.get('status')}")
    ours, theirs = (stats_avg_score(stats.stdout) if stats else None), ddb.get("avg_score")
    agree = ours is not None and theirs is not None and abs(ours - theirs) <= 1e-4 * max(1.0, abs(theirs))
    run.check("avg_score_agrees", agree, f"updatedb {ours}, DuckDB {theirs}")


def bench_size(opts: BenchOptions) -> tuple[int, int]:
    """(URLs, hosts) of the synthetic crawldb: the options', else the quick or full defaults."""
    urls = opts.urls if opts.urls is not None else (QUICK_URLS if opts.quick else DEFAULT_URLS)
    hosts = opts.hosts if opts.hosts is not None else (QUICK_HOSTS if opts.quick else DEFAULT_HOSTS)
    return urls, hosts


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the benchmark in a fresh directory under ``opts.workdir``; return the result dict."""
    urls, hosts = bench_size(opts)
    with work_dir(opts, "updatedb", log) as work:
        return _run_in(work, urls, hosts, opts)


def main(argv: list[str] | None = None) -> int:
    """Helpers run as measured subprocesses: ``make-segment`` and ``stats`` (each prints JSON)."""
    p = argparse.ArgumentParser(prog="python -m bench.updatedb_bench")
    sub = p.add_subparsers(dest="command", required=True)
    seg = sub.add_parser("make-segment", help="write the benchmark segment for a crawldb")
    seg.add_argument("crawldb", type=Path)
    seg.add_argument("segments_dir", type=Path)
    seg.add_argument("urls", type=int, help="URL count of the seed file the crawldb was injected from")
    seg.add_argument("hosts", type=int)
    seg.add_argument("fetched", type=int)
    seg.add_argument("outlinks", type=int)
    seg.add_argument("--seed", type=int, default=42)
    st = sub.add_parser("stats", help="rows, status counts and average score of a Parquet directory")
    st.add_argument("directory", type=Path)
    args = p.parse_args(argv)
    if args.command == "make-segment":
        facts = make_segment(args.crawldb, args.segments_dir, args.urls, args.hosts, args.fetched,
                             args.outlinks, args.seed)
    else:
        facts = parquet_stats(args.directory)
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
