"""``gossamer import-nutch`` and ``gossamer export-nutch``: a whole crawl from Nutch's files and back."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import (
    JSON_HELP,
    crawl_dir_argument,
    fail,
    local_path_argument,
    place_argument,
    print_errors,
    print_json,
    user_errors,
)
from gossamer.crawl.nutchio import MigrationReport, NotANutchCrawl, export_nutch, import_nutch
from gossamer.store.hadoop import HadoopFormatError


def _print(report: MigrationReport, verb: str) -> None:
    for line in report.lines(verb):
        typer.echo(line)
    print_errors(report.samples, sum(report.bad.values()))


def import_nutch_command(
    nutch_dir: Annotated[str, typer.Argument(help="a Nutch crawl directory (crawldb, linkdb, segments), a segments "
                                                  "directory or one segment (1.x, 0.5 or 0.4); path or URI")],
    crawl_dir: Annotated[str, typer.Option("-d", "--dir", help="the Gossamer crawl directory to write")],
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Import a Nutch crawl: crawldb and linkdb become tables, segments Gossamer segments (content as WARC).

    Bad records are counted, reported and skipped; the summary gives, per table, the records
    converted and those that could not be. A directory that is not Nutch's exits 2.

    Examples:

      gossamer import-nutch nutch/crawl -d crawl

      gossamer import-nutch nutch/crawl/segments/20240101000000 -d crawl
    """
    target, settings = crawl_dir_argument(crawl_dir)
    source = place_argument(nutch_dir, settings)
    with user_errors():
        try:
            report = import_nutch(source, target, settings)
        except NotANutchCrawl as exc:
            fail(str(exc))
        except HadoopFormatError as exc:
            fail(str(exc))
    print_json(report) if as_json else _print(report, "imported")


def export_nutch_command(
    out_dir: Annotated[str, typer.Argument(help="where to write the Nutch crawl directory (local)")],
    crawl_dir: Annotated[str, typer.Option("-d", "--dir", help="the Gossamer crawl directory to read")],
    parts: Annotated[int | None, typer.Option("-numParts", "--parts", help="parts of the exported crawldb and "
                                                                         "linkdb (default: as many as Gossamer's)")]
    = None,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Export a Gossamer crawl as Nutch 1.x files: crawldb, linkdb and segments as MapFiles/SequenceFiles.

    Examples:

      gossamer export-nutch -d crawl nutch/crawl

      gossamer export-nutch -d crawl nutch/crawl --parts 4
    """
    if parts is not None and parts < 1:
        fail("--parts must be 1 or more")
    source, settings = crawl_dir_argument(crawl_dir)
    out = local_path_argument(out_dir, "the export directory")
    with user_errors():
        report = export_nutch(source, out, settings, parts)
    print_json(report) if as_json else _print(report, "exported")
