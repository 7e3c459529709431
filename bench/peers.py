"""Peer crawlers of the crawl benchmarks (``shared/peers``): Scrapy and ``wget --mirror``.

* :func:`peers_python` makes (once) the peers' own virtual environment ``<repo>/.venv-peers``
  (git-ignored; shared with the ``urlchain`` benchmark's w3lib) and installs Scrapy into it with pip.
* :func:`ensure_debian_tools` installs Debian's ``wget`` when missing (``apt-get``, as root).
* :func:`scrapy_argv` / :func:`scrapy_result`: ``shared/peers/scrapy_crawl.py`` (a Spider with
  LinkExtractor: 64 concurrent requests, 16 per host, no delay, robots.txt obeyed, seed hosts only,
  ``--max-pages`` cap) and the ``SCRAPY_RESULT`` JSON line it prints.
* :func:`wget_argv` / :func:`wget_counts` / :func:`wget_saved_pages`: ``wget --mirror`` as
  ``shared/peers/run_peers.sh`` runs it (one connection, robots on, no wait, HTML only, seed hosts only)
  but stopped by a download quota (``-Q``), with ``timeout`` only as a safety net: wget's order is fixed
  (seed by seed, breadth-first), so a quota makes it save the same pages every run, whatever the
  machine's speed (run_peers.sh's fixed seconds do not: see :mod:`bench.crawl_pairs`). Pages are counted,
  and listed, from its ``--no-verbose`` log.

The peers folder is ``$PEERS_DIR`` if set, else ``<repo>/../shared/peers``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench import REPO_ROOT

PEERS_DIR: Path = Path(os.environ.get("PEERS_DIR", REPO_ROOT.parent / "shared" / "peers"))
PEERS_VENV: Path = REPO_ROOT / ".venv-peers"
SCRAPY_REQUIREMENTS: tuple[str, ...] = ("scrapy>=2.11,<3",)
SCRAPY_AGENT: str = "peer-scrapy"
WGET_AGENT: str = "peer-wget"
WGET_TIMEOUT_EXIT: int = 124
"""Exit status of ``timeout`` when it stopped wget: its safety net only (the crawl benchmark's ``wget_fixed_work``
check then fails: the pages it saved depend on the machine's speed)."""
WGET_OK_EXITS: tuple[int, ...] = (0, 8, WGET_TIMEOUT_EXIT)
"""wget exits 8 when some server answered an error (the 404s of the doc sites): still a good run."""


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[peers] {message}", file=sys.stderr, flush=True)


def peers_python(requirements: tuple[str, ...] = SCRAPY_REQUIREMENTS) -> tuple[str | None, str]:
    """Python of the peers venv with ``requirements`` installed; (None, reason) if it cannot be made."""
    python = PEERS_VENV / "bin" / "python"
    try:
        if not python.exists():
            log(f"creating {PEERS_VENV}")
            subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
        res = subprocess.run([str(python), "-m", "pip", "install", "-q", *requirements],
                             capture_output=True, text=True)
        if res.returncode != 0:
            return None, f"pip install {' '.join(requirements)} failed: {res.stderr.strip()[-500:]}"
        version = subprocess.run([str(python), "-c", "import scrapy; print(scrapy.__version__)"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        return None, f"peer venv unavailable: {exc}"
    return str(python), version


def ensure_debian_tools(commands: dict[str, str]) -> list[str]:
    """Install the Debian package of each missing command (``{command: package}``); returns problems."""
    missing = sorted({pkg for cmd, pkg in commands.items() if shutil.which(cmd) is None})
    if not missing:
        return []
    if os.geteuid() != 0:
        return [f"missing {', '.join(missing)} and not root: apt-get install {' '.join(missing)}"]
    log(f"apt-get install {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends",
                                                *missing]):
        res = subprocess.run(argv, capture_output=True, text=True, env=env)
        if res.returncode != 0:
            return [f"{' '.join(argv)} failed: {res.stderr.strip()[-500:]}"]
    return [f"{cmd} still missing" for cmd in commands if shutil.which(cmd) is None]


def scrapy_argv(python: str, seeds: Path, max_pages: int, out: Path, stats: Path) -> list[str]:
    """Command line of the Scrapy peer on ``seeds`` (hosts already excluded from the file)."""
    return [python, str(PEERS_DIR / "scrapy_crawl.py"), "--seeds", str(seeds), "--max-pages", str(max_pages),
            "--out", str(out), "--stats", str(stats)]


def scrapy_result(stdout: str) -> dict[str, Any] | None:
    """The JSON of the ``SCRAPY_RESULT`` line (items, responses, status counts ...), or None."""
    for line in stdout.splitlines():
        if line.startswith("SCRAPY_RESULT "):
            return json.loads(line.split(" ", 1)[1])
    return None


def wget_argv(seeds: Path, hosts: list[str], mirror_dir: Path, quota_mb: int, seconds: int) -> list[str]:
    """``timeout SECONDS wget --mirror -Q QUOTA ...``: run_peers.sh's wget (HTML only, robots on, no wait)
    ending when it has downloaded ``quota_mb`` MiB (checked between files), or after ``seconds`` at most."""
    return ["timeout", str(seconds), "wget", "--mirror", f"--quota={quota_mb}m", "--no-parent",
            f"--domains={','.join(hosts)}",
            "--accept", "html,htm", "-e", "robots=on", "--wait=0", f"--user-agent={WGET_AGENT}",
            "--no-verbose", f"--directory-prefix={mirror_dir}", f"--input-file={seeds}"]


_WGET_HTML = re.compile(r' URL:.*\.html?"? \[')
_WGET_URL = re.compile(r" URL: ?(\S+) \[")
_WGET_QUOTA = re.compile(r"^Download quota of \S+ EXCEEDED!$", re.MULTILINE)


def wget_saved_pages(log_text: str) -> list[str]:
    """The URLs of the HTML pages wget saved, in its order (the lines :func:`wget_counts` counts as pages)."""
    return [m.group(1) for line in log_text.splitlines()
            if _WGET_HTML.search(line) and (m := _WGET_URL.search(line))]


def wget_quota_reached(log_text: str) -> bool:
    """True when wget ended on its download quota (not stopped by ``timeout`` part way)."""
    return bool(_WGET_QUOTA.search(log_text))


def wget_counts(log_text: str) -> dict[str, int]:
    """``responses_saved`` (every `` URL:`` line) and ``html_pages`` (run_peers.sh's HTML count)."""
    saved = html = 0
    for line in log_text.splitlines():
        if " URL:" in line:
            saved += 1
            if _WGET_HTML.search(line):
                html += 1
    errors = sum(1 for line in log_text.splitlines() if re.search(r"\d ERROR \d{3}", line))
    return {"responses_saved": saved, "html_pages": html, "error_responses": errors}
