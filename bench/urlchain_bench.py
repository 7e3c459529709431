"""The ``urlchain`` benchmark: URLs/s through the default URL normalizer and filter chain.

Corpus: link URLs harvested from the local web's documentation HTML (``bench.link_urls``), or
real-looking synthetic URLs when the local web's packages are not installed; 1M by default.
Each mode runs in its own process on one core (``bench.urlchain_worker``), timing only its loop:

* ``ada``: the raw ada-url parse (``URL(u).href``) — the floor a Python chain is compared with;
* ``normalize``: Gossamer's default normalizers (basic + regex, Nutch's default rule file);
* ``filter``: the default URL filters (regex, Nutch's default rules) on normalized URLs;
* ``chain``: both, as every URL entering a crawl sees them;
* ``batch``: the same chain over Arrow columns (issue 22, as ``inject`` runs it): vectorized screens
  vouch for most URLs, the per-URL chain decides the rest;
* ``w3lib``: the peer — Scrapy's ``w3lib.url.canonicalize_url``, from a separate virtual
  environment (``.venv-peers``, created on first use).

Goal (issue 3): the whole default chain at 100k URLs/s per core or better.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import REPO_ROOT, BenchOptions
from bench.link_urls import harvest_links, synthetic_links
from bench.steps import StepRunner

NAME = "urlchain"
DESCRIPTION = "URLs/s of the default normalizer+filter chain per core; raw ada-url parse; w3lib peer"
DEFAULT_URLS, QUICK_URLS = 1_000_000, 50_000
GOAL_URLS_PER_S = 100_000
PEERS_VENV = REPO_ROOT / ".venv-peers"
PEER_REQUIREMENTS = ["w3lib>=2.1,<3"]
MODES = ("ada", "normalize", "filter", "chain", "batch")


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[urlchain] {message}", file=sys.stderr, flush=True)


def peers_python() -> str | None:
    """Python of the peers venv (created with w3lib on first use); None if it cannot be made."""
    python = PEERS_VENV / "bin" / "python"
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(PEERS_VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PEER_REQUIREMENTS], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (OSError, subprocess.CalledProcessError) as exc:
        log(f"peer venv unavailable: {exc}")
        return None
    return str(python)


def corpus(count: int, work: Path) -> tuple[Path, str]:
    """Write ``count`` URLs to a file; returns (path, source name)."""
    urls = harvest_links(count)
    source = "localweb links"
    if len(urls) < count:
        log(f"local web gave {len(urls)} links; topping up with synthetic URLs")
        urls += synthetic_links(count - len(urls))
        source = "localweb links + synthetic" if urls else "synthetic"
    path = work / "urls.txt"
    path.write_text("\n".join(u.replace("\n", "") for u in urls) + "\n", encoding="utf-8")
    return path, source


def run(opts: BenchOptions) -> dict[str, Any]:
    """Run every mode on the same corpus; returns the result dict."""
    count = opts.urls or (QUICK_URLS if opts.quick else DEFAULT_URLS)
    with tempfile.TemporaryDirectory(prefix="gossamer-bench-urlchain-", dir=opts.workdir) as tmp:
        work = Path(tmp)
        urls_file, source = corpus(count, work)
        runner = StepRunner(work / "logs", count, log)
        loops: dict[str, dict[str, Any]] = {}
        for mode in MODES:
            m = runner.step(mode, [sys.executable, "-m", "bench.urlchain_worker", str(urls_file), mode])
            if m is not None:
                loops[mode] = json.loads(m.stdout.strip().splitlines()[-1])
        peer = peers_python()
        if peer is not None:
            env = {"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"}
            m = runner.step("w3lib", [peer, "-m", "bench.urlchain_worker", str(urls_file), "w3lib"], env=env)
            if m is not None:
                loops["w3lib"] = json.loads(m.stdout.strip().splitlines()[-1])
    rate = {mode: loop["urls_per_s"] for mode, loop in loops.items()}
    ratios = {}
    if "chain" in rate and "ada" in rate:
        ratios["ada_parse_vs_chain_speed"] = rate["ada"] / rate["chain"]
    if "chain" in rate and "batch" in rate:
        ratios["batch_vs_chain_speed"] = rate["batch"] / rate["chain"]
    if "chain" in rate and "w3lib" in rate:
        ratios["chain_vs_w3lib_speed"] = rate["chain"] / rate["w3lib"]
    chain = rate.get("chain")
    return {
        "params": {"urls": count, "source": source},
        "steps": runner.steps,
        "loops": loops,
        "ratios": ratios,
        "checks": runner.checks,
        "goals": [{"goal": f"default chain >= {GOAL_URLS_PER_S:,} URLs/s per core", "value": chain,
                   "met": bool(chain and chain >= GOAL_URLS_PER_S)}],
    }
