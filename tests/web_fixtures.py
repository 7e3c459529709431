"""Helpers of the web tests: a real crawl of a loopback site (WARC content for /cached) and HTTP fetching."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import run_main
from tests.fetch_server import Site, ThreadedSite

HTML = {"Content-Type": "text/html; charset=utf-8"}
CRAWL_SETTINGS = ("-D", "http.agent.name=gossamer-test", "-D", "fetcher.server.delay=0.01",
                  "-D", "linkdb.ignore.internal.links=false")


@dataclass
class Answer:
    """One HTTP answer."""

    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")

    def json(self) -> Any:
        return json.loads(self.body)


def fetch(base: str, path: str, method: str = "GET") -> Answer:
    """``method base+path`` without following redirects into errors (4xx/5xx are answers too)."""
    request = urllib.request.Request(base + path, method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return Answer(response.status, {k.lower(): v for k, v in response.headers.items()}, response.read())
    except urllib.error.HTTPError as exc:
        return Answer(exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read())


def crawl_site(crawl_dir: Path, routes: dict[str, tuple[bytes, dict[str, str]]], rounds: int = 2) -> str:
    """Serve ``routes`` (path → (body, headers)) on loopback, ``crawl --index`` it from ``/``; the site's base URL.

    The site is gone when this returns; the crawl directory holds crawldb,
    segments (with WARC content), linkdb and index.
    """
    with ThreadedSite() as site:
        _routes(site, routes)
        seeds = crawl_dir.parent / f"{crawl_dir.name}-seeds.txt"
        seeds.parent.mkdir(parents=True, exist_ok=True)
        seeds.write_text(site.url("/") + "\n", encoding="utf-8")
        code = run_main("crawl", seeds, "-d", crawl_dir, "-r", str(rounds), "--index", *CRAWL_SETTINGS)
        assert code == 0, f"crawl failed with exit code {code}"
        return site.url("").rstrip("/")


def _routes(site: Site, routes: dict[str, tuple[bytes, dict[str, str]]]) -> None:
    site.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", headers={"Content-Type": "text/plain"})
    for path, (body, headers) in routes.items():
        site.route(path, body=body, headers=headers)
