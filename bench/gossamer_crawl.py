"""``gossamer crawl`` as the crawl benchmarks run and read it.

:func:`crawl_argv` builds the command line (seeds, ``-d``, ``-r``, ``-topN``, ``-threads`` and
``-D name=value`` settings). The command prints one summary per step; :func:`crawl_phases` reads
them, with the time each line appeared (:class:`bench.localweb.LineClock`), into per-round facts:

* ``generated`` URLs and ``generate_s`` (``Generator: ... finished in X s``),
* the fetch: ``pages`` (every fetched URL, any status), ``errors``, ``fetch_s`` and the rate it
  printed, ``by_status`` (``fetch_success`` ...), ``parsed`` (``success`` / ``failed``), ``not_fetched``,
* ``updatedb_s`` and ``total_urls`` after the round,
* wall-clock epochs: ``t_round`` (round header), ``t_fetch_start`` (generate's last line),
  ``t_fetch_end`` (the fetch summary) and ``t_round_end`` (updatedb's last line), so a round's
  requests can be picked out of the access log.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

AGENT_NAME: str = "gossamer-bench"
"""``http.agent.name`` of the benchmark crawls; the access log's User-Agent starts with it."""


def crawl_argv(gossamer: str, seeds: Path | None, crawl_dir: Path, rounds: int, settings: dict[str, Any],
               top_n: int | None = None, threads: int | None = None) -> list[str]:
    """``gossamer crawl [seeds] -d DIR -r R [-topN N] [-threads T] -D k=v ...``."""
    argv = [gossamer, "crawl"]
    if seeds is not None:
        argv.append(str(seeds))
    argv += ["-d", str(crawl_dir), "-r", str(rounds)]
    if top_n is not None:
        argv += ["-topN", str(top_n)]
    if threads is not None:
        argv += ["-threads", str(threads)]
    for key, value in settings.items():
        argv += ["-D", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    return argv


def _int(text: str) -> int:
    return int(text.replace(",", ""))


_ROUND = re.compile(r"^== round (\d+) of (\d+)")
_GEN_SEGMENT = re.compile(r"^Generator: segment (\S+): (\d+) URLs")
_GEN_DONE = re.compile(r"^Generator: finished in ([\d.]+) s")
_GEN_NONE = re.compile(r"^Generator: 0 records selected")
_FETCH = re.compile(r"^Fetcher: segment (\S+): ([\d,]+) pages, .*?, ([\d,]+) errors in ([\d.,]+) s "
                    r"\(([\d.,]+) pages/s, (\d+) process")
_STATUS = re.compile(r"^  ([a-z_]+)\s+([\d,]+)$")
_PARSED = re.compile(r"^  parsed: (.*)$")
_NOT_FETCHED = re.compile(r"^  not fetched \(stay due\): (.*)$")
_UPDATE = re.compile(r"^CrawlDb update: total URLs (\d+), finished in ([\d.]+) s")
_INJECT = re.compile(r"^Injector: finished in ([\d.]+) s")
_INJECTED = re.compile(r"^Injector: Total new urls injected: (\d+)")
_CRAWL = re.compile(r"^Crawl: (\d+) round\(s\)(?: \(([^)]*)\))?, (\d+) segment\(s\), ([\d,]+) pages fetched in "
                    r"([\d.,]+) s")


def _counts(text: str) -> dict[str, int]:
    """``a 1, b 2,345`` -> {a: 1, b: 2345}."""
    out: dict[str, int] = {}
    for item in re.split(r", (?=[^\d])", text):
        m = re.match(r"^(.*\S)\s+([\d,]+)$", item.strip())
        if m:
            out[m.group(1)] = _int(m.group(2))
    return out


def crawl_phases(lines: list[tuple[float, str]]) -> dict[str, Any]:
    """Per-round facts and totals from the time-stamped stdout lines of ``gossamer crawl``.

    ``lines`` are ``(epoch, text)``; with plain text (no clock) pass any times. Returns ``rounds``
    (list of dicts, see the module docstring), ``totals`` and the final ``crawl`` line's numbers.
    """
    rounds: list[dict[str, Any]] = []
    result: dict[str, Any] = {"inject": {}, "rounds": rounds, "crawl": {}}
    current: dict[str, Any] | None = None
    in_fetch = False
    for t, line in lines:
        if m := _INJECT.match(line):
            result["inject"]["seconds"] = float(m.group(1))
            result["inject"]["t_end"] = t
        elif m := _INJECTED.match(line):
            result["inject"]["urls"] = int(m.group(1))
        elif m := _ROUND.match(line):
            current = {"round": int(m.group(1)), "t_round": t, "generated": 0, "by_status": {}, "parsed": {},
                       "not_fetched": {}}
            rounds.append(current)
            in_fetch = False
        elif current is None:
            continue
        elif m := _GEN_SEGMENT.match(line):
            current["generated"] += int(m.group(2))
        elif _GEN_NONE.match(line):
            current["nothing_due"] = True
        elif m := _GEN_DONE.match(line):
            current["generate_s"] = float(m.group(1))
            current["t_fetch_start"] = t
        elif m := _FETCH.match(line):
            current["segment"] = m.group(1)
            current["pages"] = current.get("pages", 0) + _int(m.group(2))
            current["errors"] = current.get("errors", 0) + _int(m.group(3))
            current["fetch_s"] = current.get("fetch_s", 0.0) + float(m.group(4).replace(",", ""))
            current["processes"] = int(m.group(6))
            current["t_fetch_end"] = t
            in_fetch = True
        elif in_fetch and (m := _PARSED.match(line)):
            for key, value in _counts(m.group(1)).items():
                current["parsed"][key] = current["parsed"].get(key, 0) + value
        elif in_fetch and (m := _NOT_FETCHED.match(line)):
            for key, value in _counts(m.group(1)).items():
                current["not_fetched"][key] = current["not_fetched"].get(key, 0) + value
        elif in_fetch and (m := _STATUS.match(line)):
            current["by_status"][m.group(1)] = current["by_status"].get(m.group(1), 0) + _int(m.group(2))
        elif m := _UPDATE.match(line):
            current["total_urls"] = int(m.group(1))
            current["updatedb_s"] = float(m.group(2))
            current["t_round_end"] = t
            in_fetch = False
        elif m := _CRAWL.match(line):
            result["crawl"] = {"rounds": int(m.group(1)), "stopped": m.group(2) or "",
                               "segments": int(m.group(3)), "pages": _int(m.group(4)),
                               "seconds": float(m.group(5).replace(",", "")), "t_end": t}
    for r in rounds:
        if r.get("fetch_s"):
            r["fetch_pages_per_s"] = round(r.get("pages", 0) / r["fetch_s"], 1)
    by_status: Counter[str] = Counter()
    parsed: Counter[str] = Counter()
    for r in rounds:
        by_status.update(r["by_status"])
        parsed.update(r["parsed"])
    result["totals"] = {
        "pages": sum(r.get("pages", 0) for r in rounds),
        "errors": sum(r.get("errors", 0) for r in rounds),
        "fetch_success": by_status.get("fetch_success", 0),
        "parsed_success": parsed.get("success", 0),
        "parse_failed": parsed.get("failed", 0),
        "by_status": dict(sorted(by_status.items())),
        "generate_s": round(sum(r.get("generate_s", 0.0) for r in rounds), 2),
        "fetch_s": round(sum(r.get("fetch_s", 0.0) for r in rounds), 2),
        "updatedb_s": round(sum(r.get("updatedb_s", 0.0) for r in rounds), 2),
        "inject_s": result["inject"].get("seconds"),
    }
    return result


def stats_counts(stats_stdout: str) -> dict[str, int]:
    """``status N (name):\\t<count>`` lines of ``readdb -stats`` as {name: count}, plus ``TOTAL``."""
    out: dict[str, int] = {}
    m = re.search(r"^TOTAL urls:\t(\d+)", stats_stdout, re.MULTILINE)
    if m:
        out["TOTAL"] = int(m.group(1))
    for name, count in re.findall(r"^status \d+ \((\w+)\):\t(\d+)", stats_stdout, re.MULTILINE):
        out[name] = int(count)
    return out
