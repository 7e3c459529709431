"""``gossamer dedup``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import JSON_HELP, err_console, job_progress, print_json, table_argument, user_errors

if TYPE_CHECKING:
    from gossamer.crawl.dedup import DedupReport


def dedup_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (crawl/crawldb, s3://bucket/crawl/crawldb)")],
    group: Annotated[str, typer.Option("-group", "--group",
                                       help="duplicates must also share: none, host or domain")] = "none",
    compare_order: Annotated[str, typer.Option(
        "-compareOrder", "--compare-order",
        help="which copy is kept, criteria in order: score, fetchTime, httpsOverHttp, urlLength "
             "(score, fetchTime and urlLength required)")] = "score,fetchTime,urlLength",
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Mark pages with the same signature as db_duplicate, keeping the best copy of each.

    Examples:

      gossamer dedup crawl/crawldb

      gossamer dedup crawl/crawldb -group host -compareOrder score,fetchTime,httpsOverHttp,urlLength

      gossamer dedup s3://bucket/crawl/crawldb -D fs.s3.endpoint=http://127.0.0.1:9000
    """
    from gossamer.crawl.dedup import check_group, dedup, parse_compare_order

    with user_errors():
        order = parse_compare_order(compare_order)
        check_group(group)
    place, settings = table_argument(crawldb, "crawldb")
    with user_errors(), job_progress("dedup") as progress:
        report = dedup(place, settings, group, order, progress)
    print_json(report) if as_json else print_dedup_report(report)


def print_dedup_report(report: DedupReport) -> None:
    """Print dedup's summary."""
    for action in report.recovered:
        err_console.print(f"note: {action}", markup=False, highlight=False, soft_wrap=True)
    typer.echo(f"Deduplication: group {report.group}, compareOrder {','.join(report.compare_order)}")
    typer.echo(f"Deduplication: {report.candidates} candidates (db_fetched/db_notmodified with a signature), "
               f"{report.groups} groups of duplicates")
    typer.echo(f"Deduplication: {report.duplicates} documents marked as duplicates; "
               f"{report.previous_duplicates} already db_duplicate (left as they are)")
    state = "new version installed" if report.installed else "unchanged"
    typer.echo(f"Deduplication: total URLs {report.total_urls}, crawldb {state}, "
               f"finished in {report.seconds:.2f} s")
