"""``gossamer serve``: the web interface (search pages, JSON API, OpenSearch, dashboard)."""

from __future__ import annotations

import errno
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, fail


def serve_command(
    crawl_dir: Annotated[Path, typer.Option("-d", "--dir", help="crawl directory")] = Path("crawl"),
    host: Annotated[str, typer.Option("--host", help="address to bind (loopback unless you mean otherwise)")]
    = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="TCP port")] = 8080,
    nodes: Annotated[str | None, typer.Option("--nodes", help="search through search nodes host:port,…")] = None,
    index: Annotated[str | None, typer.Option("--index", help="search this index, a directory or URI "
                                                              "(s3://bucket/crawl/index; default: <crawl>/index)")]
    = None,
) -> None:
    """Serve the search pages, JSON API, OpenSearch and the crawl dashboard (read-only).

    Examples:

      gossamer serve -d crawl                 # http://127.0.0.1:8080/

      gossamer serve -d crawl --nodes 127.0.0.1:8700,127.0.0.1:8701 --port 9000

      gossamer serve -d crawl --index s3://bucket/crawl/index   # searched through a local copy

    The dashboard, cached pages and anchors read the local crawl directory (-d); with --index it
    may be missing (those pages are then empty).
    """
    import uvicorn

    from gossamer.cli.search_cmd import searched_index
    from gossamer.web import create_app, server_config

    if not crawl_dir.is_dir() and index is None:
        fail(f"no crawl directory at {crawl_dir}", EXIT_NOTHING)
    _, place, settings = searched_index(str(crawl_dir), index)
    if not 0 <= port <= 65535:
        fail("--port must be 0 … 65535")
    node_list = [n.strip() for n in nodes.split(",") if n.strip()] if nodes else []
    listener = listening_socket(host, port)
    port = listener.getsockname()[1]
    app = create_app(crawl_dir, settings, node_list, index=place)
    shown = f"[{host}]" if ":" in host else host
    typer.echo(f"gossamer serving {index or crawl_dir} on http://{shown}:{port}/")
    sys.stdout.flush()  # seen at once when stdout is a pipe or a log file
    with listener:
        uvicorn.Server(server_config(app, settings, host, port)).run(sockets=[listener])


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (port 0: any free port), before anything is printed.

    Exits 2 with one line when the port is taken ("port N is in use: try --port …") or
    the address cannot be bound.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        fail(f"--host {host}: cannot resolve it ({exc.strerror})")
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            fail(f"port {port} is in use: try --port {port + 1 if port < 65535 else 8081} "
                 "(or --port 0 for any free port)")
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    return sock
