"""The ``index`` benchmark's peer: bare tantivy indexing of the same parsed pages, a floor for ``gossamer index``.

``python -m bench.tantivy_floor SEGMENTS OUT_DIR`` reads ``url, title, status`` of every segment's
``parse_data`` and ``url, text`` of its ``parse_text`` (pyarrow, part by part), keeps the pages parsed
with success (status 1; a URL in several segments: the last one), and adds one document per page —
``id`` (raw, stored), ``url``, ``title``, ``content`` (text with positions, stored, Gossamer's analyzer:
simple tokenizer, long tokens removed, lower case) — through ``add_json`` to one tantivy index with
Gossamer's writer settings (256 MB heap, one thread per core), then commits and waits for merges.

No crawldb or linkdb join, no indexing filters (anchors, language identification, metadata), no
delete handling, no engine: what is left is reading the texts and tantivy's own work, so the ratio
``gossamer index`` / this shows what Gossamer's pipeline costs on top. Prints ``{"docs", "seconds"}``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import tantivy

HEAP_BYTES: int = 256 * 1024 * 1024


def floor_argv(segments: Path, out: Path) -> list[str]:
    """The command line that runs this peer over ``segments`` into ``out``."""
    return [sys.executable, "-m", "bench.tantivy_floor", str(segments), str(out)]


def floor_docs(stdout: str) -> int:
    """The documents a run indexed, from its last output line."""
    return int(json.loads(stdout.strip().splitlines()[-1])["docs"])


def main(argv: list[str]) -> None:
    """Entry point (see the module docstring)."""
    if len(argv) != 2:
        raise SystemExit("usage: python -m bench.tantivy_floor SEGMENTS OUT_DIR")
    segments, out = Path(argv[0]), Path(argv[1])
    t0 = time.perf_counter()
    titles: dict[str, str] = {}
    for part in sorted(segments.glob("*/parse_data/part-*.parquet")):
        table = pq.read_table(part, columns=["url", "title", "status"])
        table = table.filter(pc.equal(table.column("status"), 1))
        titles.update(zip(table.column("url").to_pylist(), table.column("title").to_pylist(), strict=True))
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    for name in ("url", "title", "content"):
        builder.add_text_field(name, stored=True, tokenizer_name="default", index_option="position")
    schema = builder.build()
    out.mkdir(parents=True, exist_ok=True)
    index = tantivy.Index(schema, path=str(out), reuse=False)
    index.register_tokenizer("default", tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
                             .filter(tantivy.Filter.remove_long(40)).filter(tantivy.Filter.lowercase()).build())
    writer = index.writer(heap_size=HEAP_BYTES, num_threads=os.cpu_count() or 1)
    docs = 0
    for part in sorted(segments.glob("*/parse_text/part-*.parquet")):
        table = pq.read_table(part, columns=["url", "text"])
        for url, text in zip(table.column("url").to_pylist(), table.column("text").to_pylist(), strict=True):
            title = titles.pop(url, None)
            if title is None:
                continue
            writer.add_json(json.dumps({"id": url, "url": url, "title": title or "", "content": text or ""},
                                       ensure_ascii=False))
            docs += 1
    writer.commit()
    writer.wait_merging_threads()
    print(json.dumps({"docs": docs, "seconds": round(time.perf_counter() - t0, 3)}))


if __name__ == "__main__":
    main(sys.argv[1:])
