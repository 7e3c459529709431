"""The WARC writer alone, offline, on pages a crawl stored (issue 22: the records composed as bytes).

``python -m bench.warc_bench CRAWL_DIR [--pages N] [--repeat R] [--level L]``

Loads the first N 200 responses of the crawl's WARC files (:func:`bench.crawl_profile.load_pages`)
and writes each as the fetch process does (:meth:`WarcFileWriter.write_exchange`: a response and
a request record, one gzip member each) into a scratch directory, R passes; prints the CPU
(``time.process_time``) per exchange of the best pass, the bytes written and the records.  Run it
with another checkout's ``src`` first on ``PYTHONPATH`` for a before/after pair.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from bench.crawl_profile import exchange_of, load_pages
from gossamer.crawl.fetch.warc import WarcFileWriter


def run(crawl: Path, pages: int, repeat: int, level: int) -> dict[str, float]:
    """Times the writer; returns ``{"pages", "us_per_exchange", "bytes_in", "bytes_out"}`` of the best pass."""
    exchanges = [exchange_of(content) for content in load_pages(crawl, pages, html_only=False)]
    best, written = float("inf"), 0
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as scratch:
            start = time.process_time()
            with WarcFileWriter(Path(scratch), compression_level=level) as writer:
                for exchange in exchanges:
                    writer.write_exchange(exchange)
            best = min(best, time.process_time() - start)
            written = sum(path.stat().st_size for path in writer.files)
    return {"pages": len(exchanges), "us_per_exchange": round(best / max(1, len(exchanges)) * 1e6, 1),
            "bytes_in": sum(len(e.raw_body) for e in exchanges), "bytes_out": written}


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("crawl", type=Path)
    parser.add_argument("--pages", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--level", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps(run(args.crawl, args.pages, args.repeat, args.level)))


if __name__ == "__main__":
    main()
