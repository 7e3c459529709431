"""The link walk alone, C against Python, offline, on pages a crawl stored (issue 22, eighth pass).

``python -m bench.linkwalk_bench CRAWL_DIR [--pages N] [--repeat R]``

Loads the first N HTML pages of the crawl's WARC files (as :mod:`bench.crawl_profile` does),
parses each as parse-html does (bounded, charset, lexbor, ``<base href>``), and runs
:meth:`LinkExtractor.extract` on the tree with both walks, the Python one and the C one,
alternately page by page (so both see the same machine load); the parse is not timed.
Prints the CPU (``time.process_time``) of each walk per page, best of R passes, and checks
that both give the same outlinks, anchors, tags, canonical and ``<meta>`` attributes on
every page (a SHA-256 over all of them per walk is printed; a difference exits 1).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from selectolax.lexbor import LexborHTMLParser

from bench.crawl_profile import SETTINGS, load_pages
from gossamer.core import Content, Settings
from gossamer.plugins.builtin.parse_charset import choose_charset
from gossamer.plugins.builtin.parse_html import HtmlParser, document_base
from gossamer.plugins.builtin.parse_html_links import LinkExtractor


def extractors(settings: Settings) -> tuple[LinkExtractor, LinkExtractor]:
    """``(python, native)`` extractors with parse-html's settings."""
    args = (settings.get_list("parser.html.outlinks.ignore_tags"), settings.get_bool("parser.html.form.use_action"),
            settings.get_int("db.max.anchor.length"),
            settings.get_str("parser.html.outlinks.htmlnode_metadata_name").strip(),
            settings.get_int("parser.outlink.cache.size"))
    return LinkExtractor(*args, native=False), LinkExtractor(*args, native=True)


def digest_of(result: tuple[object, str | None], metas: list[dict[str, str | None]]) -> bytes:
    """A digest of one extraction: targets, anchors, metadata, canonical and the metas."""
    outlinks, canonical = result
    text = repr((outlinks.to_urls, outlinks.anchors, outlinks.metadata, canonical, metas))  # type: ignore[attr-defined]
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def run(pages: list[Content], repeat: int) -> int:
    """Times both walks; returns 1 when they differ on a page.  Each page is parsed before its walks, untimed."""
    settings = Settings(SETTINGS)
    html = HtmlParser(settings)
    python, native = extractors(settings)
    best = {"python": float("inf"), "native": float("inf")}
    differ = 0
    for _ in range(repeat):
        spent = {"python": 0.0, "native": 0.0}
        sums = {"python": hashlib.sha256(), "native": hashlib.sha256()}
        for content in pages:
            data = html._bounded(content.content, {})
            decoded = choose_charset(data, content.content_type, html.default_charset, html.detect, html=True)
            tree = LexborHTMLParser(decoded.document)
            base = document_base(tree, content.base_url or content.url)
            digests = {}
            for name, extractor in (("python", python), ("native", native)):
                metas: list[dict[str, str | None]] = []
                start = time.process_time()
                result = extractor.extract(tree, base, metas)
                spent[name] += time.process_time() - start
                digests[name] = digest_of(result, metas)
                sums[name].update(digests[name])
            differ += digests["python"] != digests["native"]
        for name in best:
            best[name] = min(best[name], spent[name])
        print(" ".join(f"{name} {1000 * spent[name] / len(pages):.3f} ms/page" for name in spent),
              f"digests python {sums['python'].hexdigest()[:16]} native {sums['native'].hexdigest()[:16]}", flush=True)
    print(f"{len(pages)} pages; best of {repeat}: python {1000 * best['python'] / len(pages):.3f} ms/page, "
          f"native {1000 * best['native'] / len(pages):.3f} ms/page ({best['native'] / best['python']:.3f}x); "
          f"pages that differ: {differ}")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("crawl", type=Path)
    ap.add_argument("--pages", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    pages = load_pages(args.crawl, args.pages, html_only=True)
    return run(pages, args.repeat)


if __name__ == "__main__":
    sys.exit(main())
