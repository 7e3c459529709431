"""``gossamer webgraph`` and ``nodedumper`` (Nutch's WebGraph and NodeDumper)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    JSON_HELP,
    crawl_dir_argument,
    fail,
    job_progress,
    local_path_argument,
    place_argument,
    print_errors,
    print_json,
    segment_arguments,
    table_argument,
    user_errors,
)

if TYPE_CHECKING:
    from gossamer.core import Settings
    from gossamer.graph import WebGraphReport
    from gossamer.store import Place

CRAWL_HELP = "crawl directory or URI: the graph is CRAWL/webgraph, the segments all of CRAWL/segments"
WEBGRAPH_HELP = "web graph directory or URI (default: CRAWL/webgraph)"


def _graph_place(crawl: str | None, webgraphdb: str | None) -> tuple[Place, Settings, Place | None]:
    """The web graph directory, the settings, and the crawl directory (``None`` without ``-d``)."""
    from gossamer.graph import WEBGRAPH_DIR

    if crawl is None and webgraphdb is None:
        fail("give the crawl directory (-d CRAWL) or the web graph (-webgraphdb DIR)")
    if crawl is not None:
        root, settings = crawl_dir_argument(crawl)
        graph = place_argument(webgraphdb, settings) if webgraphdb is not None else root / WEBGRAPH_DIR
        return graph, settings, root
    assert webgraphdb is not None
    graph, settings = table_argument(webgraphdb)
    return graph, settings, None


def webgraph_command(
    segments: Annotated[list[str] | None, typer.Argument(help="segment directories or URIs", show_default=False)]
    = None,
    crawl: Annotated[str | None, typer.Option("-d", "--crawl", help=CRAWL_HELP)] = None,
    segment: Annotated[list[str] | None, typer.Option("-segment", "--segment", help="a segment (repeatable)")]
    = None,
    segments_dir: Annotated[str | None, typer.Option("-dir", "-segmentDir", "--segment-dir",
                                                     help="every segment in this directory or URI")] = None,
    webgraphdb: Annotated[str | None, typer.Option("-webgraphdb", "--webgraphdb", help=WEBGRAPH_HELP)] = None,
    normalize: Annotated[bool, typer.Option("-normalize", "--normalize", help="apply URL normalizers")] = False,
    url_filter: Annotated[bool, typer.Option("-filter", "--filter", help="apply URL filters")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Build or update the web graph (outlinks, nodes, inlinks) from parsed segments.

    Per page only the links of its newest fetch are kept; links to the same host /
    domain are ignored (link.ignore.internal.host / .domain); with
    link.delete.gone=true a page fetched as gone or redirected loses its outlinks.
    Without segments and -dir, every segment of CRAWL/segments is read.

    Exit 1 when there is nothing to do (no segment and no graph yet).

    Examples:

      gossamer webgraph -d crawl

      gossamer webgraph -d crawl crawl/segments/20261122103000 -normalize -filter

      gossamer webgraph -webgraphdb crawl/webgraph -segmentDir crawl/segments -D link.delete.gone=true
    """
    from gossamer.graph import build_webgraph
    from gossamer.store import list_segments

    graph, settings, root = _graph_place(crawl, webgraphdb)
    given = [*(segments or []), *(segment or [])]
    if given or segments_dir is not None:
        chosen = segment_arguments(given, segments_dir, settings)
    elif root is not None:
        chosen = list_segments(root / "segments") if (root / "segments").is_dir() else []
    else:
        fail("give segment directories, -dir <segments_dir> or -d <crawl_dir>")
    with user_errors(), job_progress("webgraph") as progress:
        report = build_webgraph(graph, chosen, settings, normalize, url_filter, progress)
    if as_json:
        print_json(report)
        if not report.done:
            raise typer.Exit(EXIT_NOTHING)
        return
    _print_report(report)


def _print_report(report: WebGraphReport) -> None:
    """The one-screen summary; exit 1 when nothing was done."""
    for action in report.recovered:
        typer.echo(f"WebGraph: recovered: {action}")
    print_errors(report.skipped, len(report.skipped))
    if not report.done:
        typer.echo("WebGraph: nothing to do (no parsed segment and no web graph yet)")
        raise typer.Exit(EXIT_NOTHING)
    print_errors(report.errors, report.counters.get("errors", 0))
    c = report.counters.get
    typer.echo(f"WebGraph: {len(report.segments)} segment(s), {c('segments_skipped', 0)} skipped; pages {c('pages', 0)}"
               f" (not parsed {c('pages_not_parsed', 0)}, bad {c('pages_bad', 0)}, filtered "
               f"{c('pages_filtered', 0)}, gone/redirected {c('pages_gone', 0)})")
    typer.echo(f"WebGraph: links read {c('links', 0)} + stored {c('links_stored', 0)}; dropped: bad "
               f"{c('links_bad', 0)}, filtered {c('links_filtered', 0)}, older fetch {c('links_stale', 0)}, "
               f"duplicate {c('links_duplicate', 0)}, same host {c('links_internal_host', 0)}, same domain "
               f"{c('links_internal_domain', 0)}; pages gone {c('sources_gone', 0)}")
    typer.echo(f"WebGraph: nodes {report.nodes}, links {report.outlinks} ({c('inlinks_counted', 0)} counted by "
               f"LinkRank), generation {report.generation}")
    typer.echo(f"WebGraph: finished in {report.seconds:.2f} s")


def nodedumper_command(
    crawl: Annotated[str | None, typer.Option("-d", "--crawl", help=CRAWL_HELP)] = None,
    webgraphdb: Annotated[str | None, typer.Option("-webgraphdb", "--webgraphdb", help=WEBGRAPH_HELP)] = None,
    inlinks: Annotated[bool, typer.Option("-inlinks", "--inlinks", help="rank by number of inlinks")] = False,
    outlinks: Annotated[bool, typer.Option("-outlinks", "--outlinks", help="rank by number of outlinks")] = False,
    scores: Annotated[bool, typer.Option("-scores", "--scores", help="rank by LinkRank score")] = False,
    top_n: Annotated[int | None, typer.Option("-topn", "-topN", "--top-n", help="only the N largest (default: all)",
                                              show_default=False)] = None,
    output: Annotated[str | None, typer.Option("-output", "--output", help="write to this local file "
                                               "(default: standard output)")] = None,
    as_eff: Annotated[bool, typer.Option("-asEff", "--as-eff", help="url=value lines (Solr ExternalFileField)")]
    = False,
    group: Annotated[tuple[str, str] | None, typer.Option("-group", "--group", help="aggregate per host|domain "
                                                          "by sum|max", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print a JSON array of {key, value}")] = False,
) -> None:
    """Print the top nodes of the web graph by inlinks, outlinks or score.

    Lines are "url<TAB>value" (or "url=value" with -asEff), largest first.

    Examples:

      gossamer nodedumper -d crawl -inlinks -topn 10

      gossamer nodedumper -d crawl -scores -topn 1000 -asEff -output scores.txt

      gossamer nodedumper -d crawl -outlinks -group domain sum --json
    """
    from gossamer.graph import NodeValue, format_entry, top_nodes

    chosen = [name for name, on in (("inlinks", inlinks), ("outlinks", outlinks), ("scores", scores)) if on]
    if len(chosen) != 1:
        fail("choose one of -inlinks, -outlinks, -scores")
    if top_n is not None and top_n < 0:
        fail(f"-topn must be 0 or more, not {top_n}")
    graph, settings, _ = _graph_place(crawl, webgraphdb)
    out = local_path_argument(output, "the output file") if output is not None else None
    with user_errors():
        entries: list[NodeValue] = top_nodes(graph, chosen[0], top_n, group, settings)
    if as_json:
        import json

        text = json.dumps([{"key": e.key, "value": e.value} for e in entries], indent=1, ensure_ascii=False) + "\n"
    else:
        text = "".join(format_entry(e, as_eff) + "\n" for e in entries)
    if out is None:
        typer.echo(text, nl=False)
        return
    with user_errors():
        Path(out).write_text(text, encoding="utf-8")
    typer.echo(f"NodeDumper: {len(entries)} entries written to {output}", err=True)
