"""``gossamer index`` and ``gossamer clean``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import (
    JSON_HELP,
    job_progress,
    place_argument,
    print_errors,
    print_json,
    segment_arguments,
    table_argument,
    user_errors,
)
from gossamer.store import CrawlLayout, Place, as_place

if TYPE_CHECKING:
    from gossamer.core import Settings
    from gossamer.index import IndexReport

INDEX_HELP = "index directory or URI (default: the index beside the crawldb, <crawl>/index)"


def index_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (its crawl directory holds the index)")],
    segments: Annotated[list[str] | None, typer.Argument(help="segment directories or URIs", show_default=False)]
    = None,
    linkdb: Annotated[str | None, typer.Option("-linkdb", "--linkdb", help="linkdb directory or URI (anchor texts)")]
    = None,
    segments_dir: Annotated[str | None, typer.Option("-dir", "--dir", help="every segment in this directory (or URI)")]
    = None,
    index_dir: Annotated[str | None, typer.Option("-index", "--index", help=INDEX_HELP)] = None,
    delete_gone: Annotated[bool, typer.Option("-deleteGone", "--delete-gone",
                                              help="delete gone, redirected and duplicate pages")] = False,
    url_filter: Annotated[bool, typer.Option("-filter", "--filter", help="apply URL filters")] = False,
    normalize: Annotated[bool, typer.Option("-normalize", "--normalize", help="apply URL normalizers")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Index parsed pages of segments into the crawl's full-text index (<crawl>/index, or --index).

    Any of the crawldb, linkdb, segments and index may be URIs (s3://, hdfs:// …); see docs/storage.md.

    Examples:

      gossamer index crawl/crawldb -linkdb crawl/linkdb -dir crawl/segments -deleteGone

      gossamer index crawl/crawldb crawl/segments/20261122103000

      gossamer index s3://bucket/crawl/crawldb -linkdb s3://bucket/crawl/linkdb -dir s3://bucket/crawl/segments
    """
    from gossamer.index import IndexOptions, index

    place, settings = table_argument(crawldb, "crawldb")
    chosen = segment_arguments(segments, segments_dir, settings)
    target = index_place(place, index_dir, settings)
    links = place_argument(linkdb, settings) if linkdb is not None else None
    with user_errors(), job_progress("index") as progress:
        report = index(target, place, links, chosen, settings, IndexOptions(delete_gone, url_filter, normalize),
                       progress)
    print_json(report) if as_json else print_index_report("Indexer", report)


def clean_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (its crawl directory holds the index)")],
    index_dir: Annotated[str | None, typer.Option("-index", "--index", help=INDEX_HELP)] = None,
    no_commit: Annotated[bool, typer.Option("-noCommit", "--no-commit", help="accepted for Nutch compatibility")]
    = False,
) -> None:
    """Delete gone and duplicate pages (crawldb status) from the index.

    Examples:

      gossamer clean crawl/crawldb

      gossamer clean s3://bucket/crawl/crawldb
    """
    from gossamer.index import clean

    place, settings = table_argument(crawldb, "crawldb")
    target = index_place(place, index_dir, settings)
    with user_errors():
        report = clean(target, place, settings)
    print_index_report("CleaningJob", report)


def index_place(crawldb: Place, given: str | None, settings: Settings) -> Place:
    """The index to write: ``--index`` when given, else ``index`` beside the crawldb (same filesystem)."""
    if given is not None:
        return place_argument(given, settings)
    crawldb = as_place(crawldb)
    if not crawldb.is_local:
        return crawldb.parent / "index"
    return CrawlLayout.of_table(crawldb.local_path()).index


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
