"""The ``spark`` benchmark: ``gossamer updatedb`` on the local engine against the Spark engine.

Same synthetic inputs as the ``updatedb`` benchmark (its builders are imported, not copied): a
crawldb injected from ``bench.synthetic`` seeds (10M URLs over 100k hosts; ``--quick``: 200k over
2k) and one segment written by ``python -m bench.updatedb_bench make-segment`` (2% fetched, 20%
outlinks). Steps, each measured by :mod:`bench.measure` (wall, CPU of the whole process tree — the
JVM and Spark's Python workers included —, peak tree RSS):

1. ``inject``, ``make_segment``: setup, local engine, not compared;
2. ``spark_startup``: a trivial Spark job in a fresh process (``spark_session`` of
   :mod:`gossamer.engine.spark` with ``local[2]``, ``parallelize(range(2), 2).map(...).sum()``, stop):
   the fixed cost of a JVM, a Spark context and Spark's Python worker daemon;
3. ``ROUNDS`` interleaved rounds of ``updatedb_local_<k>`` (``gossamer updatedb <crawldb> <segment>``)
   and ``updatedb_spark_<k>`` (the same with ``--engine spark -D spark.master=local[2]
   -D spark.log.level=INFO``; who goes first alternates; the crawldb is restored from a hard-linked
   copy before every run). INFO logging adds a few hundred stderr lines; they give Spark's own
   stage and task times (``DAGScheduler`` / ``TaskSetManager`` lines) for ``spark_phases``;
4. ``compare``: ``python -m bench.spark_bench compare`` on the last output of each engine: part by
   part equality of every column (pyarrow) — except ``fetch_time`` of the URLs the update added,
   which updatedb sets to the run's own clock (one value per run) —, rows and counts per status, and
   a SHA-256 over ``url\\tstatus\\tscore`` in crawldb order (parts in order, rows sorted by URL
   within a part).

Every ``updatedb_*`` and ``spark_startup`` step runs under :data:`REAP_SCRIPT` so that the JVM's
CPU is counted (PySpark never waits for it) and the CPU of the Python workers, which PySpark's
daemon leaves to the kernel to reap (SIGCHLD ignored: their rusage is dropped), is sampled and
added to ``cpu_s`` (``cpu_s_rusage`` keeps the kernel's number).

5. ``generate_<engine>_<k>``: generate on the injected crawldb, both engines interleaved
   (:mod:`bench.spark_generate`); the fetch lists must be identical.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from bench import MB, BenchOptions
from bench.inject_bench import dir_size, gossamer_executable
from bench.measure import Measurement
from bench.spark_generate import generate_rounds
from bench.steps import StepRunner, work_dir
from bench.updatedb_bench import (
    STATUS_NAMES,
    _restore,
    bench_size,
    prepare_inputs,
    update_counters,
)

NAME: str = "spark"
DESCRIPTION: str = ("updatedb and generate on the updatedb benchmark's inputs: local engine vs Spark local[2]; "
                     "same rows, same fetch lists")
SPARK_MASTER: str = "local[2]"
ROUNDS: int = 2  # local and spark interleaved, first mover alternating; ratios are medians
STARTUP_SCRIPT: str = r"""
import json, sys, time
t0 = time.perf_counter()
from gossamer.core.settings import load_settings
from gossamer.engine.spark import spark_session, stop_session
t1 = time.perf_counter()
session = spark_session(load_settings(overrides=["spark.master=" + sys.argv[1]]), "gossamer-bench-startup")
t2 = time.perf_counter()
total = session.sparkContext.parallelize(range(2), 2).map(lambda x: x + 1).sum()
t3 = time.perf_counter()
stop_session()
t4 = time.perf_counter()
print(json.dumps({"import_s": round(t1 - t0, 3), "session_s": round(t2 - t1, 3),
                  "first_job_s": round(t3 - t2, 3), "stop_s": round(t4 - t3, 3), "result": total}))
"""

REAP_SCRIPT: str = r"""
import ctypes, os, signal, subprocess, sys, time
from bench.measure import process_tree
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: orphans become ours
TICK, SIGCHLD_BIT, me = os.sysconf("SC_CLK_TCK"), 1 << (signal.SIGCHLD - 1), os.getpid()
lost = {}  # pid -> last sampled CPU s of processes whose parent ignores SIGCHLD (auto-reaped)

def ignores_sigchld(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("SigIgn:"):
                return bool(int(line.split()[1], 16) & SIGCHLD_BIT)
    except OSError:
        pass
    return False

def sample():
    for pid in process_tree(me)[1:]:
        try:
            stat = open(f"/proc/{pid}/stat").read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if pid in lost or ignores_sigchld(int(fields[1])):
            lost[pid] = (int(fields[11]) + int(fields[12])) / TICK

start = time.perf_counter()
main = subprocess.Popen(sys.argv[1:]).pid
code = exited = None
deadline, lingering, last = float("inf"), 0, 0.0
while True:
    try:
        pid, status, _usage = os.wait4(-1, os.WNOHANG)
    except ChildProcessError:
        break
    if pid == main:
        code, exited = os.waitstatus_to_exitcode(status), time.perf_counter()
        deadline = exited + 120
    elif pid:
        lost.pop(pid, None)  # reaped here: its CPU reaches RUSAGE_CHILDREN after all
    if pid:
        continue
    now = time.perf_counter()
    if now - last >= 0.05:
        sample()
        last = now
    if now > deadline:
        for tid in os.listdir("/proc/self/task"):
            for kid in open(f"/proc/self/task/{tid}/children").read().split():
                lingering += 1
                os.kill(int(kid), signal.SIGKILL)
        deadline = float("inf")
    time.sleep(0.01)
print(f"REAP\tcommand_s={exited - start:.3f}\torphans_s={time.perf_counter() - exited:.3f}"
      f"\tkilled={lingering}\tauto_reaped={len(lost)}\tauto_reaped_cpu_s={sum(lost.values()):.2f}", file=sys.stderr)
sys.exit(code)
"""
"""Runs a command as a child subreaper, so that the processes it orphans (the Spark JVM, which
PySpark's driver never waits for) are reaped here and their CPU reaches ``RUSAGE_CHILDREN`` of the
measuring process. PySpark's worker daemon ignores SIGCHLD, so the kernel reaps its forked Python
workers itself and drops their CPU time from every rusage; the wrapper samples the CPU of such
processes (whose parent ignores SIGCHLD) from ``/proc`` every 50 ms and reports the sum
(``auto_reaped_cpu_s``, at most 50 ms per process short), to be added to the step's CPU. Stderr also
gets how long the orphans outlived the command."""

_STAGE = re.compile(r"(ShuffleMapStage|ResultStage) (\d+) \((.*?)\) finished in ([\d.]+) (m?s)")
_JOB = re.compile(r"Job (\d+) finished: (.*?), took ([\d.]+) (m?s)")
_UPTIME = re.compile(r"Successfully stopped SparkContext \(Uptime: (\d+) ms\)")
_REAP = re.compile(r"^REAP\tcommand_s=([\d.]+)\torphans_s=([\d.]+)\tkilled=(\d+)\tauto_reaped=(\d+)"
                   r"\tauto_reaped_cpu_s=([\d.]+)$", re.MULTILINE)
_TASK = re.compile(r"Finished task \S+ in stage (\d+)\.\d+ \(TID \d+\) in (\d+) ms")


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[spark] {message}", file=sys.stderr, flush=True)


# --- comparing two crawldbs ----------------------------------------------------------------------


def compare_crawldbs(a: Path, b: Path, before: Path) -> dict[str, Any]:
    """Compare two updates of the crawldb ``before``, part by part; count statuses and fingerprint both.

    Every column must be equal, except ``fetch_time`` of the URLs the update added (not in ``before``):
    updatedb sets it to the run's own clock, so it must be one value per output (``new_url_fetch_times``).
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from gossamer.store import TableVersion, live_version_dir

    sides: dict[str, dict[str, Any]] = {}
    versions = []
    for label, crawldb in (("a", a), ("b", b), ("before", before)):
        version_dir = live_version_dir(crawldb)
        if version_dir is None:
            raise SystemExit(f"{crawldb}: no crawldb")
        versions.append(TableVersion(version_dir))
        if label != "before":
            sides[label] = {"path": str(crawldb), "parts": versions[-1].parts, "rows": 0,
                            "status": Counter[str](), "sha": hashlib.sha256(), "new_url_fetch_times": set()}
    differing: list[int] = []
    new_urls = fetch_time_differs = 0
    try:
        if len({v.parts for v in versions}) != 1:
            raise SystemExit(f"part counts differ: {[v.parts for v in versions]}")
        for part in range(versions[0].parts):
            tables = [pq.read_table(v.part_locator(part)) for v in versions[:2]]
            old_urls = pq.read_table(versions[2].part_locator(part), columns=["url"]).column("url")
            if not tables[0].drop_columns(["fetch_time"]).equals(tables[1].drop_columns(["fetch_time"])):
                differing.append(part)
            else:
                is_new = pc.invert(pc.is_in(tables[0].column("url"), value_set=old_urls.combine_chunks()))
                differs = pc.not_equal(tables[0].column("fetch_time"), tables[1].column("fetch_time"))
                new_urls += pc.sum(pc.cast(is_new, pa.int64())).as_py() or 0
                fetch_time_differs += pc.sum(pc.cast(differs, pa.int64())).as_py() or 0
                if pc.any(pc.and_(differs, pc.invert(is_new))).as_py():
                    differing.append(part)
                for side, table in zip(sides.values(), tables, strict=True):
                    side["new_url_fetch_times"].update(
                        str(t) for t in pc.unique(pc.filter(table.column("fetch_time"), is_new)).to_pylist())
            for side, table in zip(sides.values(), tables, strict=True):
                side["rows"] += table.num_rows
                counts = table.column("status").value_counts().to_pylist()
                side["status"].update({STATUS_NAMES.get(c["values"], str(c["values"])): c["counts"]
                                       for c in counts})
                line = pc.binary_join_element_wise(
                    table.column("url"), pc.cast(table.column("status"), pa.string()),
                    pc.cast(table.column("score"), pa.string()), "\t").combine_chunks()
                if len(line):  # fresh array (offset 0): offsets then the bytes they cover
                    _validity, offsets, data = line.buffers()
                    ends = np.frombuffer(offsets, dtype=np.int32, count=len(line) + 1)
                    side["sha"].update(ends.tobytes())
                    side["sha"].update(memoryview(data)[: int(ends[-1])])
    finally:
        for v in versions:
            v.close()
    for side in sides.values():
        side["status"] = dict(sorted(side["status"].items()))
        side["sha256_url_status_score"] = side.pop("sha").hexdigest()
        side["new_url_fetch_times"] = sorted(side["new_url_fetch_times"])
    same = (not differing and sides["a"]["rows"] == sides["b"]["rows"]
            and sides["a"]["sha256_url_status_score"] == sides["b"]["sha256_url_status_score"]
            and all(len(side["new_url_fetch_times"]) <= 1 for side in sides.values()))
    return {"identical": same, "differing_parts": differing, "new_urls": new_urls,
            "fetch_time_differs_rows": fetch_time_differs,
            "rule": "every column equal, except fetch_time of added URLs: one value per run (its clock)",
            **sides}


# --- Spark's own timings -------------------------------------------------------------------------


def spark_phases(stderr: str) -> dict[str, Any]:
    """Stage, task and job times from the INFO lines of Spark's ``DAGScheduler``/``TaskSetManager``."""
    tasks: dict[int, list[int]] = {}
    for stage, ms in _TASK.findall(stderr):
        tasks.setdefault(int(stage), []).append(int(ms))
    stages = []
    for kind, number, where, value, unit in _STAGE.findall(stderr):
        seconds = float(value) / (1000 if unit == "ms" else 1)
        times = tasks.get(int(number), [])
        stages.append({
            "stage": int(number), "kind": kind, "what": where.split(" at ")[0],
            "phase": "map + shuffle write" if kind == "ShuffleMapStage" else "shuffle read + reduce + write",
            "seconds": round(seconds, 3), "tasks": len(times),
            "task_s_sum": round(sum(times) / 1000, 3), "task_s_max": round(max(times) / 1000, 3) if times else None,
        })
    jobs = [{"job": int(n), "what": what, "seconds": round(float(v) / (1000 if unit == "ms" else 1), 3)}
            for n, what, v, unit in _JOB.findall(stderr)]
    uptime = _UPTIME.search(stderr)
    return {"stages": stages, "jobs": jobs, "job_seconds": round(sum(j["seconds"] for j in jobs), 3),
            "spark_context_uptime_s": int(uptime.group(1)) / 1000 if uptime else None, **reaped(stderr)}


def reaped(stderr: str) -> dict[str, Any]:
    """The command's own wall time and how long its orphans (the JVM) outlived it, from :data:`REAP_SCRIPT`."""
    found = _REAP.search(stderr)
    if not found:
        return {}
    return {"command_s": float(found.group(1)), "orphans_outlived_s": float(found.group(2)),
            "orphans_killed": int(found.group(3)), "auto_reaped_processes": int(found.group(4)),
            "auto_reaped_cpu_s": float(found.group(5))}


def add_auto_reaped_cpu(step: dict[str, Any], stderr: str) -> None:
    """Record the wrapper's report in ``step["reap"]`` and add the auto-reaped processes' CPU to ``cpu_s``."""
    reap = reaped(stderr)
    step["reap"] = reap
    if reap.get("auto_reaped_cpu_s"):
        step["cpu_s_rusage"] = step["cpu_s"]
        step["cpu_s"] = round(step["cpu_s"] + reap["auto_reaped_cpu_s"], 3)


# --- the run -------------------------------------------------------------------------------------


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _peak_mb(step: dict[str, Any]) -> float:
    return max(step["peak_tree_rss_bytes"], step["max_process_rss_bytes"]) / MB


def _summary(steps: dict[str, dict[str, Any]], rounds: int, phases: list[dict[str, Any]],
             startup: dict[str, Any] | None, command: str = "updatedb") -> tuple[dict[str, Any], dict[str, Any]]:
    """Ratios (medians over complete rounds; memory: largest peaks) and where Spark's time goes."""
    pairs = [(steps.get(f"{command}_local_{k}", {}), steps.get(f"{command}_spark_{k}", {}))
             for k in range(1, rounds + 1)]
    pairs = [(a, b) for a, b in pairs if a and b and "error" not in a and "error" not in b]
    ratios: dict[str, Any] = {
        "spark_wall_vs_local": _median([b["wall_s"] / a["wall_s"] for a, b in pairs]),
        "spark_cpu_vs_local": _median([b["cpu_s"] / a["cpu_s"] for a, b in pairs]),
        "spark_peak_rss_vs_local": (round(max(_peak_mb(b) for _, b in pairs) / max(_peak_mb(a) for a, _ in pairs), 3)
                                    if pairs else None),
    }
    spark_wall = _median([b["wall_s"] for _, b in pairs])
    local_wall = _median([a["wall_s"] for a, _ in pairs])
    job_s = _median([p["job_seconds"] for p in phases if p.get("jobs")])
    where: dict[str, Any] = {"local_wall_s": local_wall, "spark_wall_s": spark_wall,
                             "spark_job_s": job_s}
    for kind in ("ShuffleMapStage", "ResultStage"):
        where[f"{kind}_s"] = _median([s["seconds"] for p in phases for s in p["stages"] if s["kind"] == kind])
    if spark_wall is not None and job_s is not None:
        where["spark_outside_job_s"] = round(spark_wall - job_s, 3)
    where["spark_context_uptime_s"] = _median([p["spark_context_uptime_s"] for p in phases
                                               if p.get("spark_context_uptime_s") is not None])
    where["jvm_outlived_gossamer_s"] = _median([p["orphans_outlived_s"] for p in phases if "orphans_outlived_s" in p])
    if startup:
        where["trivial_job_process_wall_s"] = startup.get("wall_s")
        where["trivial_job_process_cpu_s"] = startup.get("cpu_s")
        where["trivial_job_breakdown"] = startup.get("breakdown")
    if spark_wall is not None and local_wall is not None:
        where["spark_minus_local_s"] = round(spark_wall - local_wall, 3)
    return ratios, where


def _run_in(work: Path, urls: int, hosts: int, opts: BenchOptions) -> dict[str, Any]:
    inputs = prepare_inputs(work, urls, hosts, opts, log)
    seeds, crawldb, pristine, segments = inputs.seeds, inputs.crawldb, inputs.pristine, inputs.segments
    fetched, outlinks = inputs.fetched, inputs.outlinks
    run = StepRunner(work / "logs", inputs.good, log)
    gossamer = gossamer_executable()
    spark_opts = ["--engine", "spark", "-D", f"spark.master={SPARK_MASTER}", "-D", "spark.log.level=INFO"]
    result: dict[str, Any] = {
        "benchmark": NAME,
        "params": {"urls": urls, "hosts": hosts, "fetched": fetched, "outlinks": outlinks, "rounds": ROUNDS,
                   "spark_master": SPARK_MASTER, "spark_options": spark_opts, "seed": opts.seed,
                   "quick": opts.quick, "gossamer": gossamer, "workdir": str(work) if opts.keep else None},
        "generate": inputs.generated,
    }
    facts: dict[str, Any] = {}
    if run.step("inject", [gossamer, "inject", str(crawldb), str(seeds)]) is not None:
        made = run.step("make_segment", [sys.executable, "-m", "bench.updatedb_bench", "make-segment",
                                         str(crawldb), str(segments), str(urls), str(hosts), str(fetched),
                                         str(outlinks), "--seed", str(opts.seed)])
        facts = json.loads(made.stdout) if made is not None else {}
    reap = [sys.executable, "-c", REAP_SCRIPT]
    startup = run.step("spark_startup", [*reap, sys.executable, "-c", STARTUP_SCRIPT, SPARK_MASTER])
    if startup is not None:
        run.steps["spark_startup"]["breakdown"] = json.loads(startup.stdout.strip().splitlines()[-1])
        add_auto_reaped_cpu(run.steps["spark_startup"], startup.stderr)
    counters: dict[str, list[dict[str, int]]] = {"local": [], "spark": []}
    phases: list[dict[str, Any]] = []
    gen_phases: list[dict[str, Any]] = []
    generate: dict[str, Any] = {}
    comparison: dict[str, Any] = {}
    outputs = {engine: work / f"crawldb-{engine}" for engine in ("local", "spark")}
    if facts:
        segment = Path(facts["segment"])
        shutil.move(crawldb, pristine)
        argv = {"local": [*reap, gossamer, "updatedb", str(crawldb), str(segment)],
                "spark": [*reap, gossamer, "updatedb", str(crawldb), str(segment), *spark_opts]}
        for k in range(1, ROUNDS + 1):
            for engine in (("local", "spark") if k % 2 else ("spark", "local")):
                _restore(pristine, crawldb)
                m: Measurement | None = run.step(f"updatedb_{engine}_{k}", argv[engine])
                if m is None:
                    continue
                counters[engine].append(update_counters(m.stdout))
                add_auto_reaped_cpu(run.steps[f"updatedb_{engine}_{k}"], m.stderr)
                if engine == "spark":
                    phases.append(spark_phases(m.stderr))
                shutil.rmtree(outputs[engine], ignore_errors=True)
                shutil.move(crawldb, outputs[engine])
        if all(p.exists() for p in outputs.values()):
            cmp = run.step("compare", [sys.executable, "-m", "bench.spark_bench", "compare",
                                       str(outputs["local"]), str(outputs["spark"]), str(pristine)])
            comparison = json.loads(cmp.stdout) if cmp is not None else {}
        generate = generate_rounds(run, gossamer, pristine, work, spark_opts, reap, ROUNDS, opts.quick, _restore,
                                   lambda engine, name, m: _after_generate(run, gen_phases, engine, name, m))
        result["sizes"] = {"crawldb_before": dir_size(pristine / "current"), "segment": dir_size(segment),
                           **{f"crawldb_{e}": dir_size(p / "current") for e, p in outputs.items() if p.exists()}}
    _check(run, facts, counters, comparison)
    ratios, where = _summary(run.steps, ROUNDS, phases, run.steps.get("spark_startup"))
    gen_ratios, gen_where = _summary(run.steps, ROUNDS, gen_phases, None, "generate")
    result.update({
        "generate_runs": {**generate, "ratios": gen_ratios, "where_spark_time_goes": gen_where,
                          "spark_phases": gen_phases},
        "segment": facts,
        "steps": run.steps,
        "updatedb_counters": counters,
        "comparison": comparison or None,
        "spark_phases": phases,
        "ratios": ratios,
        "where_spark_time_goes": where,
        "checks": run.checks,
        "goals": [],
    })
    return result


def _after_generate(run: StepRunner, phases: list[dict[str, Any]], engine: str, name: str,
                    measured: Measurement) -> None:
    add_auto_reaped_cpu(run.steps[name], measured.stderr)
    if engine == "spark":
        phases.append(spark_phases(measured.stderr))


def _check(run: StepRunner, facts: dict[str, Any], counters: dict[str, list[dict[str, int]]],
           comparison: dict[str, Any]) -> None:
    """Both engines: every run succeeded, same counters; the outputs are identical and as expected."""
    local, spark = counters["local"], counters["spark"]
    run.check("every_round_ran", len(local) == ROUNDS and len(spark) == ROUNDS,
              f"{len(local)} local and {len(spark)} spark runs of {ROUNDS}")
    run.check("same_counters", bool(local) and all(c == local[0] for c in local + spark),
              f"local {local}, spark {spark}")
    run.check("outputs_identical", bool(comparison.get("identical")),
              f"differing parts {comparison.get('differing_parts')}, sha256 "
              f"{comparison.get('a', {}).get('sha256_url_status_score')} vs "
              f"{comparison.get('b', {}).get('sha256_url_status_score')}")
    expected = (facts.get("expected_total_urls"), facts.get("expected_status"))
    for label, engine in (("a", "local"), ("b", "spark")):
        got = (comparison.get(label, {}).get("rows"), comparison.get(label, {}).get("status"))
        run.check(f"{engine}_as_expected", expected[0] is not None and got == expected,
                  f"expected {expected[0]} URLs {expected[1]}, got {got[0]} URLs {got[1]}")


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run the benchmark in a fresh directory under ``opts.workdir``; return the result dict."""
    urls, hosts = bench_size(opts)
    with work_dir(opts, "spark", log) as work:
        return _run_in(work, urls, hosts, opts)


def main(argv: list[str] | None = None) -> int:
    """Helper run as a measured subprocess: ``compare A B`` prints JSON."""
    p = argparse.ArgumentParser(prog="python -m bench.spark_bench")
    sub = p.add_subparsers(dest="command", required=True)
    cmp = sub.add_parser("compare", help="compare two crawldbs part by part")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    cmp.add_argument("before", type=Path, help="the crawldb both were updated from")
    args = p.parse_args(argv)
    print(json.dumps(compare_crawldbs(args.a, args.b, args.before)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
