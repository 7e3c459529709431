"""``gossamer parse``: parse a fetched segment, with progress and a summary by status."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import JSON_HELP, fail, job_progress, print_errors, print_json, segment_argument, user_errors

if TYPE_CHECKING:
    from gossamer.crawl.parse import ParseReport


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))


def print_parse_report(report: ParseReport) -> None:
    """The one-screen end summary of a parse."""
    rate = report.pages / report.seconds if report.seconds > 0 else 0.0
    typer.echo(f"ParseSegment: segment {report.segment}: {report.pages:,} pages in {report.seconds:.1f} s "
               f"({rate:,.1f} pages/s, {report.processes} process(es))")
    for name in ("success", "failed", "skipped"):
        typer.echo(f"  {name:<10} {report.by_status.get(name, 0):>9,}")
    if report.skipped:
        typer.echo("  skipped: " + _counts(report.skipped))
    if report.not_parsed:
        typer.echo("  not parsed: " + _counts(report.not_parsed))
    typer.echo("  rows: " + ", ".join(f"{table} {report.rows.get(table, 0):,}"
                                      for table in ("parse_data", "parse_text", "crawl_parse")))
    if report.removed:
        typer.echo("  removed unfinished tables of an earlier run: " + ", ".join(report.removed))
    failures = report.by_status.get("failed", 0) + report.not_parsed.get("unreadable WARC file", 0)
    print_errors(report.errors, failures)


def parse_command(
    segment: Annotated[str, typer.Argument(help="segment directory or URI (fetched, with content)")],
    no_filter: Annotated[bool, typer.Option("-noFilter", "--no-filter",
                                            help="do not filter outlinks (parse.filter.urls=false)")] = False,
    no_normalize: Annotated[bool, typer.Option("-noNormalize", "--no-normalize",
                                               help="do not normalize outlinks (parse.normalize.urls=false)")]
    = False,
    processes: Annotated[int | None, typer.Option("-processes", "--processes",
                                                  help="parse processes (parser.processes; 0 = cores)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Parse the content of a fetched segment into parse_data, parse_text and crawl_parse.

    Examples:

      gossamer parse crawl/segments/20261122103000

      gossamer parse crawl/segments/20261122103000 -noFilter -D db.max.outlinks.per.page=500

      gossamer parse s3://bucket/crawl/segments/20261122103000
    """
    from gossamer.crawl.parse import parse_segment

    if processes is not None and processes < 0:
        fail("-processes must be 0 (one per core) or more")
    place, settings = segment_argument(segment)
    overrides: list[tuple[str, object]] = []
    if no_filter:
        overrides.append(("parse.filter.urls", False))
    if no_normalize:
        overrides.append(("parse.normalize.urls", False))
    if processes is not None:
        overrides.append(("parser.processes", processes))
    if overrides:
        settings = settings.with_values(overrides, "command line")
    with user_errors(), job_progress("parse") as progress:
        report = parse_segment(place, settings, progress)
    print_json(report) if as_json else print_parse_report(report)
