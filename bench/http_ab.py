"""CPU per request of plugin protocol-http: N doc-web pages through ``HttpProtocol.fetch``, C tasks at once.

An A/B measure for the HTTP client alone (no parsing, no storing): run it back to back against two
source trees, e.g. ``PYTHONPATH=/work/main/src .venv/bin/python -m bench.http_ab`` (the old code)
and ``.venv/bin/python -m bench.http_ab`` (this tree).  The pages are the python docs of the local
web (``python.web.test:8080``, see ``/work/shared/localweb/README.md``), taken in a fixed order and
repeated to N.  Prints one JSON line: CPU seconds of this process per page (µs), wall time, bytes.
``-D name=value`` passes a setting (e.g. ``-D http.client=aiohttp`` on a tree that has it).
``--many H``: the pages of H hosts of the many-hosts web instead (``LOCALWEB_MANY``, small pages), taken
host by host in turn, so each host is asked again only after all the others (as a polite crawl does,
over kept-alive connections).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

DOCROOT = Path("/usr/share/doc/python3.11/html")
BASE = "http://python.web.test:8080/"
MANY = Path(os.environ.get("LOCALWEB_STATE", "/var/lib/localweb")) / "many"


def page_urls(count: int) -> list[str]:
    """``count`` URLs of the python docs (sorted, repeated when there are fewer files)."""
    files = sorted(p.relative_to(DOCROOT).as_posix() for p in DOCROOT.rglob("*.html"))
    return [BASE + files[i % len(files)] for i in range(count)]


def many_urls(count: int, hosts: int) -> list[str]:
    """``count`` URLs of the many-hosts web, one per host in turn over the first ``hosts`` hosts."""
    names = sorted(p.name for p in MANY.iterdir() if p.is_dir())[:hosts]
    pages = {n: sorted(p.relative_to(MANY / n).as_posix() for p in (MANY / n).rglob("*.html")) for n in names}
    return [f"http://{names[i % len(names)]}.many.web.test:8080/"
            + pages[names[i % len(names)]][(i // len(names)) % len(pages[names[i % len(names)]])]
            for i in range(count)]


async def run(urls: list[str], concurrency: int, values: list[tuple[str, str]]) -> dict[str, object]:
    """Fetch ``urls`` with ``concurrency`` tasks over one HttpProtocol; CPU and wall of the fetches."""
    from gossamer.core import CrawlDatum, Settings
    from gossamer.plugins.builtin.protocol_http import HttpProtocol

    conf = Settings().with_values([("http.agent.name", "gossamer-bench"),
                                   ("http.filter.ipaddress.include", "loopback"), *values], "bench")
    protocol = HttpProtocol(conf)
    pending = list(reversed(urls))
    sizes: list[int] = []
    codes: dict[str, int] = {}

    async def worker() -> None:
        while pending:
            out = await protocol.fetch(pending.pop(), CrawlDatum())
            codes[out.status.code.name] = codes.get(out.status.code.name, 0) + 1
            if out.content is not None:
                sizes.append(len(out.content.content))

    for url in urls[:50]:  # warm-up: imports, DNS, first connections
        await protocol.fetch(url, CrawlDatum())
    cpu, wall = time.process_time(), time.monotonic()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    await protocol.close()
    return {"pages": len(urls), "concurrency": concurrency, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3),
            "us_cpu_per_page": round(cpu / len(urls) * 1e6, 1), "pages_per_s": round(len(urls) / wall, 1),
            "bytes": sum(sizes), "codes": codes, "load": os.getloadavg()[0],
            "src": __import__("gossamer").__file__, "settings": dict(values)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5000, help="pages to fetch")
    parser.add_argument("-c", type=int, default=64, help="concurrent tasks")
    parser.add_argument("-D", action="append", default=[], help="setting name=value")
    parser.add_argument("--many", type=int, default=0, help="hosts of the many-hosts web to fetch from instead")
    args = parser.parse_args()
    values = [tuple(v.split("=", 1)) for v in args.D]
    urls = many_urls(args.n, args.many) if args.many else page_urls(args.n)
    print(json.dumps(asyncio.run(run(urls, args.c, values))))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
