"""CPU per page of the fetcher's inline parse path, offline, on pages a crawl stored (issue 22).

``python -m bench.crawl_profile CRAWL_DIR [--pages N] [--html-only] [--profile N] [--repeat R]``

Reads the HTTP responses of every segment's WARC files under ``CRAWL_DIR`` (as the
``parse`` job does), keeps one response per URL (the crawl's ``fetch_success`` pages:
HTTP 200), and runs what the fetch process does with each page after the fetch: the
scoring filters' ``pass_score_before_parsing``, :class:`~gossamer.crawl.parse.PageParser`
(with the benchmark crawl's settings) and :class:`~gossamer.crawl.parse.ParseOutputs`
(parse tables written to a scratch directory), plus the WARC records of the exchange, under
the fetch process's garbage-collector thresholds (:func:`gossamer.core.page_work_gc`).
Prints pages, CPU seconds of this process (``time.process_time``: a PDF parsed in the
parse worker process is not in it — use ``--html-only`` to leave PDFs out) and CPU ms
per page; ``--profile N`` also prints cProfile's top N functions by own time.

No network: the pages come from the WARC files.  The loop is what :class:`SegmentSink`
does per page, without the event loop and the HTTP client.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from gossamer.core import Content, CrawlDatum, CrawlStatus, HttpExchange, Settings, now_millis, page_work_gc
from gossamer.crawl.parse import PageParser, ParseOutputs
from gossamer.crawl.parse.warc_input import read_responses

SETTINGS = {
    "http.agent.name": "gossamer-bench",
    "db.ignore.external.links": True,
    "db.max.outlinks.per.page": -1,
    "http.content.limit": 10 * 1024 * 1024,
}
"""The ``crawl`` benchmark's settings that matter to parsing (:data:`bench.crawl_bench.CRAWL_SETTINGS`)."""


def load_pages(crawl: Path, limit: int, html_only: bool) -> list[Content]:
    """Contents of the crawl's 200 responses, one per URL, in segment and file order."""
    pages, seen = [], set()
    for warc in sorted(crawl.glob("segments/*/content/*.warc.gz")):
        for response in read_responses(warc, SETTINGS["http.content.limit"]):
            content = response.content
            if response.status != 200 or content.url in seen:
                continue
            if html_only and "html" not in content.content_type:
                continue
            seen.add(content.url)
            pages.append(content)
            if len(pages) >= limit:
                return pages
    return pages


def exchange_of(content: Content) -> HttpExchange:
    """An HTTP exchange carrying the page's headers and body, for the WARC writer."""
    return HttpExchange(url=content.url, method="GET", request_target="/", request_headers=[("Host", "x")],
                        http_version="1.1", status=200, reason="OK", response_headers=content.headers,
                        raw_body=content.content, date=datetime.now(UTC), ip="127.0.0.1")


def run(pages: list[Content], scratch: Path, warc: bool) -> int:
    """Parse and store every page as the fetch process does; returns the pages parsed."""
    from gossamer.crawl.fetch.warc import WarcFileWriter

    settings = Settings(SETTINGS)
    parser = PageParser(settings)
    outputs = ParseOutputs(scratch / "staging", 0, settings, "20260101000000")
    writer = WarcFileWriter(scratch / "content") if warc else None
    for content in pages:
        datum = CrawlDatum(CrawlStatus.FETCH_SUCCESS, now_millis())
        if writer is not None:
            writer.write_exchange(exchange_of(content))
        parser.pass_score_before_parsing(content.url, datum, content)
        outputs.add(parser.parse(content.url, datum, content))
    outputs.close()
    if writer is not None:
        writer.close()
    parser.close()
    return len(pages)


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("--pages", type=int, default=1 << 62)
    ap.add_argument("--html-only", action="store_true")
    ap.add_argument("--no-warc", action="store_true")
    ap.add_argument("--profile", type=int, default=0, help="print cProfile's top N by own time")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    pages = load_pages(args.crawl, args.pages, args.html_only)
    best = float("inf")
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as scratch:
            profiler = cProfile.Profile() if args.profile else None
            start = time.process_time()
            if profiler is not None:
                profiler.enable()
            with page_work_gc():
                count = run(pages, Path(scratch), not args.no_warc)
            if profiler is not None:
                profiler.disable()
            cpu = time.process_time() - start
            best = min(best, cpu)
            print(f"{count} pages, {cpu:.2f} s CPU, {1000 * cpu / max(1, count):.3f} ms per page", flush=True)
    if args.profile and profiler is not None:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(out.getvalue())
    print(f"best: {1000 * best / max(1, len(pages)):.3f} ms per page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
