"""Import and export of a Nutch 1.x crawldb: records/s and peak memory (goal: 10M URLs imported in < 1.5 GB).

The crawldb is written as Nutch lays it out (``crawldb/current/part-r-NNNNN/{data,index}``,
Text → CrawlDatum v7, keys sorted in Text order per part, an index entry every 128 keys) by
a worker of this module from pre-serialized values, so writing 10M records takes about a
minute.  Then ``gossamer import-nutch`` (measured: wall, CPU, peak RSS of the process tree),
``gossamer readdb -stats`` (the count must be the number written) and ``gossamer export-nutch``
back to MapFiles.  No peer exists for this conversion (Nutch itself has no importer); the
goal is the absolute memory bound of issue 17.

Worker: ``python -m bench.nutchimport_bench write DIR RECORDS PARTS`` (JSON on stdout).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from bench import MB, REPO_ROOT, BenchOptions
from bench.inject_bench import gossamer_executable
from bench.nutchformats_bench import crawldatum_bytes
from bench.steps import StepRunner, work_dir

NAME = "nutchimport"
DESCRIPTION = "import-nutch / export-nutch of a Nutch 1.x crawldb (10M URLs): records/s and peak memory"
DEFAULT_RECORDS, QUICK_RECORDS, PARTS = 10_000_000, 500_000, 4
MEMORY_GOAL_MB = 1536
INDEX_INTERVAL = 128


def log(message: str) -> None:
    print(f"[nutchimport] {message}", file=sys.stderr, flush=True)


def write_part(directory: Path, urls: list[str], metadata: bytes, first: int) -> None:
    """One MapFile part: ``data`` (uncompressed, as Nutch's crawldb) and its ``index``."""
    from gossamer.store.hadoop import LONG, NONE, TEXT, SequenceFileWriter

    directory.mkdir(parents=True)
    with open(directory / "data", "wb") as data_file, open(directory / "index", "wb") as index_file:
        data = SequenceFileWriter(data_file, TEXT.java_class, "org.apache.nutch.crawl.CrawlDatum", compression=NONE)
        index = SequenceFileWriter(index_file, TEXT.java_class, LONG.java_class, compression="BLOCK")
        for n, url in enumerate(urls):
            key = TEXT.serialize(url)
            if n % INDEX_INTERVAL == 0:
                index.append_raw(key, LONG.serialize(data.tell()))
            data.append_raw(key, crawldatum_bytes(first + n, metadata))
        data.close()
        index.close()


def write_crawldb(root: Path, records: int, parts: int) -> dict[str, Any]:
    """A Nutch crawl directory with only a crawldb of ``records`` URLs in ``parts`` parts."""
    from gossamer.store.hadoop import DEFAULT_REGISTRY

    mapping = DEFAULT_REGISTRY.get("org.apache.hadoop.io.MapWritable")
    metadata = mapping.serialize({"_pst_": "success(1), lastModified=0", "nutch.protocol.code": "200",
                                  "Content-Type": "text/html"})
    started = time.perf_counter()
    current = root / "crawldb" / "current"
    per_part = -(-records // parts)
    for part in range(parts):
        first = part * per_part
        count = max(0, min(per_part, records - first))
        urls = sorted((f"http://host{i % 20_000}.example.com/page/{i}" for i in range(first, first + count)),
                      key=lambda url: url.encode("utf-8"))
        write_part(current / f"part-r-{part:05d}", urls, metadata, first)
    (current / "_SUCCESS").write_bytes(b"")
    return {"records": records, "parts": parts, "seconds": round(time.perf_counter() - started, 1)}


def _run_in(work: Path, records: int, opts: BenchOptions) -> dict[str, Any]:
    gossamer = gossamer_executable()
    runner = StepRunner(work / "logs", records, log)
    nutch, crawl, out = work / "nutch", work / "crawl", work / "exported"
    written = runner.step("write_nutch_crawldb", [sys.executable, "-m", "bench.nutchimport_bench", "write",
                                                  str(nutch), str(records), str(PARTS)])
    if written is None:
        return {"records": records, "steps": runner.steps, "checks": runner.checks, "goals": []}
    imported = runner.step("import_nutch", [gossamer, "import-nutch", str(nutch), "-d", str(crawl)])
    stats = runner.step("readdb_stats", [gossamer, "readdb", str(crawl / "crawldb"), "-stats"])
    total = None
    if stats is not None:
        for line in stats.stdout.splitlines():
            if line.startswith("TOTAL urls:"):
                total = int(line.split("\t", 1)[1].replace(",", ""))
    runner.check("imported_all", total == records, f"readdb TOTAL urls {total} of {records}")
    runner.step("export_nutch", [gossamer, "export-nutch", "-d", str(crawl), str(out)])
    peak = imported.peak_rss_bytes / MB if imported is not None else None
    goals = [{"goal": f"import-nutch of {records:,} URLs in < {MEMORY_GOAL_MB} MB peak (all processes)",
              "met": peak is not None and peak < MEMORY_GOAL_MB, "value_mb": peak}]
    return {"records": records, "parts": PARTS, "steps": runner.steps, "checks": runner.checks, "goals": goals}


def run(opts: BenchOptions) -> dict[str, Any]:
    """Write a Nutch crawldb, import it, check the count, export it; peak memory of the import."""
    records = opts.urls if opts.urls is not None else (QUICK_RECORDS if opts.quick else DEFAULT_RECORDS)
    with work_dir(opts, NAME, log) as work:
        return _run_in(work, records, opts)


def main(argv: list[str]) -> int:
    """Worker entry: ``write DIR RECORDS PARTS``."""
    if len(argv) != 4 or argv[0] != "write":
        print("usage: python -m bench.nutchimport_bench write DIR RECORDS PARTS", file=sys.stderr)
        return 2
    sys.path.insert(0, str(REPO_ROOT / "src"))
    print(json.dumps(write_crawldb(Path(argv[1]), int(argv[2]), int(argv[3]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
