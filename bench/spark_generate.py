"""The generate half of the ``spark`` benchmark: ``gossamer generate`` on the local engine against Spark.

Run by :mod:`bench.spark_bench` on its injected crawldb (every URL due, every score 1.0, so the
whole order rests on the URL tie-break): ``ROUNDS`` interleaved rounds of ``generate_local_<k>`` and
``generate_spark_<k>`` with ``-topN`` :data:`TOP_N` and ``generate.max.count`` = :data:`MAX_COUNT`
per host, the crawldb restored from hard links before each run (generate marks the selected URLs).
After each run the fetch list is fingerprinted here, outside the measured step: URLs per
fetch-list part and a SHA-256 over the URLs in part and file order; both engines must give the same.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.steps import StepRunner

TOP_N: int = 500_000
MAX_COUNT: int = 20
QUICK_TOP_N: int = 20_000


def fetch_list_fingerprint(segments: Path) -> dict[str, Any]:
    """URL count per part and a SHA-256 over every URL of the one segment under ``segments``."""
    import pyarrow.parquet as pq

    from gossamer.store import TableVersion

    made = sorted(p for p in segments.iterdir() if p.is_dir()) if segments.is_dir() else []
    if len(made) != 1:
        return {"segments": len(made)}
    digest = hashlib.sha256()
    per_part = []
    with TableVersion(made[0] / "crawl_generate") as version:
        for part in range(version.parts):
            urls = pq.read_table(version.part_locator(part), columns=["url"]).column("url").to_pylist()
            per_part.append(len(urls))
            for url in urls:
                digest.update(url.encode("utf-8") + b"\n")
    return {"segments": 1, "urls": sum(per_part), "urls_per_part": per_part, "sha256_urls": digest.hexdigest()}


def generate_rounds(run: StepRunner, gossamer: str, pristine: Path, work: Path, spark_opts: list[str],
                    wrap: list[str], rounds: int, quick: bool, restore: Callable[[Path, Path], None],
                    after_step: Callable[[str, str, Any], None]) -> dict[str, Any]:
    """Interleaved generate runs on both engines from ``pristine``; fingerprints and a comparison.

    ``after_step(engine, step_name, measurement)`` lets the caller add CPU of auto-reaped
    Spark workers and collect Spark's phase times, as for updatedb.
    """
    top_n = QUICK_TOP_N if quick else TOP_N
    crawldb = work / "crawl-generate" / "crawldb"
    crawldb.parent.mkdir(parents=True, exist_ok=True)
    common = ["-topN", str(top_n), "-numFetchers", "2", "-D", f"generate.max.count={MAX_COUNT}"]
    prints: dict[str, list[dict[str, Any]]] = {"local": [], "spark": []}
    for k in range(1, rounds + 1):
        for engine in (("local", "spark") if k % 2 else ("spark", "local")):
            restore(pristine, crawldb)
            segments = work / "crawl-generate" / f"segments-{engine}"
            shutil.rmtree(segments, ignore_errors=True)
            extra = spark_opts if engine == "spark" else []
            name = f"generate_{engine}_{k}"
            measured = run.step(name, [*wrap, gossamer, "generate", str(crawldb), str(segments), *common, *extra])
            if measured is None:
                continue
            after_step(engine, name, measured)
            prints[engine].append(fetch_list_fingerprint(segments))
    shutil.rmtree(crawldb.parent, ignore_errors=True)
    every = prints["local"] + prints["spark"]
    same = bool(every) and all(p == every[0] for p in every) and len(every) == 2 * rounds
    # a fetch list is full (top_n URLs) unless the crawldb has fewer than top_n hosts × MAX_COUNT to give
    run.check("generate_same_fetch_lists", same and every[0].get("urls", 0) > 0, f"fingerprints {every}")
    return {"top_n": top_n, "max_count_per_host": MAX_COUNT, "fetch_lists": prints, "identical": same,
            "full": bool(every) and every[0].get("urls") == top_n}
