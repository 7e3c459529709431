"""``gossamer crawl``: the whole loop (Nutch's bin/crawl), printing each step's summary."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    crawl_dir_argument,
    err_console,
    fail,
    has_no_seed_urls,
    place_argument,
    print_errors,
    print_json,
    user_errors,
)
from gossamer.cli.fetch_cmd import human_bytes, print_fetch_report
from gossamer.cli.generate_cmd import print_generate_report
from gossamer.cli.updatedb_cmd import print_update_report

if TYPE_CHECKING:
    from rich.live import Live

    from gossamer.core import Settings
    from gossamer.crawl.fetch import FetchProgress, FetchReport
    from gossamer.crawl.generate import GenerateReport
    from gossamer.crawl.inject import InjectReport
    from gossamer.crawl.updatedb import UpdateReport
    from gossamer.store import Place


class ConsoleListener:
    """Prints every step's summary; a live fetch line on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.live: Live | None = None
        self.tty = sys.stderr.isatty()

    def injected(self, report: InjectReport) -> None:
        """Print inject's summary."""
        print_errors(report.errors, report.counters.get("errors", 0))
        for line in report.summary_lines():
            typer.echo(line)

    def sitemapped(self, report: Any) -> None:
        """Print sitemap's summary."""
        print_errors(report.errors, len(report.errors))
        for line in report.summary_lines():
            typer.echo(line)

    def round_started(self, number: int, rounds: int) -> None:
        """Print a round header."""
        typer.echo(f"\n== round {number} of {rounds}")

    def generated(self, report: GenerateReport) -> None:
        """Print generate's summary."""
        print_generate_report(report)

    def unfinished(self, segments: list[Place]) -> None:
        """Say which segments of an interrupted run this round finishes."""
        names = ", ".join(segment.name for segment in segments)
        typer.echo(f"Finishing segment(s) {names} of an interrupted crawl (no generate this round)")

    def fetching(self, progress: FetchProgress) -> None:
        """Update the live line."""
        if not self.tty:
            return
        from rich.live import Live
        from rich.text import Text

        if self.live is None:
            self.live = Live(Text(""), console=err_console, transient=True, refresh_per_second=4)
            self.live.start()
        rate = progress.pages / progress.elapsed if progress.elapsed > 0 else 0.0
        self.live.update(Text(f"fetch: {progress.pages:,} pages  {rate:,.1f} pages/s  "
                              f"{human_bytes(progress.bytes)}  {progress.errors:,} errors  "
                              f"{progress.active_hosts:,} active hosts  {progress.elapsed:,.0f} s"))

    def fetched(self, report: FetchReport) -> None:
        """Close the live line; print fetch's summary."""
        if self.live is not None:
            self.live.stop()
            self.live = None
        print_fetch_report(report)

    def parsed(self, report: Any) -> None:
        """Print a separate parse step's summary."""
        from gossamer.cli.parse_cmd import print_parse_report

        print_parse_report(report)

    def updated(self, report: UpdateReport) -> None:
        """Print updatedb's summary."""
        print_update_report(report)

    def linked(self, report: Any) -> None:
        """Print invertlinks' summary."""
        typer.echo("\n== index")
        if not report.done:
            typer.echo("LinkDb: nothing to invert, the linkdb is unchanged")
            return
        c = report.counters
        typer.echo(f"LinkDb: {c.get('inlinks', 0)} inlinks inverted from {c.get('pages', 0)} pages; "
                   f"total URLs {report.total_urls}, finished in {report.seconds:.2f} s")

    def deduplicated(self, report: Any) -> None:
        """Print dedup's summary."""
        from gossamer.cli.dedup_cmd import print_dedup_report

        print_dedup_report(report)

    def indexed(self, report: Any) -> None:
        """Print index's summary."""
        from gossamer.cli.index_cmd import print_index_report

        print_index_report("Indexer", report)


class JsonListener(ConsoleListener):
    """Prints no step summaries (``--json``: only the crawl's report, at the end); keeps the live fetch line."""

    def injected(self, report: InjectReport) -> None:
        """Print nothing."""

    def sitemapped(self, report: Any) -> None:
        """Print nothing."""

    def round_started(self, number: int, rounds: int) -> None:
        """Print nothing."""

    def generated(self, report: GenerateReport) -> None:
        """Print nothing."""

    def unfinished(self, segments: list[Place]) -> None:
        """Print nothing."""

    def fetched(self, report: FetchReport) -> None:
        """Close the live line."""
        if self.live is not None:
            self.live.stop()
            self.live = None

    def parsed(self, report: Any) -> None:
        """Print nothing."""

    def updated(self, report: UpdateReport) -> None:
        """Print nothing."""

    def linked(self, report: Any) -> None:
        """Print nothing."""

    def deduplicated(self, report: Any) -> None:
        """Print nothing."""

    def indexed(self, report: Any) -> None:
        """Print nothing."""


def crawl_command(
    seeds: Annotated[str | None, typer.Argument(help="seed file or directory, a path or a URI (optional when the "
                                                     "crawldb exists)")] = None,
    crawl_dir: Annotated[str, typer.Option("-d", "--dir", help="crawl directory: a path or a URI "
                                                               "(s3://bucket/crawl, hdfs://…)")] = "crawl",
    rounds: Annotated[int, typer.Option("-r", "--rounds", help="generate/fetch/parse/updatedb rounds")] = 1,
    top_n: Annotated[int, typer.Option("-topN", "--top-n", help="URLs per round (bin/crawl's default)")] = 50_000,
    threads: Annotated[int | None, typer.Option("-threads", "--threads",
                                                help="parallel requests in all (fetcher.threads.fetch)")] = None,
    index: Annotated[bool, typer.Option("--index", "-i", help="index the crawl after the last round")] = False,
    sitemaps: Annotated[bool, typer.Option("--sitemaps", help="before the first round, read the sitemaps that "
                                                              "each crawldb host's robots.txt names")] = False,
    sitemap_urls: Annotated[str | None, typer.Option(
        "-sm", "--sitemap-urls", help="before the first round, read the sitemaps listed in this file or directory"
    )] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the crawl's report as one JSON object instead of "
                                                         "the step summaries")] = False,
) -> None:
    """Crawl: inject the seeds, then rounds of generate, fetch (+parse) and updatedb.

    Stops after the given number of rounds or when nothing is due.  Set
    http.agent.name first (in <crawl_dir>/gossamer.toml or with -D).  As bin/crawl,
    each fetch stops after 180 minutes unless fetcher.timelimit.mins is set.
    A crawl directory on S3 or HDFS reads no gossamer.toml from there: use --conf or -D.

    Examples:

      gossamer crawl seeds.txt -d crawl -r 3 -D http.agent.name=mybot

      gossamer crawl -d crawl -r 2 -topN 50000 -threads 100

      gossamer crawl seeds.txt -d s3://bucket/crawl -r 3 --index --engine spark

      gossamer crawl seeds.txt -d crawl -r 2 --sitemaps
    """
    from gossamer.crawl.cycle import CrawlOptions, crawl

    if rounds < 1:
        fail("-r/--rounds must be at least 1")
    place, settings = crawl_dir_argument(crawl_dir)
    if seeds is None and not (place / "crawldb").is_dir():
        fail(f"no seeds given and {place / 'crawldb'} does not exist")
    seeds_place = place_argument(seeds, settings) if seeds is not None else None
    sitemap_place = place_argument(sitemap_urls, settings) if sitemap_urls is not None else None
    check_before_crawling(crawl_dir, settings, seeds, seeds_place)
    listener = JsonListener() if as_json else ConsoleListener()
    with user_errors():
        try:
            report = crawl(place, settings, CrawlOptions(rounds, top_n, threads, None, seeds_place, index,
                                                          sitemaps, sitemap_place), listener)
        finally:
            if listener.live is not None:
                listener.live.stop()
    if as_json:
        print_json(report)
        return
    ending = f" ({report.stopped})" if report.stopped else ""
    typer.echo(f"\nCrawl: {report.rounds_done} round(s){ending}, {len(report.segments)} segment(s), "
               f"{report.pages_fetched:,} pages fetched in {report.seconds:.1f} s")


def check_before_crawling(crawl_dir: str, settings: Settings, seeds: str | None, seeds_place: Place | None) -> None:
    """What would stop the crawl half-way, checked before any step runs (no orphan segment is left).

    Exits 2 when ``http.agent.name`` is unset or the seeds are missing, 1 when a local
    seeds file holds no URL.
    """
    from gossamer.core import agent_string

    try:
        agent_string(settings)
    except ValueError:
        fail(f"http.agent.name is empty: set it before crawling, with -D http.agent.name=mybot or in "
             f"{crawl_dir.rstrip('/')}/gossamer.toml (\"http.agent.name\" = \"mybot\")")
    if seeds is None or seeds_place is None:
        return
    with user_errors():
        if not seeds_place.exists():
            fail(f"seeds not found: {seeds}")
    if has_no_seed_urls(seeds, seeds_place):
        fail(f"no seed URLs in {seeds} (it is empty or holds only blank and # lines): nothing to crawl",
             EXIT_NOTHING)
