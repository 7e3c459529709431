"""``gossamer readseg``: -list, -dump, -get (Nutch's SegmentReader)."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    fail,
    local_path_argument,
    segment_argument,
    segment_arguments,
    settings_for,
    user_errors,
)


def _sections(no_content: bool, no_fetch: bool, no_generate: bool, no_parse: bool, no_parse_data: bool,
              no_parse_text: bool) -> tuple[str, ...]:
    from gossamer.crawl.readseg import SECTIONS

    skip = {"content": no_content, "crawl_fetch": no_fetch, "crawl_generate": no_generate,
            "crawl_parse": no_parse, "parse_data": no_parse_data, "parse_text": no_parse_text}
    return tuple(s for s in SECTIONS if not skip[s])


def _time(millis: int | None) -> str:
    from gossamer.core import java_date

    return "-" if millis is None else java_date(millis)


def readseg_command(
    args: Annotated[list[str] | None, typer.Argument(help="-list: segments; -dump: <segment> <output>; "
                                                     "-get: <segment> <url>", show_default=False)] = None,
    list_: Annotated[bool, typer.Option("-list", "--list", help="one line per segment: counts, fetch times")]
    = False,
    dump: Annotated[bool, typer.Option("-dump", "--dump", help="write every record to <output>/dump")] = False,
    get: Annotated[bool, typer.Option("-get", "--get", help="print every record of one URL")] = False,
    segments_dir: Annotated[str | None, typer.Option("-dir", "--dir", help="-list: every segment in this "
                                                     "directory or URI")] = None,
    no_content: Annotated[bool, typer.Option("-nocontent", "--no-content")] = False,
    no_fetch: Annotated[bool, typer.Option("-nofetch", "--no-fetch")] = False,
    no_generate: Annotated[bool, typer.Option("-nogenerate", "--no-generate")] = False,
    no_parse: Annotated[bool, typer.Option("-noparse", "--no-parse")] = False,
    no_parse_data: Annotated[bool, typer.Option("-noparsedata", "--no-parse-data")] = False,
    no_parse_text: Annotated[bool, typer.Option("-noparsetext", "--no-parse-text")] = False,
) -> None:
    """Read segments: list them, dump them, or get one URL's records.

    Examples:

      gossamer readseg -list -dir crawl/segments

      gossamer readseg -dump crawl/segments/20261122103000 out -nocontent

      gossamer readseg -get crawl/segments/20261122103000 http://example.org/

      gossamer readseg -list -dir s3://bucket/crawl/segments -D fs.s3.endpoint=http://127.0.0.1:9000

    Segments may be paths or URIs (s3://, hdfs://, gs://); the -dump output is a local directory.
    """
    from gossamer.crawl.readseg import dump_segment, format_records, records_for, segment_info
    args = list(args or [])
    if sum((list_, dump, get)) != 1:
        fail("choose one of -list, -dump, -get")
    sections = _sections(no_content, no_fetch, no_generate, no_parse, no_parse_data, no_parse_text)
    with user_errors():
        if list_:
            if not args and segments_dir is None:
                fail("-list needs segment directories or -dir <segments_dir>")
            chosen = segment_arguments(args, segments_dir, settings_for(None))
            typer.echo("NAME\t\tGENERATED\tFETCHER START\t\tFETCHER END\t\tFETCHED\tPARSED")
            for segment in chosen:
                info = segment_info(segment)
                typer.echo("\t".join([info.name, *("?" if v is None else str(v) for v in (info.generated,)),
                                      _time(info.fetcher_start), _time(info.fetcher_end),
                                      *("?" if v is None else str(v) for v in (info.fetched, info.parsed))]))
        elif dump:
            if len(args) != 2:
                fail("-dump needs <segment> <output>")
            output = local_path_argument(args[1], "the dump directory")
            if output.exists() and any(output.iterdir()):
                fail(f"output {output} exists and is not empty")
            count = dump_segment(segment_argument(args[0])[0], output, sections)
            typer.echo(f"SegmentReader: dumped {count} URLs to {output / 'dump'}")
        else:
            if len(args) != 2:
                fail("-get needs <segment> <url>")
            records = records_for(segment_argument(args[0])[0], args[1], sections)
            if not records:
                typer.echo(f"SegmentReader: {args[1]} not found in {args[0]}")
                raise typer.Exit(EXIT_NOTHING)
            typer.echo(format_records(args[1], records), nl=False)
