"""The crawled and indexed local doc web that the ``index``, ``search`` and ``relevance`` benchmarks share.

* :func:`cached_crawl` makes (or reuses) a politeness-free crawl of the eleven doc hosts of
  ``shared/localweb`` (``seeds.txt`` less the trap host, ``crawl_bench``'s settings), kept in a cache
  directory between runs because the full crawl takes minutes. The crawl is setup: it is measured
  and reported under ``setup``, never compared. A cached crawl is reused when its marker file
  (``bench-crawl.json``, written last) names the same parameters and the crawl's files are still
  exactly those the marker lists (count and bytes of every file under ``crawldb`` and ``segments``);
  ``--fresh-crawl`` (or ``BENCH_FRESH_CRAWL=1``) crawls again anyway.
* :func:`work_crawl` makes a crawl directory for one index: a copy of the cached crawldb, a
  symbolic link to the cached segments (read only by invertlinks and index) and a
  ``gossamer.toml`` with the settings of that index (shards, excluded plugins ...), so every
  command working in it — index, search, searchnode — sees the same settings.
* :func:`index_steps` runs ``invertlinks`` → ``dedup`` → ``index -deleteGone`` in such a directory
  as measured steps and reads their summaries.

The cache is ``$BENCH_CACHE`` if set, else ``gossamer-bench-cache`` under ``--workdir`` (default: the
system temp dir): ``doc-full/`` (~1.5 GB) and ``doc-quick/``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import BenchOptions
from bench import localweb as lw
from bench.crawl_bench import CRAWL_SETTINGS, PER_HOST, THREADS, rounds_for
from bench.gossamer_crawl import crawl_argv, crawl_phases
from bench.inject_bench import dir_size, gossamer_executable
from bench.machine import git_info
from bench.steps import StepRunner

MARKER: str = "bench-crawl.json"
FULL_ROUNDS: int = 12
"""Rounds of the full crawl: the doc web is exhausted after 9 (later rounds fetch 0-7 pages; git.web.test's
root stays due for ever, its robots.txt answering 500, so the crawl never stops by itself)."""
FULL_TOP_N: int = 100_000
"""``-topN`` of the full crawl: above any round's due URLs, so every round fetches all it can."""
QUICK_PAGES: int = 3_000
OUTLINKS_ENV: str = "BENCH_MAX_OUTLINKS"
OUTLINKS_CACHE_ENV: str = "BENCH_OUTLINKS_CACHE"
"""Where crawls with an outlink cap are cached if set (else beside the usual one, :func:`cache_root`)."""
EVERY_LINK: int = CRAWL_SETTINGS["db.max.outlinks.per.page"]
ANCHOR_SETTINGS: dict[str, Any] = {"linkdb.ignore.internal.links": False}
"""The doc sites link almost only within themselves: keep internal links so pages get anchor text."""


@dataclass(frozen=True)
class CrawlCache:
    """A complete cached crawl: its directory, parameters and what the crawl printed."""

    crawl: Path
    marker: dict[str, Any]
    reused: bool

    @property
    def segments(self) -> Path:
        """The crawl's segments directory."""
        return self.crawl / "segments"


def cache_root(opts: BenchOptions) -> Path:
    """``$BENCH_CACHE``, else ``<workdir or temp dir>/gossamer-bench-cache``."""
    if os.environ.get("BENCH_CACHE"):
        return Path(os.environ["BENCH_CACHE"])
    return (opts.workdir or Path(tempfile.gettempdir())) / "gossamer-bench-cache"


def outlinks_cap(cap: int | None = None) -> int:
    """The ``db.max.outlinks.per.page`` of a cached crawl: ``cap``, else ``$BENCH_MAX_OUTLINKS``, else -1."""
    if cap is not None:
        return cap
    return int(os.environ[OUTLINKS_ENV]) if os.environ.get(OUTLINKS_ENV) else EVERY_LINK


def crawl_params(quick: bool, cap: int | None = None) -> dict[str, Any]:
    """The parameters that identify a cached crawl.

    A ``db.max.outlinks.per.page`` other than every link (-1) — ``cap``, else ``$BENCH_MAX_OUTLINKS`` —
    crawls with that cap instead, into its own cache directory (``doc-full-outlinks100``): issue 20's
    outlink-cap measurement (:mod:`bench.relevance_outlinks`).
    """
    if quick:
        rounds, top_n = rounds_for(QUICK_PAGES)
    else:
        rounds, top_n = FULL_ROUNDS, FULL_TOP_N
    kind, settings = "quick" if quick else "full", CRAWL_SETTINGS
    cap = outlinks_cap(cap)
    if cap != EVERY_LINK:
        kind, settings = f"{kind}-outlinks{cap}", {**CRAWL_SETTINGS, "db.max.outlinks.per.page": cap}
    return {"kind": kind, "rounds": rounds, "top_n": top_n, "threads": THREADS,
            "per_host": PER_HOST, "settings": settings, "excluded_hosts": [lw.TRAP_HOST]}


def inventory(crawl: Path) -> dict[str, int]:
    """Number and total bytes of the files under ``crawldb`` and ``segments`` (symlinks not followed)."""
    files = size = 0
    for sub in ("crawldb", "segments"):
        for root, _, names in os.walk(crawl / sub):
            for name in names:
                files += 1
                size += (Path(root) / name).lstat().st_size
    return {"files": files, "bytes": size}


def _fresh_forced(opts: BenchOptions) -> bool:
    return opts.fresh_crawl or os.environ.get("BENCH_FRESH_CRAWL", "") not in ("", "0")


def _valid(crawl: Path, params: dict[str, Any]) -> dict[str, Any] | None:
    """The marker of a complete cached crawl with these parameters, else None."""
    try:
        marker = json.loads((crawl / MARKER).read_text())
    except (OSError, ValueError):
        return None
    if marker.get("params") != json.loads(json.dumps(params)) or marker.get("inventory") != inventory(crawl):
        return None
    return marker


def cached_crawl(opts: BenchOptions, setup: StepRunner, log: Callable[[str], None],
                 cap: int | None = None, step: str = "crawl") -> CrawlCache | None:
    """The cached crawl for ``opts.quick`` (and outlink ``cap``, see :func:`crawl_params`), crawled now if
    missing, incomplete or forced; None on failure.

    The crawl step, if run, is recorded in ``setup`` as ``step`` (with ``pages`` parsed). A capped crawl
    is cached under ``$BENCH_OUTLINKS_CACHE`` if set, else beside the usual one.
    """
    params = crawl_params(opts.quick, cap)
    root = cache_root(opts)
    if params["settings"]["db.max.outlinks.per.page"] != EVERY_LINK and os.environ.get(OUTLINKS_CACHE_ENV):
        root = Path(os.environ[OUTLINKS_CACHE_ENV])
    home = root / f"doc-{params['kind']}"
    crawl = home / "crawl"
    settings = params["settings"]
    if not _fresh_forced(opts):
        marker = _valid(crawl, params)
        if marker is not None:
            log(f"reusing the cached crawl {crawl} ({marker['pages']:,} pages, made {marker['created_utc']})")
            return CrawlCache(crawl, marker, True)
        if crawl.exists():
            log(f"cached crawl {crawl} is incomplete or made with other parameters: crawling again")
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True, exist_ok=True)
    many = lw.current_many()
    generated = lw.many_generated()
    try:
        served = lw.serve(many, generated["pages"] if generated and many else None)
    except RuntimeError as exc:
        setup.check("localweb_up", False, str(exc))
        return None
    log(f"local web up ({served['seconds']} s); crawling into {crawl}")
    seeds = home / "seeds.txt"
    seed_list = lw.doc_seeds(seeds)
    argv = crawl_argv(gossamer_executable(), seeds, crawl, params["rounds"], settings,
                      top_n=params["top_n"], threads=THREADS)
    started = datetime.now(UTC)
    m = setup.step(step, argv, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    if m is None:
        return None
    phases = crawl_phases([(0.0, line) for line in m.stdout.splitlines()])
    totals = phases["totals"]
    setup.steps[step].pop("urls_per_s", None)
    setup.steps[step]["pages"] = totals["parsed_success"]
    marker = {
        "params": params, "seeds": seed_list, "created_utc": started.isoformat(timespec="seconds"),
        "git": git_info(), "pages": totals["parsed_success"],
        "fetch_success": totals["fetch_success"], "by_status": totals["by_status"],
        "rounds_run": len(phases["rounds"]), "stopped": phases["crawl"].get("stopped", ""),
        "per_round": [{"round": r["round"], "generated": r["generated"], "pages": r.get("pages", 0),
                       "parsed": r["parsed"].get("success", 0)} for r in phases["rounds"]],
        "crawl_wall_s": round(m.wall_s, 1), "crawl_cpu_s": round(m.cpu_s, 1),
        "crawl_peak_tree_rss_mb": round(m.peak_tree_rss_bytes / 2**20, 1),
        "size": dir_size(crawl), "inventory": inventory(crawl),
    }
    (crawl / MARKER).write_text(json.dumps(marker, indent=2) + "\n")
    log(f"crawled {marker['pages']:,} pages in {m.wall_s:.0f} s ({marker['rounds_run']} rounds, "
        f"stopped: {marker['stopped'] or 'round limit'})")
    return CrawlCache(crawl, marker, False)


def crawl_facts(cache: CrawlCache) -> dict[str, Any]:
    """What a result records about the crawl it used."""
    keys = ("created_utc", "git", "pages", "fetch_success", "by_status", "rounds_run", "stopped",
            "per_round", "crawl_wall_s", "crawl_cpu_s", "crawl_peak_tree_rss_mb", "size")
    return {"dir": str(cache.crawl), "reused": cache.reused, "params": cache.marker["params"],
            **{k: cache.marker.get(k) for k in keys}}


def cache_untouched_check(run: StepRunner, cache: CrawlCache, name: str = "cache_untouched") -> None:
    """Check ``name``: the benchmark did not change the cached crawl (its segments are shared by symlink)."""
    now = inventory(cache.crawl)
    run.check(name, now == cache.marker["inventory"],
              f"cached crawl files {now} (marker: {cache.marker['inventory']})")


def toml_value(value: Any) -> str:
    """``value`` as a TOML value: a boolean, a number, an array (of these) or else a string.

    A list must become a TOML array: written as the string ``"['a', 'b']"`` it would be read back as
    one comma-separated list of the words ``['a'``, ``'b']`` (the ``stemmed`` variant of ``relevance``
    indexed no shadow field at all until 2026-11-27 for that reason).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(item) for item in value) + "]"
    return json.dumps(str(value))


def work_crawl(cache: CrawlCache, dest: Path, settings: dict[str, Any]) -> Path:
    """A crawl directory for one index (see the module docstring); returns ``dest``."""
    dest.mkdir(parents=True)
    shutil.copytree(cache.crawl / "crawldb", dest / "crawldb", symlinks=True)
    (dest / "segments").symlink_to(cache.segments.resolve(), target_is_directory=True)
    lines = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in settings.items()]
    (dest / "gossamer.toml").write_text("# written by bench.doc_index\n" + "\n".join(lines) + "\n")
    return dest


def defines(settings: dict[str, Any]) -> list[str]:
    """``-D name=value`` arguments for ``settings``."""
    out: list[str] = []
    for key, value in settings.items():
        if isinstance(value, list | tuple):
            value = ",".join(map(str, value))
        out += ["-D", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    return out


_LINKDB = re.compile(r"^LinkDb: \d+ segment\(s\), (\d+) skipped; pages (\d+) \(not parsed: (\d+)\), links (\d+), "
                     r"ignored (\d+), filtered (\d+), inverted (\d+)", re.MULTILINE)
_LINKDB_TOTAL = re.compile(r"^LinkDb: total URLs (\d+)", re.MULTILINE)
_DEDUP = re.compile(r"^Deduplication: (\d+) documents marked as duplicates", re.MULTILINE)
_DEDUP_CANDIDATES = re.compile(r"^Deduplication: (\d+) candidates .*?, (\d+) groups", re.MULTILINE)
_INDEXED = re.compile(r"^Indexer: documents added/replaced: (\d+), delete requests: (\d+)", re.MULTILINE)
_SKIPPED = re.compile(r"^Indexer: skipped: (.*)$", re.MULTILINE)
_FINISHED = re.compile(r"^\w+: finished in ([\d.]+) s", re.MULTILINE)


def linkdb_summary(stdout: str) -> dict[str, Any]:
    """Numbers of ``invertlinks``' summary."""
    out: dict[str, Any] = {}
    if m := _LINKDB.search(stdout):
        names = ("segments_skipped", "pages", "pages_not_parsed", "links", "links_ignored", "links_filtered",
                 "inlinks")
        out.update(zip(names, (int(g) for g in m.groups()), strict=True))
    if m := _LINKDB_TOTAL.search(stdout):
        out["total_urls"] = int(m.group(1))
    return out


def dedup_summary(stdout: str) -> dict[str, Any]:
    """Numbers of ``dedup``'s summary."""
    out: dict[str, Any] = {}
    if m := _DEDUP_CANDIDATES.search(stdout):
        out["candidates"], out["groups"] = int(m.group(1)), int(m.group(2))
    if m := _DEDUP.search(stdout):
        out["duplicates"] = int(m.group(1))
    return out


def index_summary(stdout: str) -> dict[str, Any]:
    """Numbers of ``index``'s summary: ``added``, ``deleted``, ``skipped`` and its own ``seconds``."""
    out: dict[str, Any] = {}
    if m := _INDEXED.search(stdout):
        out["added"], out["deleted"] = int(m.group(1)), int(m.group(2))
    if m := _SKIPPED.search(stdout):
        out["skipped"] = {k: int(v) for k, v in (item.rsplit(" ", 1) for item in m.group(1).split(", "))}
    if m := _FINISHED.search(stdout):
        out["seconds"] = float(m.group(1))
    return out


def index_argv(crawl: Path, linkdb: Path, extra_defines: dict[str, Any], index_dir: Path | None = None) -> list[str]:
    """``gossamer index`` of every segment of ``crawl``, ``-deleteGone``, into ``index_dir`` (else ``crawl/index``)."""
    target = ["--index", str(index_dir)] if index_dir is not None else []
    return [gossamer_executable(), "index", str(crawl / "crawldb"), "-linkdb", str(linkdb), "-dir",
            str(crawl / "segments"), "-deleteGone", *target, *defines(extra_defines)]


def index_steps(run: StepRunner, crawl: Path, prefix: str = "", linkdb: Path | None = None,
                extra_defines: dict[str, Any] | None = None) -> dict[str, Any]:
    """``invertlinks`` (unless ``linkdb`` is given: an existing one is used) → ``dedup`` → ``index``.

    Steps are named ``<prefix>invertlinks``, ``<prefix>dedup``, ``<prefix>index``; ``extra_defines``
    go to every command as ``-D`` (settings of ``crawl/gossamer.toml`` apply anyway). Returns the
    summaries (``linkdb``, ``dedup``, ``index``) and ``ok``.
    """
    gossamer = gossamer_executable()
    extra = defines(extra_defines or {})
    facts: dict[str, Any] = {"ok": False}
    if linkdb is None:
        linkdb = crawl / "linkdb"
        m = run.step(f"{prefix}invertlinks", [gossamer, "invertlinks", str(linkdb), "-dir", str(crawl / "segments"),
                                               *extra])
        if m is None:
            return facts
        facts["linkdb"] = linkdb_summary(m.stdout)
    m = run.step(f"{prefix}dedup", [gossamer, "dedup", str(crawl / "crawldb"), *extra])
    if m is None:
        return facts
    facts["dedup"] = dedup_summary(m.stdout)
    t0 = time.perf_counter()
    m = run.step(f"{prefix}index", index_argv(crawl, linkdb, extra_defines or {}), settle=True)
    if m is None:
        return facts
    facts["index"] = index_summary(m.stdout)
    facts["index"]["wall_s"] = round(time.perf_counter() - t0, 3)
    facts["ok"] = "added" in facts["index"]
    for name in ("invertlinks", "dedup", "index"):
        run.steps.get(f"{prefix}{name}", {}).pop("urls_per_s", None)
    return facts


def index_size(crawl: Path) -> dict[str, Any]:
    """Disk use of ``<crawl>/index`` (and of its live version ``current``) and its ``_index.json``."""
    out: dict[str, Any] = {"index": dir_size(crawl / "index"), "current": dir_size(crawl / "index" / "current")}
    try:
        out["description"] = {k: v for k, v in json.loads((crawl / "index" / "current" / "_index.json").read_text())
                              .items() if k != "fields"}
    except (OSError, ValueError):
        pass
    return out
