"""The web interface: search pages, JSON API, OpenSearch and the crawl dashboard (FastAPI + Jinja2).

:func:`create_app` builds the application for one crawl directory (optionally
searching through search nodes); ``gossamer serve`` runs it with uvicorn,
bound to 127.0.0.1 unless told otherwise.  Everything is read-only.
"""

from gossamer.web.app import create_app
from gossamer.web.context import WebContext

__all__ = ["WebContext", "create_app"]
