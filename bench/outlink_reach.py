"""Which pages a crawl with an outlink cap would reach, predicted from a crawl that kept every link.

``python -m bench.outlink_reach CRAWL [CAP ...]`` (default caps: 100 1000 2000 5000 10000 -1) reads the
parsed pages of ``CRAWL/segments`` (a crawl made with ``db.max.outlinks.per.page=-1``, e.g. the
relevance benchmark's cache), their stored outlinks and the redirects its fetcher followed, and for each
cap walks the link graph from the crawl's seeds for as many rounds as the crawl ran, keeping each
page's first ``cap`` stored links. A page's stored outlinks are exactly the list a cap cuts (the parser
counts only kept links: distinct, in scope, normalized, in document order), so the walk is the capped
crawl less what a crawl does not do by links (pages that failed stay failed). It prints, per cap, the
pages reached, in total and per host, as JSON.

Checked against real crawls of the doc web (2026-11-27, 12 rounds): predicted 23,259 / 29,283 / 41,130
parsed pages for caps 100 / 1000 / -1, crawled 23,242 / 29,285 / 41,130.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

import pyarrow.parquet as pq

DEFAULT_CAPS: tuple[int, ...] = (100, 1000, 2000, 5000, 10_000, -1)


def link_graph(segments: Path) -> tuple[dict[str, list[str]], dict[str, str]]:
    """``(outlinks, redirects)`` of the segments: each parsed page's stored outlink URLs in order, and
    each URL whose fetch ended in a redirect (``_pst_`` ``moved``/``temp_moved``) → the redirect's target."""
    links: dict[str, list[str]] = {}
    for part in sorted(segments.glob("*/parse_data/part-*.parquet")):
        table = pq.read_table(part, columns=["url", "status", "outlinks"])
        for url, status, outlinks in zip(*(table.column(c).to_pylist() for c in ("url", "status", "outlinks")),
                                         strict=True):
            if status == 1:
                links[url] = [o["url"] for o in outlinks or []]
    moved: dict[str, str] = {}
    for part in sorted(segments.glob("*/crawl_fetch/part-*.parquet")):
        for row in pq.read_table(part, columns=["url", "metadata"]).to_pylist():
            status = dict(row["metadata"] or []).get("_pst_", "")
            if status.startswith(("moved", "temp_moved")) and ": " in status:
                moved[row["url"]] = status.rsplit(": ", 1)[1]
    return links, moved


def reached(links: dict[str, list[str]], moved: dict[str, str], seeds: Iterable[str], cap: int,
            rounds: int) -> set[str]:
    """The parsed pages a crawl of ``rounds`` rounds from ``seeds`` reaches keeping ``cap`` links a page
    (``cap < 0``: every link). A URL not parsed but redirected is followed (within its round, as the
    fetcher does), at most a few hops; a URL neither parsed nor redirected ends there."""
    keep = cap if cap >= 0 else None
    seen = set(seeds)
    frontier = list(seen)
    parsed: set[str] = set()
    for _ in range(rounds):
        following: list[str] = []
        for url in frontier:
            for _hop in range(5):
                if url in links or url not in moved:
                    break
                url = moved[url]
            if url not in links or url in parsed:
                continue
            parsed.add(url)
            for target in links[url][:keep]:
                if target not in seen:
                    seen.add(target)
                    following.append(target)
        frontier = following
    return parsed


def by_host(urls: Iterable[str]) -> dict[str, int]:
    """Number of URLs per host name, sorted by host."""
    return dict(sorted(Counter(urlsplit(u).hostname or "" for u in urls).items()))


def main(argv: list[str]) -> None:
    """See the module docstring; seeds and rounds come from the crawl's ``bench-crawl.json`` (12 rounds
    and ``../seeds.txt`` when it has none)."""
    if not argv:
        raise SystemExit("usage: python -m bench.outlink_reach CRAWL [CAP ...]")
    crawl = Path(argv[0])
    caps = [int(c) for c in argv[1:]] or list(DEFAULT_CAPS)
    try:
        marker = json.loads((crawl / "bench-crawl.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        marker = {}
    seeds = marker.get("seeds") or [line.strip() for line in (crawl.parent / "seeds.txt").read_text().splitlines()
                                    if line.strip() and not line.startswith("#")]
    rounds = (marker.get("params") or {}).get("rounds", 12)
    links, moved = link_graph(crawl / "segments")
    sizes = sorted((len(v) for v in links.values()), reverse=True)
    out = {"crawl": str(crawl), "rounds": rounds, "pages": len(links), "most_links": sizes[:5],
           "pages_over": {n: sum(1 for s in sizes if s > n) for n in (100, 1000, 2000, 5000, 10_000)},
           "caps": {}}
    for cap in caps:
        pages = reached(links, moved, seeds, cap, rounds)
        out["caps"][str(cap)] = {"pages": len(pages), "by_host": by_host(pages)}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
