"""Search works on an index on a read-only filesystem (tantivy wants a lock file even to read)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ENV_KEEP
from tests.index_fixtures import Page, make_crawl

UNSHARE = shutil.which("unshare")


def _read_only(directory: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` in a private mount namespace where ``directory`` is mounted read-only."""
    d = shlex.quote(str(directory))
    script = (f"mount --bind {d} {d} && mount -o remount,ro,bind {d} && "
              f"! touch {d}/probe 2>/dev/null && exec {shlex.join(command)}")
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP}
    return subprocess.run([UNSHARE or "unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def test_search_answers_from_a_read_only_index(tmp_path: Path) -> None:
    crawl, _ = make_crawl(tmp_path / "crawl", [Page("http://a.example/", "Alpha page", "hello alpha world"),
                                               Page("http://b.example/", "Beta", "hello beta")])
    if UNSHARE is None:
        pytest.skip("unshare (util-linux) is missing")
    probe = _read_only(tmp_path, ["true"])
    if probe.returncode != 0:
        pytest.skip(f"no private read-only mounts here (unshare -m: {probe.stderr.strip()[:120]})")
    gossamer = str(Path(sys.executable).with_name("gossamer"))
    result = _read_only(tmp_path, [gossamer, "search", "-d", str(crawl), "hello", "--json"])
    assert result.returncode == 0, result.stderr
    assert '"http://a.example/"' in result.stdout and '"http://b.example/"' in result.stdout
