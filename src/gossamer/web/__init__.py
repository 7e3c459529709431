"""The web interface: search pages, JSON API, OpenSearch and the crawl dashboard (FastAPI + Jinja2).

:func:`create_app` builds the application for one crawl directory (optionally
searching through search nodes); ``gossamer serve`` runs it with uvicorn,
bound to 127.0.0.1 unless told otherwise, with limits on URL length, connections and idle
time (:func:`server_config`).  Everything is read-only.
"""

from gossamer.web.app import create_app
from gossamer.web.context import WebContext
from gossamer.web.server import server_config

__all__ = ["WebContext", "create_app", "server_config"]
