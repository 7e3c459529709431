"""The ``parsedocs`` benchmark: parse throughput per document format, and the cost of refusing hostile files.

Corpus: documents built by :mod:`tests.docsamples` (DOCX, XLSX, PPTX, ODT, ODS, ODP, RTF,
RSS, Atom, generic XML) of a realistic size — 40 paragraphs of about 60 words and 10
links each (an XLSX: 200 rows of 5 cells).  Each format runs in its own measured process
on one core (``python -m bench.parse_bench throughput FORMAT N``), timing only the parse
loop: pages/s per core and MB/s of input.

Hostile files (``python -m bench.parse_bench hostile NAME``), one process each, so the
step's peak memory is that file's: a DOCX zip bomb (1 GiB of zeros; 128 MiB with
``--quick``) with an honest and a lying size header, a DOCX and an ODT whose body nests
1M elements, a DOCX, an XML document and a feed carrying "billion laughs", 1M-deep XML
and 1M-deep RTF groups.  Goal: each refused (``ValueError``) in under 1 s, the process
under 256 MB peak.  A PDF of a million objects (100k with ``--quick``) goes through the parse
job's own path instead (``python -m bench.parse_bench sandboxed NAME``): the parser in its worker
process under ``parser.timeout`` (10 s here) and ``parser.memory.max`` (2 GiB); goal: stopped,
with the reason, or parsed, within the timeout plus 5 s (PDFium reads the ``--quick`` file's 100k
empty pages in about 5 s; pypdf needed more than the timeout).  No peer (the parsers are
Gossamer's own); absolute numbers only.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from bench import MB, BenchOptions
from bench.steps import StepRunner, work_dir

NAME = "parsedocs"
DESCRIPTION = "Document parsers (PDF, OOXML, ODF, RTF, feeds, XML): pages/s per core per format; hostile files refused"
DEFAULT_DOCS, QUICK_DOCS = 2000, 200
HOSTILE_SECONDS, HOSTILE_MB = 1.0, 256
FORMATS = ("pdf", "docx", "xlsx", "pptx", "odt", "ods", "odp", "rtf", "rss", "atom", "xml")
SANDBOXED = ("pdf_million_objects",)
"""Hostile files parsed through the parse job's own path (:class:`~gossamer.crawl.parse.page.PageParser`:
the parser in its worker process under ``parser.timeout`` and ``parser.memory.max``)."""
SANDBOX_TIMEOUT_S = 10
HOSTILE = ("docx_zip_bomb", "docx_zip_bomb_lying", "docx_nested_xml", "docx_billion_laughs", "odt_nested_xml",
           "rtf_nested_groups", "xml_nested", "xml_billion_laughs", "feed_billion_laughs")
_WORDS = ("loom engine card punch weave thread analytical difference number table column operation variable "
          "store mill result bernoulli note program machine").split()


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[parsedocs] {message}", file=sys.stderr, flush=True)


def _sample(fmt: str, seed: int) -> tuple[bytes, str]:
    """One document of ``fmt`` and the plugin id that parses it."""
    from tests import docsamples as d

    rng = random.Random(seed)
    paras = [" ".join(rng.choice(_WORDS) for _ in range(60)) for _ in range(40)]
    links = [(f"http://example.org/{seed}/{i}", f"link {i}") for i in range(10)]
    items = [(url, anchor, "Wed, 01 May 2024 10:00:00 GMT") for url, anchor in links]
    builders: dict[str, Callable[[], tuple[bytes, str]]] = {
        "docx": lambda: (d.docx(paras, links), "ooxml"),
        "xlsx": lambda: (d.xlsx([[rng.choice(_WORDS) for _ in range(5)] for _ in range(200)], links), "ooxml"),
        "pptx": lambda: (d.pptx(paras[:20], links), "ooxml"),
        "odt": lambda: (d.odf(d.ODT, paras, links), "odf"),
        "ods": lambda: (d.odf(d.ODS, paras, links), "odf"),
        "odp": lambda: (d.odf(d.ODP, paras, links), "odf"),
        "rtf": lambda: (d.rtf(paras, links), "rtf"),
        "pdf": lambda: (_pdf(paras, links), "pdf"),
        "rss": lambda: (d.rss([(u, a + " " + p[:200], t) for (u, a, t), p in zip(items, paras, strict=False)]),
                        "feed"),
        "atom": lambda: (d.atom([(u, a, "2024-05-01T10:00:00Z") for u, a, _ in items]), "feed"),
        "xml": lambda: (("<doc><title>T</title>" + "".join(f"<p>{p}</p>" for p in paras) + "</doc>").encode(),
                        "xml"),
    }
    return builders[fmt]()


def _pdf(paras: list[str], links: list[tuple[str, str]]) -> bytes:
    """A 4-page PDF: the paragraphs as 80-character lines, the links as annotations on page 1."""
    from tests.pdf_samples import make_pdf

    lines = [line for p in paras for line in (p[i:i + 80] for i in range(0, len(p), 80))]
    pages = [lines[i:i + 32] for i in range(0, len(lines), 32)][:4]
    return make_pdf(pages, [(0, url, (72, 700 - 20 * k, 300, 712 - 20 * k)) for k, (url, _) in enumerate(links)],
                    {"Title": "Analytical engine notes", "Author": "A. Lovelace"})


def million_object_pdf(objects: int = 1_000_000) -> bytes:
    """A PDF whose page tree holds ``objects`` empty pages (one object each), with a correct xref table."""
    head = b"%PDF-1.4\n"
    kids = " ".join(f"{i} 0 R" for i in range(3, objects + 3)).encode()
    bodies = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % objects]
    bodies.extend(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>" for _ in range(objects))
    parts, offsets, position = [head], [], len(head)
    for number, body in enumerate(bodies, start=1):
        chunk = b"%d 0 obj\n" % number + body + b"\nendobj\n"
        offsets.append(position)
        parts.append(chunk)
        position += len(chunk)
    xref = [b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)]
    xref.extend(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(bodies) + 1, position)
    return b"".join(parts + xref + [trailer])


def sandboxed(name: str, quick: bool) -> dict[str, Any]:
    """Parse a hostile file as the parse job does (worker process, time and memory limits)."""
    from gossamer.core import Content, CrawlDatum, load_settings
    from gossamer.crawl.parse.page import PageParser

    data = million_object_pdf(100_000 if quick else 1_000_000)
    settings = load_settings(overrides=[f"parser.timeout={SANDBOX_TIMEOUT_S}"])
    parser = PageParser(settings)
    content = Content("http://h/x.pdf", "http://h/x.pdf", data, "application/pdf")
    started = time.perf_counter()
    try:
        page = parser.parse("http://h/x.pdf", CrawlDatum(), content)
    finally:
        parser.close()
    return {"file": name, "bytes": len(data), "seconds": time.perf_counter() - started,
            "refused": bool(page.failed), "reason": page.failed or f"parsed: {len(page.parse_text.text)} chars"}


def _parser(plugin: str) -> Any:
    from importlib import import_module

    from gossamer.core import load_settings

    return import_module(f"gossamer.plugins.builtin.parse_{plugin}").PLUGIN.factory(load_settings())


def throughput(fmt: str, count: int) -> dict[str, Any]:
    """Parse ``count`` documents of ``fmt`` (16 distinct ones, cycled); time the loop only."""
    from gossamer.core import Content

    samples = [_sample(fmt, seed) for seed in range(16)]
    parser = _parser(samples[0][1])
    contents = [Content(f"http://h/{i}", f"http://h/{i}", data) for i, (data, _) in enumerate(samples)]
    parser.parse(contents[0])
    started = time.perf_counter()
    size = 0
    for i in range(count):
        content = contents[i % len(contents)]
        result = parser.parse(content)
        size += len(content.content)
        assert result.text.text
    seconds = time.perf_counter() - started
    return {"format": fmt, "docs": count, "seconds": seconds, "pages_per_s": count / seconds,
            "mb_per_s": size / MB / seconds, "avg_doc_bytes": size // count}


def hostile(name: str, quick: bool) -> dict[str, Any]:
    """Build one hostile file, parse it, report the refusal and the time it took."""
    from tests import docsamples as d

    from gossamer.core import Content

    bomb = (128 << 20) if quick else (1 << 30)
    files: dict[str, Callable[[], tuple[bytes, str]]] = {
        "docx_zip_bomb": lambda: (d.zip_bomb_docx(bomb), "ooxml"),
        "docx_zip_bomb_lying": lambda: (d.zip_bomb_docx(bomb, honest=False), "ooxml"),
        "docx_nested_xml": lambda: (d.ooxml_with("word/document.xml", d.nested_xml()), "ooxml"),
        "docx_billion_laughs": lambda: (d.ooxml_with("word/document.xml", d.billion_laughs()), "ooxml"),
        "odt_nested_xml": lambda: (d.zip_of({"content.xml": d.nested_xml()}), "odf"),
        "rtf_nested_groups": lambda: (d.nested_rtf(), "rtf"),
        "xml_nested": lambda: (d.nested_xml(), "xml"),
        "xml_billion_laughs": lambda: (d.billion_laughs(), "xml"),
        "feed_billion_laughs": lambda: (d.billion_laughs(), "feed"),
    }
    data, plugin = files[name]()
    parser = _parser(plugin)
    started = time.perf_counter()
    try:
        parser.parse(Content("http://h/x", "http://h/x", data))
        error = ""
    except ValueError as exc:
        error = str(exc)
    return {"file": name, "bytes": len(data), "seconds": time.perf_counter() - started, "refused": bool(error),
            "reason": error}


def run(opts: BenchOptions) -> dict[str, Any]:
    """Every format's throughput, then every hostile file; returns the result dict."""
    count = opts.urls or (QUICK_DOCS if opts.quick else DEFAULT_DOCS)
    loops: dict[str, dict[str, Any]] = {}
    refusals: dict[str, dict[str, Any]] = {}
    goals = []
    with work_dir(opts, NAME, log) as work:
        runner = StepRunner(work / "logs", count, log)
        for fmt in FORMATS:
            m = runner.step(f"parse_{fmt}", [sys.executable, "-m", "bench.parse_bench", "throughput", fmt, str(count)])
            if m is not None:
                loops[fmt] = json.loads(m.stdout.strip().splitlines()[-1])
        for name in (*HOSTILE, *SANDBOXED):
            verb = "sandboxed" if name in SANDBOXED else "hostile"
            argv = [sys.executable, "-m", "bench.parse_bench", verb, name, *(["--quick"] if opts.quick else [])]
            m = runner.step(f"hostile_{name}", argv)
            if m is None:
                continue
            found = json.loads(m.stdout.strip().splitlines()[-1])
            found["peak_mb"] = m.peak_rss_bytes / MB
            refusals[name] = found
            limit_s = SANDBOX_TIMEOUT_S + 5 if name in SANDBOXED else HOSTILE_SECONDS
            limit_mb = 2560 if name in SANDBOXED else HOSTILE_MB
            # a sandboxed file is bounded when the job is done with it in time: refused, or parsed within the limits
            handled = found["refused"] or (name in SANDBOXED and found["seconds"] < limit_s)
            verdict = "refused" if name not in SANDBOXED else "refused or parsed in time"
            runner.check(f"{name} {verdict}", handled, found["reason"] or "parsed without error")
            goals.append({"goal": f"{name}: {verdict} in < {limit_s} s, < {limit_mb} MB peak",
                          "value_ms": found["seconds"] * 1000, "peak_mb": found["peak_mb"],
                          "met": handled and found["seconds"] < limit_s and found["peak_mb"] < limit_mb})
    return {
        "params": {"docs_per_format": count, "bomb_bytes": (128 << 20) if opts.quick else (1 << 30)},
        "steps": runner.steps,
        "formats": loops,
        "rates": {fmt: loop["pages_per_s"] for fmt, loop in loops.items()},
        "hostile": refusals,
        "checks": runner.checks,
        "goals": goals,
    }


def main(argv: list[str]) -> None:
    """Worker entry: ``throughput FORMAT N`` or ``hostile NAME [--quick]``; one JSON line on stdout."""
    if argv[0] == "throughput":
        print(json.dumps(throughput(argv[1], int(argv[2]))))
    elif argv[0] == "hostile":
        print(json.dumps(hostile(argv[1], "--quick" in argv)))
    elif argv[0] == "sandboxed":
        print(json.dumps(sandboxed(argv[1], "--quick" in argv)))
    else:
        raise SystemExit(f"usage: python -m bench.parse_bench throughput FORMAT N | hostile NAME [--quick]: {argv}")


if __name__ == "__main__":
    main(sys.argv[1:])
