"""``gossamer linkrank`` and ``gossamer scoreupdater``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    JSON_HELP,
    crawl_dir_argument,
    err_console,
    fail,
    job_progress,
    print_json,
    user_errors,
)

if TYPE_CHECKING:
    from gossamer.core import Settings
    from gossamer.store import Place

CRAWL_HELP = "crawl directory (its graph is <dir>/webgraph, its crawldb <dir>/crawldb)"
GRAPH_HELP = "web graph directory (default <crawl>/webgraph)"


def _places(crawl_dir: str | None, webgraphdb: str | None, crawldb: str | None = None,
            need_crawldb: bool = False) -> tuple[Place, Place | None, Settings]:
    """The web graph, the crawldb (when given or implied by ``-d``) and the settings."""
    if crawl_dir is None and webgraphdb is None:
        fail("give the crawl directory (-d crawl) or the web graph (-webgraphdb crawl/webgraph)")
    if need_crawldb and crawl_dir is None and crawldb is None:
        fail("give the crawl directory (-d crawl) or the crawldb (-crawldb crawl/crawldb)")
    root, settings = crawl_dir_argument(crawl_dir if crawl_dir is not None else _parent(webgraphdb or ""))
    graph = root / "webgraph" if webgraphdb is None else crawl_dir_argument(webgraphdb)[0]
    if crawldb is not None:
        return graph, crawl_dir_argument(crawldb)[0], settings
    return graph, (root / "crawldb" if crawl_dir is not None else None), settings


def _parent(text: str) -> str:
    """The folder holding ``text`` (where a crawl's configuration lives)."""
    stripped = text.rstrip("/")
    return stripped.rsplit("/", 1)[0] if "/" in stripped else "."


def linkrank_command(
    crawl_dir: Annotated[str | None, typer.Option("-d", "--dir", help=CRAWL_HELP, show_default=False)] = None,
    webgraphdb: Annotated[str | None, typer.Option("-webgraphdb", "--webgraphdb", help=GRAPH_HELP,
                                                   show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Score every page of the web graph by LinkRank (Nutch's PageRank variant) and store the scores.

    Run `gossamer webgraph` first; `gossamer scoreupdater` then copies the scores
    into the crawldb, and `gossamer nodedumper -scores` lists the best pages.

    Examples:

      gossamer linkrank -d crawl

      gossamer linkrank -webgraphdb crawl/webgraph -D link.analyze.num.iterations=20

      gossamer linkrank -d crawl -D link.analyze.convergence=0.0001 -D link.analyze.remove.loops=true

      gossamer linkrank -d crawl --engine spark -D spark.master=local[2]
    """
    from gossamer.graph import link_rank

    graph, _, settings = _places(crawl_dir, webgraphdb)
    with user_errors(), job_progress("linkrank") as progress:
        report = link_rank(graph, settings, progress)
    if as_json:
        print_json(report)
    else:
        for action in report.recovered:
            err_console.print(f"note: {action}", markup=False, highlight=False, soft_wrap=True)
        if not report.done:
            typer.echo("LinkRank: the web graph has no nodes; nothing to score")
        else:
            change = f", last change {report.changes[-1]:.3g}" if report.changes else ""
            typer.echo(f"LinkRank: {report.nodes} nodes, {report.links} links counted of {report.stored_links}"
                       f" ({report.loop_links} in loops)")
            typer.echo(f"LinkRank: {report.iterations} iterations{change}, top score {report.top_score:.4g}, "
                       f"engine {report.engine}, finished in {report.seconds:.2f} s")
    if not report.done:
        raise typer.Exit(EXIT_NOTHING)


def scoreupdater_command(
    crawl_dir: Annotated[str | None, typer.Option("-d", "--dir", help=CRAWL_HELP, show_default=False)] = None,
    crawldb: Annotated[str | None, typer.Option("-crawldb", "--crawldb", help="crawldb directory or URI",
                                                show_default=False)] = None,
    webgraphdb: Annotated[str | None, typer.Option("-webgraphdb", "--webgraphdb", help=GRAPH_HELP,
                                                   show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Copy the web graph's node scores into the crawldb (URLs not in the graph get link.score.updater.clear.score).

    Examples:

      gossamer scoreupdater -d crawl

      gossamer scoreupdater -crawldb crawl/crawldb -webgraphdb crawl/webgraph
    """
    from gossamer.graph import update_scores

    graph, db, settings = _places(crawl_dir, webgraphdb, crawldb, need_crawldb=True)
    assert db is not None
    with user_errors(), job_progress("scoreupdater") as progress:
        report = update_scores(db, graph, settings, progress)
    if as_json:
        print_json(report)
        return
    for action in report.recovered:
        err_console.print(f"note: {action}", markup=False, highlight=False, soft_wrap=True)
    c = report.counters
    typer.echo(f"ScoreUpdater: {c.get('urls_scored', 0)} URLs took their node's score, "
               f"{c.get('urls_cleared', 0)} not in the graph set to "
               f"{settings.get_float('link.score.updater.clear.score')}; "
               f"{c.get('nodes_not_in_crawldb', 0)} nodes not in the crawldb")
    typer.echo(f"ScoreUpdater: total URLs {report.total_urls}, finished in {report.seconds:.2f} s")
