"""``gossamer generate``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, JSON_HELP, fail, place_argument, print_json, table_argument, user_errors
from gossamer.cli.hints import segments_dir_hint
from gossamer.store import is_uri

if TYPE_CHECKING:
    from gossamer.crawl.generate import GenerateReport


def generate_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (crawl/crawldb, s3://bucket/crawl/crawldb)")],
    segments_dir: Annotated[str, typer.Argument(help="directory or URI of segments (a new one is created in it)")],
    top_n: Annotated[int | None, typer.Option("-topN", "--top-n", help="URLs per segment")] = None,
    num_fetchers: Annotated[int, typer.Option("-numFetchers", "--num-fetchers",
                                              help="fetch partitions (one host is in one partition)")] = 1,
    add_days: Annotated[float, typer.Option("-adddays", "--add-days", help="pretend it is N days later")] = 0.0,
    no_filter: Annotated[bool, typer.Option("-noFilter", "--no-filter", help="skip URL filters")] = False,
    no_norm: Annotated[bool, typer.Option("-noNorm", "--no-norm",
                                          help="do not normalize URLs for per-host counting")] = False,
    max_num_segments: Annotated[int, typer.Option("-maxNumSegments", "--max-num-segments",
                                                  help="spread the selection over up to N segments")] = 1,
    force: Annotated[bool, typer.Option("-force", "--force", help="accepted for Nutch compatibility: "
                                        "a dead writer's lock is taken over anyway")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Select due URLs, best score first, into new segments (exit code 1: nothing due).

    Examples:

      gossamer generate crawl/crawldb crawl/segments -topN 1000

      gossamer generate crawl/crawldb crawl/segments -topN 50000 -numFetchers 2 -D generate.max.count=100

      gossamer generate s3://bucket/crawl/crawldb s3://bucket/crawl/segments -topN 1000
    """
    from gossamer.crawl.generate import GenerateOptions, generate

    place, settings = table_argument(crawldb, "crawldb")
    segments = place_argument(segments_dir, settings)
    if not is_uri(segments_dir):
        message = segments_dir_hint(segments_dir, segments.local_path())
        if message:
            fail(message)
    options = GenerateOptions(top_n, num_fetchers, add_days, not no_filter, not no_norm, max_num_segments, force)
    with user_errors():
        report = generate(place, segments, settings, options)
    if as_json:
        print_json(report)
        if not report.segments:
            raise typer.Exit(EXIT_NOTHING)
    elif not print_generate_report(report):
        raise typer.Exit(EXIT_NOTHING)


def print_generate_report(report: GenerateReport) -> bool:
    """Print generate's summary; returns False when nothing was selected."""
    counters = report.counters
    typer.echo(f"Generator: candidates due: {counters.get('candidates', 0)}, rejected by filters: "
               f"{counters.get('urls_filtered', 0)}, over generate.max.count: "
               f"{counters.get('urls_over_max_count', 0)}")
    if not report.segments:
        typer.echo("Generator: 0 records selected for fetching, exiting ...")
        return False
    from gossamer.store import place_text

    for path, count in zip(report.segments, report.selected, strict=True):
        typer.echo(f"Generator: segment {place_text(path)}: {count} URLs")
    typer.echo(f"Generator: finished in {report.seconds:.2f} s")
    return True
