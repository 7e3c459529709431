"""The local web (``shared/localweb``) as the crawl benchmarks use it.

* :func:`serve` runs ``serve.sh`` (idempotent; installs nginx and the doc packages on a fresh
  machine, generates the many-hosts web when asked) and returns the seeds it printed.
* :func:`doc_seeds` / :func:`many_seeds` write seed files; :func:`current_many` tells how many
  many-hosts ``/etc/hosts`` resolves now, so a benchmark can put the previous state back.
* :class:`AccessLog` reads only the lines nginx appended since a benchmark step began (the log is
  shared with everyone's traffic); :func:`crawler_requests` summarises one user agent's requests
  and counts requests that robots.txt forbids.
* :func:`many_check` runs ``many-check.py`` and returns its numbers as a dict.
* :func:`server_cpu_seconds` is the CPU time nginx (master + workers) and the trap host used so far.
* :class:`LineClock` time-stamps the lines a measured process writes to its stdout log, so phases
  (rounds, fetches) can be matched with the access log.

The shared folder is ``$LOCALWEB_DIR`` if set, else ``<repo>/../shared/localweb``; the runtime
state is ``$LOCALWEB_STATE`` (default ``/var/lib/localweb``), as for ``serve.sh`` itself.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import REPO_ROOT

LOCALWEB_DIR: Path = Path(os.environ.get("LOCALWEB_DIR", REPO_ROOT.parent / "shared" / "localweb"))
STATE_DIR: Path = Path(os.environ.get("LOCALWEB_STATE", "/var/lib/localweb"))
ACCESS_LOG: Path = STATE_DIR / "logs" / "access.log"
HOSTS_FILE: Path = Path("/etc/hosts")
TRAP_HOST: str = "trap.web.test"
MANY_HOST = re.compile(r"^h\d+\.many\.web\.test$")
LOG_FLUSH_WAIT_S: float = 3.0
"""nginx buffers the access log for up to 2 s (``flush=2s``): wait this long before reading it."""

# robots.txt rules of the doc hosts (shared/localweb/robots/*.txt), as path tests on the request
# path: a request that matches is a robots violation for a crawler obeying robots.txt.
ROBOTS_FORBIDDEN: dict[str, Any] = {
    "java.web.test": lambda path: path.startswith("/java.desktop/"),
    "django.web.test": lambda path: ((path.startswith("/_modules/") and path != "/_modules/index.html")
                                     or path.split("?")[0].endswith(".txt")),
}

_LINE = re.compile(r'^(\d+\.\d+) (\S+) (\S+) "([^"]*)" (\d{3}) (\d+) "([^"]*)" (\d+\.\d+)$')


def log(message: str) -> None:
    """Progress message on stderr."""
    print(f"[localweb] {message}", file=sys.stderr, flush=True)


def _root_prefix() -> list[str]:
    """``[]`` when running as root, else ``sudo -E`` (serve.sh needs root for apt and /etc/hosts)."""
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo", "-E"]
    raise RuntimeError("serve.sh must run as root (no sudo found)")


def serve(many: int = 0, pages: int | None = None) -> dict[str, Any]:
    """Run ``serve.sh`` with ``LOCALWEB_MANY=many``; returns ``seconds`` and the printed ``seeds``.

    The doc hosts and the trap host are always served; ``many`` > 0 adds that many hosts (generated
    once, ~0.57 MB per host), 0 takes them out of nginx and ``/etc/hosts`` again.
    Raises RuntimeError when serve.sh fails.
    """
    script = LOCALWEB_DIR / "serve.sh"
    if not script.exists():
        raise RuntimeError(f"{script} not found: set LOCALWEB_DIR to the shared/localweb folder")
    env = {**os.environ, "LOCALWEB_MANY": str(many), "LOCALWEB_QUIET": "1"}
    if pages is not None:
        env["LOCALWEB_MANY_PAGES"] = str(pages)
    t0 = time.perf_counter()
    res = subprocess.run([*_root_prefix(), "bash", str(script)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        raise RuntimeError(f"serve.sh (LOCALWEB_MANY={many}) failed with exit code {res.returncode}:\n"
                           f"{res.stderr[-2000:]}")
    seeds = [line.strip() for line in res.stdout.splitlines() if line.startswith("http")]
    return {"seconds": round(seconds, 2), "many": many, "seeds": seeds}


def current_many() -> int:
    """How many many-hosts ``/etc/hosts`` resolves now (the last serve.sh run's ``LOCALWEB_MANY``)."""
    try:
        text = HOSTS_FILE.read_text()
    except OSError:
        return 0
    return sum(1 for line in text.splitlines()
               if len(line.split()) >= 2 and MANY_HOST.match(line.split()[1]))


def doc_seeds(path: Path, exclude: Iterable[str] = (TRAP_HOST,)) -> list[str]:
    """Write the doc hosts' seeds (``seeds.txt`` less the ``exclude`` hosts) to ``path``; return them."""
    skip = set(exclude)
    seeds = []
    for line in (LOCALWEB_DIR / "seeds.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        host = re.sub(r"^https?://([^:/]+).*$", r"\1", line)
        if host not in skip:
            seeds.append(line)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(seeds) + "\n")
    return seeds


def seed_hosts(seeds: Iterable[str]) -> list[str]:
    """Host names of seed URLs, in order."""
    return [re.sub(r"^https?://([^:/]+).*$", r"\1", s) for s in seeds]


def many_seeds(path: Path, hosts: int) -> list[str]:
    """Write the roots of the first ``hosts`` many-hosts (``many-seeds.sh``) to ``path``; return them."""
    res = subprocess.run(["bash", str(LOCALWEB_DIR / "many-seeds.sh")], capture_output=True, text=True,
                         env={**os.environ, "LOCALWEB_MANY": str(hosts)}, check=True)
    seeds = [line.strip() for line in res.stdout.splitlines() if line.strip()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(seeds) + "\n")
    return seeds


def many_generated() -> dict[str, int] | None:
    """``hosts``/``pages`` of the generated many-hosts web (its stamp), None if none was generated."""
    try:
        stamp = (STATE_DIR / "many" / ".stamp").read_text()
    except OSError:
        return None
    facts = dict(item.split("=", 1) for item in stamp.split() if "=" in item)
    try:
        return {"hosts": int(facts["hosts"]), "pages": int(facts["pages"])}
    except (KeyError, ValueError):
        return None


def server_cpu_seconds() -> float | None:
    """CPU seconds used so far by nginx (master and workers) and the trap host; None if not running."""
    pids: list[int] = []
    for name in ("nginx.pid", "trap.pid"):
        try:
            pids.append(int((STATE_DIR / name).read_text().split()[0]))
        except (OSError, ValueError, IndexError):
            continue
    if not pids:
        return None
    try:
        master = pids[0]
        kids = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        pids.extend(int(k) for k in kids)
    except (OSError, ValueError):
        pass
    ticks = 0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        ticks += int(rest[11]) + int(rest[12])  # utime, stime (fields 14 and 15)
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Request:
    """One access-log line: end time (``$msec``), host, method, path, status, bytes, agent, duration."""

    end: float
    host: str
    method: str
    path: str
    status: int
    size: int
    agent: str
    seconds: float


class AccessLog:
    """The lines appended to nginx's access log since :meth:`mark` (default: since construction)."""

    def __init__(self, path: Path = ACCESS_LOG) -> None:
        self.path = path
        self.offset = 0
        self.since = 0.0
        self.mark()

    def mark(self) -> None:
        """Start reading from the current end of the log."""
        try:
            self.offset = self.path.stat().st_size
        except OSError:
            self.offset = 0
        self.since = time.time()

    def requests(self, wait: bool = True) -> list[Request]:
        """Requests logged since the mark (after waiting for nginx's buffer to flush, if ``wait``).

        If the log was truncated meanwhile, the whole log is read and lines that ended before the
        mark's time are skipped.
        """
        if wait:
            time.sleep(LOG_FLUSH_WAIT_S)
        try:
            size = self.path.stat().st_size
        except OSError:
            return []
        offset, since = (self.offset, 0.0) if size >= self.offset else (0, self.since)
        out: list[Request] = []
        with open(self.path, "rb") as fh:
            fh.seek(offset)
            for raw in fh:
                m = _LINE.match(raw.decode("utf-8", "replace").rstrip("\n"))
                if not m:
                    continue
                end, _addr, host, request, status, size_s, agent, rt = m.groups()
                if float(end) < since:
                    continue
                parts = request.split()
                method = parts[0] if parts else ""
                path = parts[1] if len(parts) > 1 else request
                out.append(Request(float(end), host, method, path, int(status), int(size_s), agent, float(rt)))
        return out


@dataclass
class CrawlerTraffic:
    """What one crawler asked the local web for, from the access log."""

    requests: int = 0
    robots_txt: int = 0
    pages_200: int = 0
    html_200: int = 0
    bytes: int = 0
    by_status: collections.Counter[str] = field(default_factory=collections.Counter)
    by_host: collections.Counter[str] = field(default_factory=collections.Counter)
    robots_violations: list[str] = field(default_factory=list)
    robots_violation_count: int = 0
    first_start: float | None = None
    last_end: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "requests": self.requests, "robots_txt": self.robots_txt, "pages_200": self.pages_200,
            "html_200": self.html_200,
            "bytes": self.bytes, "by_status": dict(sorted(self.by_status.items())),
            "by_host": dict(sorted(self.by_host.items())),
            "robots_violations": self.robots_violation_count,
            "robots_violation_examples": self.robots_violations[:5],
            "span_s": round(self.last_end - self.first_start, 3)
            if self.first_start is not None and self.last_end is not None else None,
        }


def crawler_requests(requests: Iterable[Request], agent_prefix: str) -> CrawlerTraffic:
    """Summarise the requests whose User-Agent starts with ``agent_prefix``."""
    t = CrawlerTraffic()
    for r in requests:
        if not r.agent.startswith(agent_prefix):
            continue
        t.requests += 1
        t.bytes += r.size
        t.by_status[str(r.status)] += 1
        t.by_host[r.host] += 1
        path = r.path.split("?")[0]
        if path == "/robots.txt":
            t.robots_txt += 1
        elif r.status == 200:
            t.pages_200 += 1
            if path.endswith((".html", ".htm", "/")):
                t.html_200 += 1
        forbidden = ROBOTS_FORBIDDEN.get(r.host)
        if forbidden is not None and path != "/robots.txt" and forbidden(r.path):
            t.robots_violation_count += 1
            if len(t.robots_violations) < 20:
                t.robots_violations.append(f"{r.host}{r.path}")
        start = r.end - r.seconds
        t.first_start = start if t.first_start is None else min(t.first_start, start)
        t.last_end = r.end if t.last_end is None else max(t.last_end, r.end)
    return t


_CHECK_PATTERNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "requests": (r"^requests\s+(\d+) to (\d+) hosts on (\d+) addresses", ("requests", "hosts", "addresses")),
    "span": (r"^crawl span\s+([\d.]+) s \(ideal at the limit: ([\d.]+) s, efficiency (\d+) %\)",
             ("span_s", "ideal_s", "efficiency_pct")),
    "rate": (r"^rate\s+([\d.]+|nan) req/s overall, ([\d.]+|nan) req/s over the middle 80 %",
             ("rate_overall", "rate_middle")),
    "limit": (r"^politeness limit\s+([\d.]+) req/s \((\d+) hosts with >1 request / ([\d.]+) s\) -> "
              r"middle rate = (-?\d+|nan) % of it", ("limit", "busy_hosts", "delay", "pct_of_limit")),
    "spacing": (r"^spacing violations\s+(\d+) in (\d+) hosts \((\d+) involve robots.txt",
                ("spacing_violations", "spacing_violation_hosts", "spacing_violations_robots_txt")),
    "robots": (r"^robots violations\s+(\d+) in (\d+) hosts", ("robots_violations", "robots_violation_hosts")),
}


def parse_many_check(stdout: str) -> dict[str, Any]:
    """The numbers of ``many-check.py``'s report (keys of :data:`_CHECK_PATTERNS`' names)."""
    out: dict[str, Any] = {}
    for pattern, names in _CHECK_PATTERNS.values():
        m = re.search(pattern, stdout, re.MULTILINE)
        if not m:
            continue
        for name, value in zip(names, m.groups(), strict=True):
            number = float(value)
            out[name] = int(number) if number.is_integer() and "." not in value else number
    if "spacing_violations" in out and "robots_violations" in out:
        out["violations"] = out["spacing_violations"] + out["robots_violations"]
    return out


def many_check(delay: float, since: float, until: float | None = None, log_path: Path = ACCESS_LOG,
               wait: bool = True) -> dict[str, Any]:
    """Run ``many-check.py --delay D --since S [--until U]``; returns its numbers plus ``report``.

    Returns ``{"error": ...}`` when it cannot run or finds no many-hosts requests.
    """
    if wait:
        time.sleep(LOG_FLUSH_WAIT_S)
    argv = [sys.executable, str(LOCALWEB_DIR / "many-check.py"), "--delay", f"{delay:g}", "--since", f"{since:.3f}"]
    if until is not None:
        argv += ["--until", f"{until:.3f}"]
    argv.append(str(log_path))
    res = subprocess.run(argv, capture_output=True, text=True)
    numbers = parse_many_check(res.stdout)
    if "requests" not in numbers:
        return {"error": (res.stderr or res.stdout).strip()[-500:] or f"exit code {res.returncode}",
                "argv": argv}
    return {**numbers, "exit_code": res.returncode, "argv": argv, "report": res.stdout.rstrip("\n").splitlines()}


class LineClock(threading.Thread):
    """Follows a growing text file (a measured step's stdout) and records when each line appeared.

    The writer must not buffer its output (run it with ``PYTHONUNBUFFERED=1``); the resolution is
    ``interval`` seconds. Use as a context manager around the measured run.
    """

    def __init__(self, path: Path, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.path, self.interval = path, interval
        self.lines: list[tuple[float, str]] = []
        self._stop_event = threading.Event()
        self._partial = ""
        self._offset = 0

    def _poll(self) -> None:
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
                self._offset = fh.tell()
        except OSError:
            return
        if not chunk:
            return
        now = time.time()
        text = self._partial + chunk
        *complete, self._partial = text.split("\n")
        self.lines.extend((now, line) for line in complete)

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self._poll()
        self._poll()
        if self._partial:
            self.lines.append((time.time(), self._partial))

    def __enter__(self) -> LineClock:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop_event.set()
        self.join()
