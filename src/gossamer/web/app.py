"""The FastAPI application: static files and the routers over one :class:`~gossamer.web.context.WebContext`.

Contract for every router module: it exposes ``router`` (an ``APIRouter``) and
reads what it needs from :func:`~gossamer.web.context.context`.  Templates live in
``templates/`` and extend ``base.html``; Jinja2 autoescaping is on for every template
(crawled strings are never marked safe).  No page loads anything from another origin.
Errors no route answers (unknown paths, other methods) are HTML pages, JSON under
``/api/`` (:mod:`gossamer.web.errors`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from gossamer.core import Settings
from gossamer.store import Place
from gossamer.web import api, dashboard, errors, opensearch, search_pages
from gossamer.web.context import HERE, WebContext
from gossamer.web.server import UrlLengthLimit


def create_app(crawl_dir: Path, settings: Settings, nodes: list[str] | None = None,
               index: Place | None = None) -> FastAPI:
    """The web application for one crawl directory (see the module docstring); ``index``: search that one."""
    web = WebContext(Path(crawl_dir), settings, list(nodes or []), index)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        web.close()

    app = FastAPI(title="Gossamer", description="Search the crawl and watch it: JSON API and OpenSearch.",
                  docs_url=None, redoc_url=None, lifespan=lifespan)
    app.state.gossamer = web
    errors.install(app)
    app.add_middleware(UrlLengthLimit, max_length=settings.get_int("web.url.max.length"))
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    for module in (search_pages, api, opensearch, dashboard):
        app.include_router(module.router)

    return app
