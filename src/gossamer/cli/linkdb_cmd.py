"""``gossamer invertlinks``, ``readlinkdb`` and ``mergelinkdb``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    JSON_HELP,
    fail,
    job_progress,
    local_path_argument,
    print_errors,
    print_json,
    segment_arguments,
    table_argument,
    user_errors,
)

if TYPE_CHECKING:
    from gossamer.crawl.linkdb import InvertReport


def invertlinks_command(
    linkdb: Annotated[str, typer.Argument(help="linkdb directory or URI (crawl/linkdb, s3://bucket/crawl/linkdb)")],
    segments: Annotated[list[str] | None, typer.Argument(help="segment directories or URIs", show_default=False)]
    = None,
    segments_dir: Annotated[str | None, typer.Option("-dir", "--dir", help="every segment in this directory or URI")]
    = None,
    no_normalize: Annotated[bool, typer.Option("-noNormalize", "-nonormalize", "--no-normalize",
                                               help="skip URL normalizers")] = False,
    no_filter: Annotated[bool, typer.Option("-noFilter", "-nofilter", "--no-filter",
                                            help="skip URL filters")] = False,
    force: Annotated[bool, typer.Option("-force", "--force", help="accepted for Nutch compatibility")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Add the outlinks of parsed segments to the linkdb as inlinks (target URL -> source URL, anchor).

    Links between pages of the same host are ignored (linkdb.ignore.internal.links);
    target and source URLs pass the normalizers and filters of scope "linkdb".

    Examples:

      gossamer invertlinks crawl/linkdb -dir crawl/segments

      gossamer invertlinks crawl/linkdb crawl/segments/20261122103000 -noNormalize -noFilter

      gossamer invertlinks s3://bucket/crawl/linkdb -dir s3://bucket/crawl/segments
    """
    from gossamer.crawl.linkdb import invert_links

    place, settings = table_argument(linkdb, "linkdb")
    chosen = segment_arguments(segments, segments_dir, settings)
    with user_errors(), job_progress("invertlinks") as progress:
        report = invert_links(place, chosen, settings, not no_normalize, not no_filter, progress)
    print_json(report) if as_json else _print_report("LinkDb", report)


def mergelinkdb_command(
    out: Annotated[str, typer.Argument(help="output linkdb directory or URI")],
    linkdbs: Annotated[list[str], typer.Argument(help="linkdbs to merge (directories or URIs), in order")],
    normalize: Annotated[bool, typer.Option("-normalize", "--normalize", help="apply URL normalizers")] = False,
    url_filter: Annotated[bool, typer.Option("-filter", "--filter", help="apply URL filters")] = False,
) -> None:
    """Merge linkdbs into one (one inlink per source URL; later inputs win on anchors).

    Examples:

      gossamer mergelinkdb merged/linkdb crawl1/linkdb crawl2/linkdb -filter

      gossamer mergelinkdb s3://bucket/crawl/linkdb crawl/linkdb s3://bucket/crawl/linkdb
    """
    from gossamer.crawl.linkdb import merge_linkdbs

    place, settings = table_argument(out, "linkdb")
    with user_errors(), job_progress("mergelinkdb") as progress:
        report = merge_linkdbs(place, linkdbs, settings, normalize, url_filter, progress)
    _print_report("LinkDbMerger", report)


def _print_report(title: str, report: InvertReport) -> None:
    """Print the skipped inputs, sample errors and the summary; exit 1 when nothing was done."""
    for action in report.recovered:
        typer.echo(f"{title}: recovered: {action}")
    print_errors(report.skipped, len(report.skipped))
    if not report.done:
        typer.echo(f"{title}: nothing to do, the linkdb is unchanged")
        raise typer.Exit(EXIT_NOTHING)
    print_errors(report.errors, report.counters.get("errors", 0))
    c = report.counters
    if c.get("pages") is not None:
        ignored = c.get("links_internal", 0) + c.get("links_external", 0)
        typer.echo(f"{title}: {len(report.segments)} segment(s), {c.get('segments_skipped', 0)} skipped; "
                   f"pages {c.get('pages', 0)} (not parsed: {c.get('pages_not_parsed', 0)}), "
                   f"links {c.get('links', 0)}, ignored {ignored}, filtered {c.get('links_filtered', 0)}, "
                   f"inverted {c.get('inlinks', 0)}")
    typer.echo(f"{title}: URLs updated {c.get('urls_updated', 0)}, unchanged {c.get('urls_unchanged', 0)}, "
               f"dropped {c.get('urls_dropped', 0) + c.get('urls_filtered', 0)}; inlinks over "
               f"linkdb.max.inlinks {c.get('inlinks_dropped', 0)}")
    typer.echo(f"{title}: total URLs {report.total_urls}, finished in {report.seconds:.2f} s")


def readlinkdb_command(
    linkdb: Annotated[str, typer.Argument(help="linkdb directory or URI (crawl/linkdb, s3://bucket/crawl/linkdb)")],
    dump_dir: Annotated[str | None, typer.Option("-dump", "--dump",
                                                 help="dump every URL into this local directory")] = None,
    regex: Annotated[str | None, typer.Option("-regex", "--regex", help="dump only URLs matching this")] = None,
    fmt: Annotated[str, typer.Option("-format", "--format", help="dump format: normal or json")] = "normal",
    url: Annotated[str | None, typer.Option("-url", "--url", help="print the inlinks of one URL")] = None,
) -> None:
    """Read a linkdb: dump it, or print the inlinks of one URL.

    Examples:

      gossamer readlinkdb crawl/linkdb -dump out -regex 'https://example\\.org/.*'

      gossamer readlinkdb crawl/linkdb -url https://example.org/

      gossamer readlinkdb s3://bucket/crawl/linkdb -dump out
    """
    from gossamer.crawl.linkdb import NOT_FOUND, dump_linkdb, format_inlink
    from gossamer.store import batch_to_rows, open_live

    if (dump_dir is None) == (url is None):
        fail("choose one of -dump <out_dir>, -url <url>")
    place, _ = table_argument(linkdb, "linkdb")  # also validates -D settings and the crawl's config
    out = local_path_argument(dump_dir, "the dump directory") if dump_dir is not None else None
    with user_errors(), open_live(place) as version:
        if out is not None:
            count = dump_linkdb(version, out, fmt, regex)
            typer.echo(f"LinkDb dump: {count} URLs written to {dump_dir}")
            return
        assert url is not None
        rows = batch_to_rows(version.lookup(url))
    if not rows:
        typer.echo(NOT_FOUND)
        raise typer.Exit(EXIT_NOTHING)
    for inlink in rows[0][1]:
        typer.echo(f" {format_inlink(inlink)}")
