"""docs/for-scrapy-users.md works as written: its plugin, registered by entry point, its crawl and its query.

The plugin module is taken from the page's Python block and installed the way ``pip`` would leave
it (a module and a ``.dist-info`` with the entry point on the path); the crawl and the query are
the page's own commands, run against a loopback shop.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ENV_KEEP
from tests.fetch_server import ThreadedSite

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "for-scrapy-users.md"
pytestmark = pytest.mark.slow


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), re.S)


def _install(site: Path) -> None:
    """The module and an entry point as an installed distribution would provide them."""
    site.mkdir()
    (site / "myextract.py").write_text(_blocks("python")[0])
    info = site / "myextract-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: myextract\nVersion: 0.1\n")
    entry = re.search(r'^(\S+) = "(\S+)"$', _blocks("toml")[0], re.M)
    assert entry, "the page names an entry point"
    (info / "entry_points.txt").write_text(f"[gossamer.plugins]\n{entry.group(1)} = {entry.group(2)}\n")


def test_the_page_is_short() -> None:
    assert len(PAGE.read_text().splitlines()) < 50


def test_the_scrapy_users_page_extracts_and_exports_products(tmp_path: Path) -> None:
    _install(tmp_path / "site")
    with ThreadedSite() as shop:
        links = "".join(f"<a href='/p{i}'>p{i}</a>" for i in range(3))
        shop.route("/", body=f"<html><title>Shop</title>{links}</html>".encode())
        for i in range(3):
            shop.route(f"/p{i}", body=(f"<html><title>P{i}</title><h1 class='product'>Widget {i}</h1>"
                                       f"<span class='price'> {i}.99 EUR </span></html>").encode())
        (tmp_path / "seeds.txt").write_text(shop.url("/") + "\n")
        env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "site"), env.get("PYTHONPATH", "")])
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        crawl, query = (block.replace("\\\n", " ") for block in _blocks("bash")[0].strip().split("\ngossamer sql"))
        query = "gossamer sql" + query
        done = subprocess.run(["bash", "-c", crawl + " -D fetcher.server.delay=0"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=180, check=False)
        assert done.returncode == 0, done.stderr
    result = subprocess.run(["bash", "-c", query], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["name"], r["price"]) for r in rows] == [(f"Widget {i}", f"{i}.99 EUR") for i in range(3)]
