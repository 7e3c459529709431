"""A fetch that fills the disk stops with one line and exit code 3, and installs nothing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ENV_KEEP, write_lines
from tests.fetch_server import ThreadedSite

UNSHARE = shutil.which("unshare")


def test_a_fetch_that_fills_the_disk_fails_cleanly(cli, tmp_path: Path) -> None:
    if UNSHARE is None:
        pytest.skip("unshare (util-linux) is missing")
    small, crawl = tmp_path / "small", tmp_path / "crawl"
    small.mkdir()
    probe = subprocess.run([UNSHARE, "-m", "sh", "-c", f"mount -t tmpfs -o size=1m tmpfs {shlex.quote(str(small))}"],
                           capture_output=True, text=True, timeout=30, check=False)
    if probe.returncode != 0:
        pytest.skip(f"no private tmpfs mounts here (unshare -m: {probe.stderr.strip()[:120]})")
    with ThreadedSite() as site:
        for i in range(6):
            site.route(f"/p{i}", body=os.urandom(700_000), headers={"Content-Type": "application/octet-stream"})
        assert cli("inject", crawl / "crawldb", write_lines(tmp_path / "s.txt", [site.url(f"/p{i}") for i in range(6)])
                   ).code == 0
        assert cli("generate", crawl / "crawldb", crawl / "segments").code == 0
        segment = next((crawl / "segments").iterdir()).name
        gossamer = str(Path(sys.executable).with_name("gossamer"))
        fetch = [gossamer, "fetch", f"{small}/crawl/segments/{segment}", "-D", "http.agent.name=gossamer-test",
                 "-D", "fetcher.server.delay=0", "-D", "http.content.limit=-1"]
        s, c = shlex.quote(str(small)), shlex.quote(str(crawl))
        script = (f"mount -t tmpfs -o size=2m tmpfs {s} && cp -a {c} {s}/ && {shlex.join(fetch)}; code=$?; "
                  f"ls -a {s}/crawl/segments/{segment}; exit $code")
        env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
        result = subprocess.run([UNSHARE, "-m", "sh", "-c", script], capture_output=True, text=True, env=env,
                                timeout=120, check=False)
    assert result.returncode == 3, (result.returncode, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "No space left on device" in errors[0], result.stderr
    assert "Traceback" not in result.stderr
    listing = result.stdout.split()
    assert "crawl_fetch" not in listing and "content" not in listing, listing  # nothing installed
