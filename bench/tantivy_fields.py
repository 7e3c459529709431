"""What tantivy's own work costs for each field of Gossamer's index schema (issue 22 goal 3, sixth pass).

``python -m bench.tantivy_fields CRAWL WORK [--repeat N] [VARIANT ...]``

1. Once per ``WORK`` directory: runs the index job over ``CRAWL`` (its crawldb, linkdb and every
   segment, ``-deleteGone``, the crawl's own settings) into ``WORK/actions`` — the documents exactly
   as ``gossamer index`` hands them to the writer — and writes the schema's fields to
   ``WORK/fields.json``.
2. For each variant (``--repeat`` times, interleaved, each in a fresh process, a new index in
   ``WORK``): feeds every action to one tantivy index as :class:`TantivyIndexWriter` does
   (``add_json``; a delete by ``id`` for deletes and for a URL written again), with Gossamer's
   writer settings (256 MB, one thread per core), commits and waits for merges. Reports the
   process's CPU and wall for the adds and for the commit, the CPU of each thread (the feeding
   thread, tantivy's indexing threads, its doc-store compressors), and the index's bytes.

Variants (several joined by ``,``): ``full`` (the schema as is); ``keep:A+B`` (only these fields:
``keep:id+url+title+content`` is the floor's field set); ``drop:F``; ``opt:F=position|freq|basic``
(a text field's index option); ``nostore:F``; ``noindex:F`` (a numeric or date field not indexed);
``threads:N``; ``heap:MB``; ``nodel`` (no deletes). A dropped field is removed from every document
before the clock starts. Prints one JSON line per run and a summary (mean CPU per variant).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pyarrow.parquet as pq
import tantivy

from bench.fields_variant import Variant, parse_variant

HEAP_BYTES: int = 256 << 20


def capture(crawl: Path, work: Path) -> None:
    """Write the index job's actions for ``crawl`` into ``work/actions`` and its fields to ``work/fields.json``."""
    from gossamer.cli.common import segment_arguments, table_argument
    from gossamer.engine import run_job
    from gossamer.index.documents import IndexOptions
    from gossamer.index.indexer import index_fields
    from gossamer.index.job import actions_job, index_inputs, inlink_sources_read
    from gossamer.index.schema import fields_to_json
    from gossamer.plugins import PluginRepository
    from gossamer.store import TableVersion, as_place, live_version_dir

    place, settings = table_argument(str(crawl / "crawldb"), "crawldb")
    segments = segment_arguments(None, str(crawl / "segments"), settings)
    db = TableVersion(live_version_dir(place))
    links_dir = live_version_dir(as_place(str(crawl / "linkdb"), settings))
    links = TableVersion(links_dir) if links_dir is not None else None
    inputs, _ = index_inputs(db, links, segments, None, inlink_sources=inlink_sources_read(PluginRepository(settings)))
    (work / "actions").mkdir(exist_ok=True)
    run_job(actions_job(inputs, IndexOptions(delete_gone=True), settings.get_int("store.parts")),
            as_place(str(work / "actions")), settings)
    (work / "fields.json").write_text(fields_to_json(index_fields(PluginRepository(settings))))


class ThreadClock:
    """Samples every thread's CPU seconds of this process (``/proc/self/task``) every 20 ms."""

    def __init__(self) -> None:
        self.samples: dict[str, list[tuple[float, float]]] = {}
        self.start = time.perf_counter()
        self._stop = threading.Event()
        self._tick = os.sysconf("SC_CLK_TCK")
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.perf_counter() - self.start
            for tid in os.listdir("/proc/self/task"):
                try:
                    with open(f"/proc/self/task/{tid}/stat") as f:
                        stat = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                self.samples.setdefault(tid, []).append((now, (int(stat[11]) + int(stat[12])) / self._tick))
            time.sleep(0.02)

    def split(self, at: float) -> dict[str, tuple[float, float]]:
        """Each busy thread's CPU before and after ``at`` seconds (the sampler itself excluded)."""
        self._stop.set()
        self._thread.join()
        me = str(self._thread.native_id)
        out = {}
        for tid, values in self.samples.items():
            before = [cpu for when, cpu in values if when <= at] or [values[0][1]]
            first, mid, last = values[0][1], before[-1], values[-1][1]
            if tid != me and last - first > 0.05:
                out[tid] = (round(mid - first, 2), round(last - mid, 2))
        return out


def schema_of(fields: list[dict[str, Any]], v: Variant) -> tantivy.Schema:
    """The tantivy schema of the (kept) ``fields`` under variant ``v`` (Gossamer's mapping of kinds)."""
    b = tantivy.SchemaBuilder()
    for f in fields:
        name, kind, stored = f["name"], f["kind"], f["stored"] and f["name"] not in v.nostore
        indexed = f["indexed"] and name not in v.noindex
        if kind == "text":
            b.add_text_field(name, stored=stored, index_option=v.options.get(name, "position"))
        elif kind == "raw":
            b.add_text_field(name, stored=stored, tokenizer_name="raw", fast=f["fast"],
                             index_option=v.options.get(name, "basic"))
        elif kind == "json":
            b.add_json_field(name, stored=stored)
        else:
            add = {"date": b.add_date_field, "int": b.add_integer_field, "float": b.add_float_field}[kind]
            add(name, stored=stored, indexed=indexed, fast=f["fast"])
    return b.build()


def feed(work: Path, spec: str) -> dict[str, Any]:
    """One measured run of variant ``spec`` (see the module docstring)."""
    v = parse_variant(spec)
    every = json.loads((work / "fields.json").read_text())
    fields = [f for f in every if v.keeps(f["name"])]
    names = {f["name"] for f in fields}
    table = pq.read_table(work / "actions", columns=["url", "action", "doc"])
    rows = list(zip(table.column("action").to_pylist(), table.column("url").to_pylist(),
                    table.column("doc").to_pylist(), strict=True))
    if len(fields) < len(every):
        rows = [(a, u, orjson.dumps({k: x for k, x in orjson.loads(d).items() if k in names}).decode()
                 if a == 1 else d) for a, u, d in rows]
    deletes = "id" in names and not v.no_deletes
    out = work / f"index-{os.getpid()}"
    out.mkdir()
    index = tantivy.Index(schema_of(fields, v), path=str(out), reuse=False)
    writer = index.writer(heap_size=v.heap_mb << 20 if v.heap_mb else HEAP_BYTES,
                          num_threads=v.threads or os.cpu_count() or 1)
    clock = ThreadClock()
    c0, w0 = time.process_time(), time.perf_counter()
    seen: set[int] = set()
    for action, url, doc in rows:
        if action == 1:
            if deletes and hash(url) in seen:
                writer.delete_documents_by_term("id", url)
            seen.add(hash(url))
            writer.add_json(doc)
        elif deletes:
            writer.delete_documents_by_term("id", url)
    c1, w1 = time.process_time(), time.perf_counter()
    writer.commit()
    writer.wait_merging_threads()
    c2, w2 = time.process_time(), time.perf_counter()
    threads = clock.split(w1 - clock.start)
    size = sum(p.stat().st_size for p in out.iterdir())
    for p in out.iterdir():
        p.unlink()
    out.rmdir()
    return {"variant": spec, "add_cpu": round(c1 - c0, 3), "add_wall": round(w1 - w0, 3),
            "commit_cpu": round(c2 - c1, 3), "commit_wall": round(w2 - w1, 3), "cpu": round(c2 - c0, 3),
            "threads": threads, "bytes": size, "load": round(os.getloadavg()[0], 2)}


def summary(runs: list[dict[str, Any]]) -> list[str]:
    """One line per variant: mean CPU (and its spread), add / commit, the first variant's difference."""
    by: dict[str, list[dict[str, Any]]] = {}
    for r in runs:
        by.setdefault(r["variant"], []).append(r)
    lines, base = [], None
    for spec, rs in by.items():
        cpu = [r["cpu"] for r in rs]
        mean = statistics.mean(cpu)
        base = mean if base is None else base
        lines.append(f"{spec[:48]:48s} n={len(rs)} cpu {mean:6.2f} s (sd {statistics.pstdev(cpu):.2f}) "
                     f"{mean - base:+6.2f}  add {statistics.mean(r['add_cpu'] for r in rs):5.2f}  commit "
                     f"{statistics.mean(r['commit_cpu'] for r in rs):5.2f}  {rs[0]['bytes'] / 1e6:6.1f} MB  "
                     f"load {statistics.mean(r['load'] for r in rs):.1f}")
    return lines


def main(argv: list[str]) -> None:
    """Entry point (see the module docstring)."""
    if len(argv) >= 3 and argv[0] == "--feed":
        print(json.dumps(feed(Path(argv[1]), argv[2])), flush=True)
        return
    repeat = 1
    if "--repeat" in argv:
        at = argv.index("--repeat")
        repeat = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if len(argv) < 2:
        raise SystemExit("usage: python -m bench.tantivy_fields CRAWL WORK [--repeat N] [VARIANT ...]")
    crawl, work = Path(argv[0]), Path(argv[1])
    work.mkdir(parents=True, exist_ok=True)
    if not (work / "fields.json").is_file():
        capture(crawl, work)
    runs = []
    for _ in range(repeat):
        for spec in argv[2:] or ["full", "keep:id+url+title+content"]:
            done = subprocess.run([sys.executable, "-m", "bench.tantivy_fields", "--feed", str(work), spec],
                                  check=True, capture_output=True, text=True)
            runs.append(json.loads(done.stdout))
            print(done.stdout, end="", flush=True)
    print("\n".join(summary(runs)))


if __name__ == "__main__":
    main(sys.argv[1:])
