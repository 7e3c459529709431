"""``gossamer mergedb``."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import job_progress, print_errors, table_argument, user_errors


def mergedb_command(
    out: Annotated[str, typer.Argument(help="output crawldb directory or URI")],
    crawldbs: Annotated[list[str], typer.Argument(help="crawldbs to merge (directories or URIs), in order")],
    normalize: Annotated[bool, typer.Option("-normalize", "--normalize", help="apply URL normalizers")] = False,
    url_filter: Annotated[bool, typer.Option("-filter", "--filter", help="apply URL filters")] = False,
) -> None:
    """Merge crawldbs into one: per URL the datum fetched last wins, metadata of all inputs merged.

    Examples:

      gossamer mergedb merged/crawldb crawl1/crawldb crawl2/crawldb

      gossamer mergedb s3://bucket/crawl/crawldb crawl/crawldb s3://bucket/crawl/crawldb -filter
    """
    from gossamer.crawl.mergedb import mergedb

    place, settings = table_argument(out, "crawldb")
    with user_errors(), job_progress("mergedb") as progress:
        report = mergedb(place, crawldbs, settings, normalize, url_filter, progress)
    for action in report.recovered:
        typer.echo(f"CrawlDb merge: recovered: {action}")
    print_errors(report.errors, report.counters.get("errors", 0))
    c = report.counters
    typer.echo(f"CrawlDb merge: {len(crawldbs)} crawldb(s), {c.get('urls_read', 0)} entries read, "
               f"{c.get('urls_merged', 0)} URLs in more than one, {c.get('urls_filtered', 0)} filtered")
    typer.echo(f"CrawlDb merge: total URLs {report.total_urls}, finished in {report.seconds:.2f} s")
