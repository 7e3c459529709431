"""``gossamer searchnode``: serve some shards of a crawl's index to brokers over HTTP."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, fail
from gossamer.cli.search_cmd import DIR_HELP, INDEX_HELP, searched_index


def parse_shards(text: str) -> list[int]:
    """``"0,2"`` → ``[0, 2]`` (sorted, without repeats); ``ValueError`` on anything else."""
    numbers = sorted({int(part) for part in text.split(",") if part.strip()})
    if not numbers or numbers[0] < 0:
        raise ValueError(f"bad shard list {text!r} (expected numbers like 0,2)")
    return numbers


def searchnode_command(
    crawl_dir: Annotated[str, typer.Option("-d", "--dir", help=DIR_HELP)] = "crawl",
    index: Annotated[str | None, typer.Option("--index", help=INDEX_HELP)] = None,
    shards: Annotated[str | None, typer.Option("--shards", help="shard numbers to serve, e.g. 0,2 (default: all)")]
    = None,
    host: Annotated[str, typer.Option("--host", help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="port to listen on (0 = any free port)")] = 8700,
    threads: Annotated[int | None, typer.Option("--threads", help="threads searching the index (default: CPUs + 4)")]
    = None,
) -> None:
    """Serve shards of the crawl's index as a search node (until SIGTERM or Ctrl-C).

    A broker — `gossamer search --nodes host:port,…` — sends each query to every
    node and merges their answers; give every shard of the index to some node.

    Examples:

      gossamer searchnode -d crawl --shards 0,1 --port 8700

      gossamer searchnode -d crawl --shards 2,3 --port 8701

      gossamer search -d crawl --nodes 127.0.0.1:8700,127.0.0.1:8701 "query"

      gossamer searchnode --index s3://bucket/crawl/index --shards 0,1   # a local copy is searched
    """
    import asyncio

    from gossamer.search import ShardSet
    from gossamer.search import serve_node as serve
    from gossamer.store import TableError

    try:
        numbers = parse_shards(shards) if shards is not None else None
    except ValueError as exc:
        fail(str(exc) if "shard list" in str(exc) else f"bad shard list {shards!r} (expected numbers like 0,2)")
    if not 0 <= port <= 65535 or (threads is not None and threads < 1):
        fail("--port must be in 0..65535 and --threads at least 1")
    local, place, settings = searched_index(crawl_dir, index)
    try:
        shard_set = ShardSet(place, settings, numbers, crawl_dir=local)
    except (TableError, OSError) as exc:
        fail(str(exc), EXIT_NOTHING)

    def ready(bound_host: str, bound_port: int) -> None:
        served = [s.number for s in shard_set.shards]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        typer.echo(f"searchnode serving shards {served} of {index or crawl_dir} on http://{shown}:{bound_port}")

    try:
        asyncio.run(serve(shard_set, host, port, ready, threads=threads))
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
