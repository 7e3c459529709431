"""``gossamer readdb``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from gossamer.cli.common import fail, local_path_argument, table_argument, user_errors


def readdb_command(
    crawldb: Annotated[str, typer.Argument(help="crawldb directory or URI (crawl/crawldb, s3://bucket/crawl/crawldb)")],
    extra: Annotated[list[str] | None, typer.Argument(
        help="for -topN: <out> and an optional <min score>", show_default=False)] = None,
    stats: Annotated[bool, typer.Option("-stats", "--stats", help="print statistics")] = False,
    sort: Annotated[bool, typer.Option("-sort", "--sort", help="with -stats: counts per host")] = False,
    as_json: Annotated[bool, typer.Option("-json", "--json", help="with -stats: print JSON")] = False,
    dump_dir: Annotated[str | None, typer.Option("-dump", "--dump", help="dump entries into this local directory")]
    = None,
    fmt: Annotated[str, typer.Option("-format", "--format", help="dump format: normal, csv or json")]
    = "normal",
    status: Annotated[str | None, typer.Option("-status", "--status", help="dump only this status")] = None,
    regex: Annotated[str | None, typer.Option("-regex", "--regex", help="dump only URLs matching this")] = None,
    retry: Annotated[int | None, typer.Option("-retry", "--retry", help="dump only this retry count")] = None,
    sample: Annotated[float | None, typer.Option("-sample", "--sample", help="dump this fraction")] = None,
    url: Annotated[str | None, typer.Option("-url", "--url", help="print the entry of one URL")] = None,
    topn: Annotated[int | None, typer.Option("-topN", "--top-n", help="write the N best-scoring URLs")] = None,
) -> None:
    """Read a crawldb: statistics, dumps, single URLs, top URLs by score.

    Examples:
      gossamer readdb crawl/crawldb -stats -sort

      gossamer readdb crawl/crawldb -dump out -format csv -status db_unfetched

      gossamer readdb crawl/crawldb -url https://example.org/

      gossamer readdb crawl/crawldb -topN 100 top [0.5]
    """
    from gossamer.crawl.readdb import DumpFilter, crawldb_stats, dump, lookup, top_n, write_top_n
    from gossamer.store import open_live

    modes = [stats, dump_dir is not None, url is not None, topn is not None]
    if sum(modes) != 1:
        fail("choose exactly one of -stats, -dump <out>, -url <url>, -topN <n> <out>")
    place, settings = table_argument(crawldb, "crawldb")
    rest = extra or []
    with user_errors():
        version = open_live(place)
        if stats:
            if rest:
                fail(f"unexpected arguments: {' '.join(rest)}")
            quantiles = [float(q) for q in settings.get_list("db.stats.score.quantiles")]
            result = crawldb_stats(version, quantiles, by_host=sort)
            if as_json:
                typer.echo(json.dumps(result.to_json(), indent=1))
            else:
                typer.echo(result.to_text(str(crawldb)))
        elif dump_dir is not None:
            flt = DumpFilter.build(status, regex, retry, sample)
            count = dump(version, local_path_argument(dump_dir, "the dump directory"), fmt, flt)
            typer.echo(f"CrawlDb dump: {count} records written to {dump_dir}")
        elif url is not None:
            datum = lookup(version, url)
            if datum is None:
                typer.echo(f"URL: {url}\nnot found")
                raise typer.Exit(1)
            typer.echo(f"URL: {url}\n{datum.to_text()}", nl=False)
        else:
            assert topn is not None
            if not rest or len(rest) > 2:
                fail("-topN needs: <n> <out_dir> [<min score>]")
            minimum = float(rest[1]) if len(rest) > 1 else None
            path = write_top_n(top_n(version, topn, minimum), Path(rest[0]))
            typer.echo(f"CrawlDb topN: done ({path})")
