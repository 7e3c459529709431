"""What every page of the web interface shares: the context, the templates and the request limits.

Routers read what they need from :func:`context` (the :class:`WebContext` stored on
``app.state`` by :func:`gossamer.web.app.create_app`).  Templates live in ``templates/`` and extend ``base.html``;
Jinja2 autoescaping is on for every template (crawled strings are never marked
safe).  No page loads anything from another origin.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.templating import Jinja2Templates

from gossamer.core import Settings
from gossamer.store import CrawlLayout, Place

HERE = Path(__file__).parent
MAX_QUERY_LENGTH = 1024
MAX_PAGE_SIZE = 100
MAX_START = 10_000


@dataclass
class WebContext:
    """What every page needs: the crawl's layout, settings, search nodes (if any) and a lazily opened searcher.

    ``index`` is the index searched (a path or a Location such as ``s3://…``; ``None``: ``<crawl>/index``).
    """

    crawl_dir: Path
    settings: Settings
    nodes: list[str] = field(default_factory=list)
    index: Place | None = None
    _searcher: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def layout(self) -> CrawlLayout:
        """Paths inside the crawl directory."""
        return CrawlLayout(self.crawl_dir)

    def searcher(self) -> Any:
        """The crawl's :class:`~gossamer.search.broker.Broker` (opened on first use; raises when there is no index)."""
        with self._lock:
            if self._searcher is None:
                from gossamer.search import open_searcher

                self._searcher = open_searcher(self.crawl_dir, self.settings, self.nodes or None, self.index)
            return self._searcher

    def close(self) -> None:
        """Release the searcher."""
        if self._searcher is not None:
            self._searcher.close()
            self._searcher = None


templates = Jinja2Templates(directory=str(HERE / "templates"))
templates.env.autoescape = True


def context(request: Request) -> WebContext:
    """The application's :class:`WebContext`."""
    return request.app.state.gossamer
