"""Timed loop of one URL-processing mode over a URL file, run as a child process by the benchmark.

``python -m bench.urlchain_worker <urls file> <mode>`` prints one JSON object: ``urls``,
``seconds`` (the loop only, not start-up or reading), ``urls_per_s``, ``kept``/``errors``.
Modes: ``ada`` (raw ada-url parse + href), ``chain`` (Gossamer's default normalizer chain and URL
filters, scope ``default``), ``normalize`` (normalizers only), ``filter`` (filters only, on the
normalized URLs), ``w3lib`` (Scrapy's ``w3lib.url.canonicalize_url``, the peer), ``batch`` (the
whole chain over Arrow columns of 65,536 URLs, as inject runs it: ``URLChain.unchanged_mask``, then
the per-URL chain for the URLs the screens cannot vouch for).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path


def _mode(name: str) -> Callable[[str], str | None]:
    if name == "ada":
        import ada_url

        return lambda url: ada_url.URL(url).href
    if name == "w3lib":
        from w3lib.url import canonicalize_url

        return canonicalize_url
    from gossamer.core.settings import load_settings
    from gossamer.plugins import PluginRepository, URLChain

    chain = URLChain(PluginRepository(load_settings()), "default", normalize=name != "filter",
                     filter=name != "normalize")
    if name == "normalize":
        return chain.normalize
    if name == "filter":
        return chain.filter

    def full(url: str) -> str | None:
        return chain.filter(chain.normalize(url))

    return full


BATCH_ROWS = 65_536


def _batch_loop(urls: list[str]) -> dict[str, float | int]:
    """Time the batch chain over ``urls`` (start-up and building the Arrow arrays excluded)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from gossamer.core.settings import load_settings
    from gossamer.plugins import PluginRepository, URLChain

    chain = URLChain(PluginRepository(load_settings()), "default")
    arrays = [pa.array(urls[i:i + BATCH_ROWS], pa.string()) for i in range(0, len(urls), BATCH_ROWS)]
    kept = errors = screened = 0
    started = time.perf_counter()
    for array in arrays:
        mask = chain.unchanged_mask(array)
        passed = pc.sum(mask).as_py() or 0
        kept, screened = kept + passed, screened + passed
        for url in array.filter(pc.invert(mask)).to_pylist():
            try:
                kept += chain.filter(chain.normalize(url)) is not None
            except ValueError:
                errors += 1
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "kept": kept, "errors": errors, "screened": screened}


def main(argv: list[str]) -> int:
    """Run the loop; see the module docstring."""
    path, mode = Path(argv[0]), argv[1]
    urls = path.read_text(encoding="utf-8").splitlines()
    if mode == "batch":
        loop = _batch_loop(urls)
        print(json.dumps({"mode": mode, "urls": len(urls), **loop,
                          "urls_per_s": len(urls) / loop["seconds"] if loop["seconds"] else None}))
        return 0
    step = _mode(mode)
    if mode == "filter":  # filters see normalized URLs, as in a crawl
        normalize = _mode("normalize")
        prepared = []
        for url in urls:
            try:
                prepared.append(normalize(url))  # type: ignore[arg-type]
            except ValueError:
                continue
        urls = prepared
    kept = errors = 0
    started = time.perf_counter()
    for url in urls:
        try:
            kept += step(url) is not None
        except ValueError:
            errors += 1
    seconds = time.perf_counter() - started
    print(json.dumps({"mode": mode, "urls": len(urls), "seconds": seconds, "kept": kept, "errors": errors,
                      "urls_per_s": len(urls) / seconds if seconds else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
