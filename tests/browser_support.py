"""Browser-test plumbing: Debian's chromium driven by Playwright, and a page watcher.

Never ``playwright install`` (it downloads browsers from a CDN): the browser is
Debian's ``chromium`` package, which ``scripts/_venv.sh`` installs with apt-get.
``GOSSAMER_SKIP_BROWSER=1`` skips the browser tests on machines without apt.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SCREENSHOTS = Path(os.environ.get("GOSSAMER_SCREENSHOTS")
                   or Path(__file__).resolve().parent / "artifacts" / "screenshots")
"""Where the tests write their screenshots: tests/artifacts/screenshots (not in git), or $GOSSAMER_SCREENSHOTS
(``GOSSAMER_SCREENSHOTS=docs/screenshots scripts/test -k browser`` refreshes the copies in the docs)."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
VIEWPORT = {"width": 1280, "height": 800}
OWN_STATUS = "Failed to load resource: the server responded with a status of "


def skip_requested() -> bool:
    return os.environ.get("GOSSAMER_SKIP_BROWSER") == "1"


def chromium_path() -> str:
    """Debian's chromium; fails the test (never skips) with the reason when it is missing."""
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.fail("chromium is not installed: the browser tests need Debian's `chromium` package "
                    "(scripts/test installs it with apt-get; or set GOSSAMER_SKIP_BROWSER=1 to skip them)",
                    pytrace=False)
    return path


@dataclass
class Watcher:
    """Everything a page did that a working page must not: errors, failed or foreign requests."""

    base_url: str
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    bad_status: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    documents: dict[str, int] = field(default_factory=dict)
    """Status of every document (page or frame) loaded, by URL."""

    def attach(self, page: Any) -> None:
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.page_errors.append(str(exc)))
        page.on("requestfailed", lambda req: self.failed.append(f"{req.url}: {req.failure}"))
        page.on("request", self._request)
        page.on("response", self._response)

    def _console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        where = msg.location.get("url", "") if msg.location else ""
        # An error page answering 4xx (e.g. 400 for a bad query) is logged by chromium like a failed load;
        # that is the page's own status, checked by the test, not a broken resource.
        if msg.text.startswith(OWN_STATUS) and self.documents.get(where, 0) >= 400:
            return
        self.console_errors.append(f"{msg.text} ({where})")

    def _request(self, req: Any) -> None:
        self.requests.append(req.url)
        url = req.url
        if not (url == self.base_url or url.startswith(self.base_url + "/") or url.startswith(("about:", "data:"))):
            self.foreign.append(url)

    def _response(self, resp: Any) -> None:
        # The page under test may answer 4xx itself (the error page); its resources may not.
        if resp.request.resource_type == "document":
            self.documents[resp.url] = resp.status
        elif resp.status >= 400:
            self.bad_status.append(f"{resp.status} {resp.url}")

    def problems(self) -> dict[str, list[str]]:
        found = {"console errors": self.console_errors, "page errors": self.page_errors,
                 "failed requests": self.failed, "resources answering >= 400": self.bad_status,
                 "requests to another origin": self.foreign}
        return {k: v for k, v in found.items() if v}

    def assert_clean(self, what: str) -> None:
        problems = self.problems()
        assert not problems, f"{what}: {problems}"
