"""``gossamer fetch``: fetch a segment, with a live progress line and a summary by status."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import JSON_HELP, err_console, print_errors, print_json, segment_argument, user_errors

if TYPE_CHECKING:
    from gossamer.crawl.fetch import FetchProgress, FetchReport


def human_bytes(size: float) -> str:
    """``1.2 MB`` style size."""
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


@contextmanager
def fetch_progress(title: str = "fetch") -> Iterator[Callable[[FetchProgress], None] | None]:
    """A live status line on stderr (pages, pages/s, bytes, errors, active hosts) when it is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.live import Live
    from rich.text import Text

    with Live(Text(f"{title}: starting"), console=err_console, transient=True, refresh_per_second=4) as live:
        def update(p: FetchProgress) -> None:
            rate = p.pages / p.elapsed if p.elapsed > 0 else 0.0
            live.update(Text(f"{title}: {p.pages:,} pages  {rate:,.1f} pages/s  {human_bytes(p.bytes)}  "
                             f"{p.errors:,} errors  {p.active_hosts:,} active hosts  {p.elapsed:,.0f} s"))

        yield update


def print_fetch_report(report: FetchReport) -> None:
    """The one-screen end summary of a fetch."""
    rate = report.pages / report.seconds if report.seconds > 0 else 0.0
    typer.echo(f"Fetcher: segment {report.segment}: {report.pages:,} pages, {human_bytes(report.bytes)}, "
               f"{report.errors:,} errors in {report.seconds:.1f} s ({rate:,.1f} pages/s, "
               f"{report.processes} process(es))")
    if report.results > report.pages:
        typer.echo(f"  without a response (not pages): {report.results - report.pages:,}")
    if report.resumed:
        typer.echo(f"  resumed: {report.resumed:,} pages of an interrupted fetch kept, not fetched again")
    for name, count in sorted(report.by_status.items()):
        typer.echo(f"  {name:<22} {count:>9,}")
    if report.dropped:
        typer.echo("  not fetched (stay due): " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.dropped.items())))
    if report.redirects_followed or report.redirect_loops:
        typer.echo(f"  redirects followed {report.redirects_followed:,}, loops {report.redirect_loops:,}")
    if report.parse_status:
        typer.echo("  parsed: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report.parse_status.items())))
    for reason in report.stopped:
        typer.echo(f"  stopped early: {reason}")
    print_errors(report.parse_errors, report.parse_status.get("failed", 0))


def fetch_command(
    segment: Annotated[str, typer.Argument(help="segment directory or URI (made by generate)")],
    threads: Annotated[int | None, typer.Option("-threads", "--threads",
                                                help="parallel requests in all (fetcher.threads.fetch)")] = None,
    parse: Annotated[bool, typer.Option("-parse", "--parse", help="parse while fetching (fetcher.parse)")]
    = False,
    no_parse: Annotated[bool, typer.Option("-noParsing", "--no-parse", help="do not parse (Nutch spelling)")]
    = False,
    processes: Annotated[int | None, typer.Option("-processes", "--processes",
                                                  help="fetch processes (fetcher.processes; 0 = cores)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Fetch every URL of a segment's fetch list, politely; write crawl_fetch and WARC content.

    Examples:

      gossamer fetch crawl/segments/20261122103000 -threads 50

      gossamer fetch crawl/segments/20261122103000 -parse -D fetcher.server.delay=1

      gossamer fetch s3://bucket/crawl/segments/20261122103000 -D fs.s3.endpoint=http://127.0.0.1:9000
    """
    from gossamer.crawl.fetch import FetchOptions, fetch_segment

    place, settings = segment_argument(segment)
    choice = True if parse else (False if no_parse else None)
    with user_errors(), fetch_progress() as progress:
        report = fetch_segment(place, settings, FetchOptions(threads, choice, processes), progress)
    print_json(report) if as_json else print_fetch_report(report)
