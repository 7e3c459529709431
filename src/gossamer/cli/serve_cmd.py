"""``gossamer serve``: the web interface (search pages, JSON API, OpenSearch, dashboard)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, fail, settings_for


def serve_command(
    crawl_dir: Annotated[Path, typer.Option("-d", "--dir", help="crawl directory")] = Path("crawl"),
    host: Annotated[str, typer.Option("--host", help="address to bind (loopback unless you mean otherwise)")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port")] = 8080,
    nodes: Annotated[str | None, typer.Option("--nodes", help="search through search nodes host:port,…")] = None,
) -> None:
    """Serve the search pages, JSON API, OpenSearch and the crawl dashboard (read-only).

    Examples:

      gossamer serve -d crawl                 # http://127.0.0.1:8080/

      gossamer serve -d crawl --nodes 127.0.0.1:8700,127.0.0.1:8701 --port 9000
    """
    import uvicorn

    from gossamer.web import create_app

    if not crawl_dir.is_dir():
        fail(f"no crawl directory at {crawl_dir}", EXIT_NOTHING)
    if not 0 <= port <= 65535:
        fail("--port must be 0 … 65535")
    node_list = [n.strip() for n in nodes.split(",") if n.strip()] if nodes else []
    app = create_app(crawl_dir, settings_for(crawl_dir), node_list)
    typer.echo(f"gossamer serving {crawl_dir} on http://{host}:{port}/")
    uvicorn.run(app, host=host, port=port, log_level="warning")
