"""``gossamer index`` and ``gossamer clean``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import fail, job_progress, print_errors, settings_for, user_errors
from gossamer.store.layout import CrawlLayout

if TYPE_CHECKING:
    from gossamer.index.indexer import IndexReport


def index_command(
    crawldb: Annotated[Path, typer.Argument(help="crawldb directory (its crawl directory holds the index)")],
    segments: Annotated[list[Path] | None, typer.Argument(help="segment directories", show_default=False)] = None,
    linkdb: Annotated[Path | None, typer.Option("-linkdb", "--linkdb", help="linkdb directory (anchor texts)")]
    = None,
    segments_dir: Annotated[Path | None, typer.Option("-dir", "--dir", help="every segment in this directory")]
    = None,
    delete_gone: Annotated[bool, typer.Option("-deleteGone", "--delete-gone",
                                              help="delete gone, redirected and duplicate pages")] = False,
    url_filter: Annotated[bool, typer.Option("-filter", "--filter", help="apply URL filters")] = False,
    normalize: Annotated[bool, typer.Option("-normalize", "--normalize", help="apply URL normalizers")] = False,
) -> None:
    """Index parsed pages of segments into the crawl's full-text index (<crawl>/index).

    Examples:

      gossamer index crawl/crawldb -linkdb crawl/linkdb -dir crawl/segments -deleteGone

      gossamer index crawl/crawldb crawl/segments/20261122103000
    """
    from gossamer.crawl.segments import list_segments
    from gossamer.index.documents import IndexOptions
    from gossamer.index.indexer import index

    chosen = list(segments or [])
    if segments_dir is not None:
        chosen += list_segments(segments_dir)
    if not chosen:
        fail("give segment directories or -dir <segments_dir>")
    layout = CrawlLayout.of_table(crawldb)
    settings = settings_for(layout.root)
    with user_errors(), job_progress("index") as progress:
        report = index(layout.index, crawldb, linkdb, chosen, settings,
                       IndexOptions(delete_gone, url_filter, normalize), progress)
    print_index_report("Indexer", report)


def clean_command(
    crawldb: Annotated[Path, typer.Argument(help="crawldb directory (its crawl directory holds the index)")],
    no_commit: Annotated[bool, typer.Option("-noCommit", "--no-commit", help="accepted for Nutch compatibility")]
    = False,
) -> None:
    """Delete gone and duplicate pages (crawldb status) from the index.

    Example:

      gossamer clean crawl/crawldb
    """
    from gossamer.index.indexer import clean

    layout = CrawlLayout.of_table(crawldb)
    with user_errors():
        report = clean(layout.index, crawldb, settings_for(layout.root))
    print_index_report("CleaningJob", report)


def print_index_report(title: str, report: IndexReport) -> None:
    """Print the summary of an index or clean run."""
    print_errors(report.errors, report.counters.get("errors", 0))
    for note in report.notes:
        typer.echo(f"{title}: {note}")
    skipped = {k.removeprefix("skipped_"): v for k, v in sorted(report.counters.items()) if k.startswith("skipped_")}
    typer.echo(f"{title}: documents added/replaced: {report.added}, delete requests: {report.deleted}")
    if skipped:
        typer.echo(f"{title}: skipped: " + ", ".join(f"{k} {v}" for k, v in skipped.items()))
    typer.echo(f"{title}: finished in {report.seconds:.2f} s")
