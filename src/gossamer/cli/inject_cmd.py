"""``gossamer inject``."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    JSON_HELP,
    err_console,
    fail,
    has_no_seed_urls,
    job_progress,
    place_argument,
    print_errors,
    print_json,
    table_argument,
    user_errors,
)


def inject_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (crawl/crawldb, s3://bucket/crawl/crawldb)")],
    seeds: Annotated[str, typer.Argument(help="seed file, or a directory of seed files (a path or a URI)")],
    overwrite: Annotated[bool, typer.Option("-overwrite", "--overwrite",
                                            help="replace existing entries with the seed's")] = False,
    update: Annotated[bool, typer.Option("-update", "--update",
                                         help="merge seed metadata/score/interval into existing entries")] = False,
    no_filter: Annotated[bool, typer.Option("-noFilter", "--no-filter", help="skip URL filters")] = False,
    no_normalize: Annotated[bool, typer.Option("-noNormalize", "--no-normalize",
                                               help="skip URL normalizers")] = False,
    filter_normalize_all: Annotated[bool, typer.Option(
        "-filterNormalizeAll", "--filter-normalize-all",
        help="also normalize and filter the URLs already in the crawldb")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Inject seed URLs into a crawldb.

    Seed lines: URL, then optional TAB-separated key=value items (nutch.score,
    nutch.fetchInterval, nutch.fetchInterval.fixed, any other key becomes metadata).
    Blank and # lines are ignored; bad lines are reported with their line number
    and skipped.

    Examples:
      gossamer inject crawl/crawldb seeds.txt

      gossamer inject crawl/crawldb seeds/ -update -D db.score.injected=2.0
    """
    from gossamer.crawl.inject import InjectOptions, inject

    if overwrite and update:
        fail("-overwrite and -update exclude each other")
    place, settings = table_argument(crawldb, "crawldb")
    options = InjectOptions(overwrite, update, not no_filter, not no_normalize, filter_normalize_all)
    seeds_place = place_argument(seeds, settings)
    with user_errors(), job_progress("inject") as progress:
        if not seeds_place.exists():
            raise FileNotFoundError(f"seeds not found: {seeds}")
        if has_no_seed_urls(seeds, seeds_place):
            fail(f"no seed URLs in {seeds} (it is empty or holds only blank and # lines): nothing to inject",
                 EXIT_NOTHING)
        report = inject(place, seeds_place, settings, options, progress)
    if as_json:
        print_json(report)
    else:
        for action in report.recovered:
            typer.echo(f"Injector: recovered: {action}")
        print_errors(report.errors, report.counters.get("errors", 0))
        for line in report.summary_lines():
            typer.echo(line)
        typer.echo(f"Injector: finished in {report.seconds:.2f} s")
    if report.counters.get("seed_lines", 0) == 0:
        err_console.print(f"Injector: no seed URLs in {seeds}: nothing injected", highlight=False, markup=False)
        raise typer.Exit(EXIT_NOTHING)
