"""``gossamer updatedb``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import (
    JSON_HELP,
    job_progress,
    print_errors,
    print_json,
    segment_arguments,
    table_argument,
    user_errors,
)

if TYPE_CHECKING:
    from gossamer.crawl.updatedb import UpdateReport


def updatedb_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (crawl/crawldb, s3://bucket/crawl/crawldb)")],
    segments: Annotated[list[str] | None, typer.Argument(help="segment directories or URIs", show_default=False)]
    = None,
    segments_dir: Annotated[str | None, typer.Option("-dir", "--dir", help="every segment in this directory or URI")]
    = None,
    no_additions: Annotated[bool, typer.Option("-noAdditions", "--no-additions",
                                               help="only update URLs already in the crawldb")] = False,
    url_filter: Annotated[bool, typer.Option("-filter", "--filter", help="apply URL filters")] = False,
    normalize: Annotated[bool, typer.Option("-normalize", "--normalize", help="apply URL normalizers")] = False,
    force: Annotated[bool, typer.Option("-force", "--force",
                                        help="apply segments the crawldb has already absorbed")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Merge fetch and parse results of segments into the crawldb.

    Examples:

      gossamer updatedb crawl/crawldb crawl/segments/20261122103000

      gossamer updatedb crawl/crawldb -dir crawl/segments -noAdditions

      gossamer updatedb s3://bucket/crawl/crawldb -dir s3://bucket/crawl/segments
    """
    from gossamer.crawl.updatedb import UpdateOptions, updatedb

    place, settings = table_argument(crawldb, "crawldb")
    chosen = segment_arguments(segments, segments_dir, settings)
    with user_errors(), job_progress("updatedb") as progress:
        report = updatedb(place, chosen, settings, UpdateOptions(not no_additions, url_filter, normalize, force),
                          progress)
    print_json(report) if as_json else print_update_report(report)


def print_update_report(report: UpdateReport) -> None:
    """Print updatedb's summary."""
    print_errors(report.errors, report.counters.get("errors", 0))
    for action in report.recovered:
        typer.echo(f"CrawlDb update: recovered: {action}")
    c = report.counters
    typer.echo(f"CrawlDb update: {len(report.segments)} segment(s); URLs updated: {c.get('urls_updated', 0)}, "
               f"unchanged: {c.get('urls_unchanged', 0)}, dropped: {c.get('urls_dropped', 0)}, "
               f"purged: {c.get('urls_purged', 0)}, filtered: {c.get('urls_filtered', 0)}")
    typer.echo(f"CrawlDb update: total URLs {report.total_urls}, finished in {report.seconds:.2f} s")
