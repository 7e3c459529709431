"""Where a polite crawl loses rate: the gap past each host's delay, from nginx's access log (a goal-4 tool).

``python -m bench.polite_gaps --delay 5 --since T0 --until T1 [LOG]`` reads the many-hosts requests of one
crawl round (the window ``many-check.py`` uses) and, per host, the *excess* of every gap: ``start(next) -
end(previous) - d``, with ``d`` the crawler's delay or the host's ``Crawl-delay`` from ``hosts.tsv`` raised to
``--min-crawl-delay`` (``fetcher.min.crawl.delay``, by default the delay, as in Nutch).
A crawler at the limit has excess 0; the time it loses is the excess.  Prints

* the excess's mean and percentiles, and its share of all gap time (the rate lost to lateness);
* the rate of the middle 80 % of requests (as ``many-check.py`` counts it) against the rate the same
  hosts would reach with no excess at all — every host's requests at ``first + k·d`` — which is the
  part of the gap that comes from the host mix (hosts that finish early), not from the crawler;
* the excess per time slice of the window (start-up, steady state, tail).

``--json FILE`` also writes the figures.  Reads only the log; run it after the crawl (nginx flushes
its log every 2 s).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

LINE = re.compile(r'^(\d+\.\d+) (\S+) (\S+) "([^"]*)" (\d{3}) (\d+) "[^"]*" (\d+\.\d+)$')
MANY = re.compile(r"^h\d+\.many\.web\.test$")
STATE = Path(os.environ.get("LOCALWEB_STATE", "/var/lib/localweb"))


def host_delays(path: Path, default: float, floor: float) -> dict[str, float]:
    """Each host's delay: its robots.txt ``Crawl-delay`` (``hosts.tsv``) raised to ``floor``, else ``default``."""
    delays: dict[str, float] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        host, _kind, crawl_delay = line.split("\t")[:3]
        delays[host] = default if crawl_delay == "-" else max(floor, float(crawl_delay))
    return delays


def read_requests(log: Path, since: float, until: float,
                  numbers: tuple[int, int] = (1, 10**9)) -> dict[str, list[tuple[float, float]]]:
    """``host → [(start, end)]`` sorted, for many-hosts requests that ended within ``[since, until]``.

    ``numbers`` keeps only hosts ``hNNNN`` with ``NNNN`` in that closed range (two crawls side by side).
    """
    requests: dict[str, list[tuple[float, float]]] = defaultdict(list)
    with log.open(errors="replace") as lines:
        for line in lines:
            match = LINE.match(line.rstrip("\n"))
            if not match or not MANY.match(match.group(3)) or \
                    not numbers[0] <= int(match.group(3)[1:].split(".", 1)[0]) <= numbers[1]:
                continue
            end = float(match.group(1))
            if since <= end <= until:
                requests[match.group(3)].append((end - float(match.group(7)), end))
    for rows in requests.values():
        rows.sort()
    return requests


def middle_rate(starts: list[float]) -> float:
    """Requests per second over the middle 80 % of ``starts`` (many-check.py's rate)."""
    starts = sorted(starts)
    n = len(starts)
    lo, hi = starts[n // 10], starts[(9 * n) // 10]
    return ((9 * n) // 10 - n // 10) / (hi - lo) if hi > lo else float("nan")


def percentile(values: list[float], q: float) -> float:
    """The ``q``-quantile of sorted ``values`` (nearest rank)."""
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def analyse(requests: dict[str, list[tuple[float, float]]], delays: dict[str, float], default: float,
            slices: int = 10) -> dict[str, Any]:
    """The figures described in the module docstring."""
    excess: list[tuple[float, float]] = []  # (start of the later request, excess)
    gap_time = 0.0
    ideal_starts: list[float] = []
    for host, rows in requests.items():
        delay = delays.get(host, default)
        ideal_starts.extend(rows[0][0] + k * delay for k in range(len(rows)))
        for (_, prev_end), (start, _) in zip(rows, rows[1:], strict=False):
            excess.append((start, start - prev_end - delay))
            gap_time += start - prev_end
    values = sorted(e for _, e in excess)
    starts = [start for rows in requests.values() for start, _ in rows]
    t0, t1 = min(starts), max(starts)
    width = (t1 - t0) / slices or 1.0
    by_slice: list[list[float]] = [[] for _ in range(slices)]
    for start, value in excess:
        by_slice[min(slices - 1, int((start - t0) / width))].append(value)
    busy = sum(1 for rows in requests.values() if len(rows) > 1)
    limit = busy / default
    actual, ideal = middle_rate(starts), middle_rate(ideal_starts)
    return {
        "requests": len(starts), "hosts": len(requests), "busy_hosts": busy, "limit": round(limit, 1),
        "rate_middle": round(actual, 1), "pct_of_limit": round(100 * actual / limit, 2),
        "ideal_rate_middle": round(ideal, 1), "ideal_pct_of_limit": round(100 * ideal / limit, 2),
        "excess_s": {"mean": round(statistics.fmean(values), 4), "p50": round(percentile(values, 0.5), 4),
                     "p90": round(percentile(values, 0.9), 4), "p99": round(percentile(values, 0.99), 4),
                     "max": round(values[-1], 4), "min": round(values[0], 4)},
        "excess_share_of_gap_time": round(sum(values) / gap_time, 4) if gap_time else None,
        "slices": [{"from_s": round(i * width, 1), "gaps": len(s),
                    "mean_excess_s": round(statistics.fmean(s), 4) if s else None,
                    "p90_excess_s": round(percentile(sorted(s), 0.9), 4) if s else None}
                   for i, s in enumerate(by_slice)],
    }


def main(argv: list[str] | None = None) -> int:
    """Print the analysis (and write ``--json``); 1 when the window holds no many-hosts request."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", nargs="?", type=Path, default=STATE / "logs" / "access.log")
    ap.add_argument("--delay", type=float, required=True)
    ap.add_argument("--since", type=float, default=0.0)
    ap.add_argument("--until", type=float, default=float("inf"))
    ap.add_argument("--min-crawl-delay", type=float, help="fetcher.min.crawl.delay (default: --delay, Nutch's)")
    ap.add_argument("--hosts-tsv", type=Path, default=STATE / "many" / "hosts.tsv")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--host-range", default="1-1000000000", help="hNNNN numbers to keep, e.g. 1-2500")
    args = ap.parse_args(argv)
    first, last = (int(n) for n in args.host_range.split("-", 1))
    requests = read_requests(args.log, args.since, args.until, (first, last))
    if not requests:
        print("no many-hosts requests in the window")
        return 1
    floor = args.delay if args.min_crawl_delay is None else args.min_crawl_delay
    result = analyse(requests, host_delays(args.hosts_tsv, args.delay, floor), args.delay)
    for key, value in result.items():
        if key != "slices":
            print(f"{key:28} {value}")
    for row in result["slices"]:
        print(f"  +{row['from_s']:7.1f} s  gaps {row['gaps']:7d}  mean excess {row['mean_excess_s']}  "
              f"p90 {row['p90_excess_s']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
