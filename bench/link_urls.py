"""URL corpora for the URL-chain benchmark.

``harvest_links`` reads the HTML of the local web's documentation sites (the docroots listed in
``../shared/localweb/sites.tsv``, when those Debian packages are installed) and resolves every
``href``/``src`` against the page's URL on its local host name — real links as a crawler meets them,
relative paths, ``..`` segments, fragments, queries, mixed case and all.  ``synthetic_links`` makes
real-looking URLs when the local web is not installed.  Both are deterministic.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urljoin

from bench import REPO_ROOT

SITES_TSV = REPO_ROOT.parent / "shared" / "localweb" / "sites.tsv"
_LINK = re.compile(rb"""(?:href|src)\s*=\s*["']([^"'<>\s]{1,2000})["']""", re.IGNORECASE)


def localweb_sites(port: int = 8080) -> list[tuple[str, Path]]:
    """(base URL, docroot) of every local-web site whose docroot exists on this machine."""
    if not SITES_TSV.is_file():
        return []
    sites = []
    for line in SITES_TSV.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        host, _ip, _package, docroot, *_ = line.split("\t")
        root = Path(docroot)
        if root.is_dir():
            sites.append((f"http://{host}:{port}/", root))
    return sites


def harvest_links(limit: int) -> list[str]:
    """Up to ``limit`` absolute link URLs from the local web's HTML files (empty if not installed)."""
    urls: list[str] = []
    sites = localweb_sites()
    iterators = [_site_links(base, root) for base, root in sites]
    while iterators and len(urls) < limit:  # round-robin so every site contributes
        for iterator in list(iterators):
            batch = [u for _, u in zip(range(200), iterator, strict=False)]
            if not batch:
                iterators.remove(iterator)
            urls.extend(batch)
    return urls[:limit]


def _site_links(base: str, root: Path) -> Iterator[str]:
    for page in sorted(root.rglob("*.htm*")):
        try:
            data = page.read_bytes()[:2_000_000]
        except OSError:
            continue
        page_url = base + page.relative_to(root).as_posix()
        for match in _LINK.finditer(data):
            href = match.group(1).decode("utf-8", errors="replace")
            if href.startswith(("javascript:", "data:")):
                continue
            yield urljoin(page_url, href)


_WORDS = ["docs", "api", "Library", "index", "guide", "news", "a b", "café", "%7Euser", "..", ".", "x%2Fy"]
_HOSTS = ["www.Example.com", "example.org", "DOCS.python.org", "münchen.example", "example.com.", "10.0.0.1"]


def synthetic_links(limit: int, seed: int = 42) -> list[str]:
    """Real-looking URLs exercising every normalization rule (case, ports, dots, escapes, ids, IDN)."""
    rng = random.Random(seed)
    urls = []
    for i in range(limit):
        scheme = rng.choice(["http", "https", "HTTP", "ftp"])
        host = rng.choice(_HOSTS)
        port = rng.choice(["", "", "", ":80", ":443", ":8080"])
        path = "/".join(rng.choice(_WORDS) for _ in range(rng.randrange(0, 5)))
        suffix = rng.choice(["", ".html", "/", ".gif", ".php", ";jsessionid=ABC123"])
        query = rng.choice(["", "", "?a=1&b=2", "?&x=y", "?PHPSESSID=abc&q=v", "?q=%41%42"])
        fragment = rng.choice(["", "", "#top", "#a?b"])
        urls.append(f"{scheme}://{host}{port}/{path}{i % 1000}{suffix}{query}{fragment}")
    return urls
