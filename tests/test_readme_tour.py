"""The README's tour, command by command, on a fresh crawl of the demo site: as a newcomer runs it.

The demo's crawl is rebuilt here as ``scripts/demo`` builds it (``examples/site`` served on a
loopback port, the same ``gossamer.toml``, ``crawl -r 3 --index``) in a temporary directory
named ``demo-crawl``; then every command of the README block marked ``<!-- tour`` runs in a
shell from that directory.  Each must exit 0, and every search must find something: the test
fails when a documented command fails or finds nothing where the README shows hits.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import ENV_KEEP

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def tour_commands() -> list[str]:
    """The commands of the README's tour block, without comments and without ``source``."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- tour.*?-->\s*```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no tour block"
    commands = []
    for line in block.group(1).splitlines():
        command = re.sub(r"\s+#\s.*$", "", line).strip()
        if command and not command.startswith(("source ", "#")):
            commands.append(command)
    return commands


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding ``demo-crawl`` as scripts/demo leaves it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(ROOT / "examples" / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    here = tmp_path_factory.mktemp("newcomer")
    crawl = here / "demo-crawl"
    crawl.mkdir()
    (crawl / "seeds.txt").write_text(f"http://127.0.0.1:{server.server_address[1]}/\n")
    (crawl / "gossamer.toml").write_text('"http.agent.name" = "gossamer-demo"\nfetcher.server.delay = 0.2\n'
                                         '"db.ignore.external.links" = true\n'
                                         '"http.filter.ipaddress.include" = "loopback"\n'
                                         '"linkdb.ignore.internal.links" = false\n')
    try:
        done = _shell("gossamer crawl demo-crawl/seeds.txt -d demo-crawl -r 3 --index", here)
    finally:
        server.shutdown()
    assert done.returncode == 0, done.stderr
    return here


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k in ENV_KEEP and not k.startswith("GOSSAMER_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def test_the_tour_block_is_there_and_uses_the_demo_crawl() -> None:
    commands = tour_commands()
    assert len(commands) >= 10
    assert all("demo-crawl" in c or "demo-nutch" in c or not c.startswith("gossamer ") or
               c.split()[1] in ("plugins",) for c in commands), commands


@pytest.mark.parametrize("command", tour_commands())
def test_every_tour_command_works_on_the_demo_crawl(demo: Path, command: str) -> None:
    if "readseq demo-nutch" in command and not (demo / "demo-nutch").exists():
        assert _shell("gossamer export-nutch -d demo-crawl demo-nutch", demo).returncode == 0
    result = _shell(command, demo)
    assert result.returncode == 0, f"{command}\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
    assert result.stdout.strip(), command
    if command.startswith("gossamer search") and "--json" not in command:
        assert "Hits 1-" in result.stdout, result.stdout  # the README shows hits for each search
    if command.startswith("gossamer search") and "--json" in command:
        assert '"url"' in result.stdout
