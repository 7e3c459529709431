"""``gossamer clean-tmp``: remove what killed jobs left in a crawl directory."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, JSON_HELP, crawl_dir_argument, fail, print_json, user_errors


def clean_tmp_command(
    crawl_dir: Annotated[str, typer.Option("-d", "--dir", help="crawl directory or URI")] = "crawl",
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Remove unfinished versions, segments and staging folders that killed jobs left behind.

    A place a live job holds (its lock is taken) is left alone and listed as busy.

    Examples:

      gossamer clean-tmp -d crawl
    """
    from gossamer.crawl.sweep import sweep

    place, settings = crawl_dir_argument(crawl_dir)
    if not place.exists():
        fail(f"no crawl directory at {crawl_dir}", EXIT_NOTHING)
    with user_errors():
        report = sweep(place, settings)
    if as_json:
        print_json(report)
        return
    for removed in report.removed:
        typer.echo(f"removed: {removed}")
    for busy in report.busy:
        typer.echo(f"busy (left alone): {busy}")
    for kept in report.kept:
        typer.echo(f"kept: {kept}")
    kept = f", {len(report.kept)} kept" if report.kept else ""
    typer.echo(f"clean-tmp: {len(report.removed)} removed, {len(report.busy)} busy{kept}")
