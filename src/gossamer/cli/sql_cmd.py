"""``gossamer sql``: SQL over a crawl's tables (DuckDB, in this process), one query or a prompt."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, EXIT_OK, EXIT_USAGE, crawl_dir_argument, fail, user_errors
from gossamer.cli.sql_output import FORMATS


def sql_command(
    query: Annotated[str | None, typer.Argument(help="the SQL to run (several statements: the last one's "
                                                "result is printed)")] = None,
    crawl_dir: Annotated[str, typer.Option("-d", "--dir", help="crawl directory, or its URI (s3://bucket/crawl)")]
    = "crawl",
    shell: Annotated[bool, typer.Option("--shell", help="an interactive prompt (statements end with ';')")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table, csv or json (JSON Lines)")] = "table",
    max_width: Annotated[int, typer.Option("--max-width", help="table format: cut cells to this many "
                                           "characters (0: never)")] = 80,
) -> None:
    """Query the crawl's tables with SQL (DuckDB) — wherever the crawl lives.

    Views over the live version of every table: crawldb, linkdb, and across all segments
    crawl_generate, crawl_fetch, crawl_parse, parse_data, parse_text (with a 'segment' column);
    'status_name' beside every status code; crawl_status lists the codes. Exit 0 with rows,
    1 when the query found none, 2 on bad SQL or a missing crawl.

    Examples:

      gossamer sql -d crawl "SELECT status_name, count(*) FROM crawldb GROUP BY 1 ORDER BY 2 DESC"

      gossamer sql -d s3://bucket/crawl --format csv "SELECT url, title FROM parse_data"

      gossamer sql -d crawl --shell
    """
    from gossamer.cli.sql_output import execute
    from gossamer.cli.sql_shell import first_line, run_shell
    from gossamer.store.sql import open_crawl_views

    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if shell == (query is not None):
        fail("give a query, or --shell for a prompt (not both)" if shell else
             'give a query (gossamer sql -d crawl "SELECT count(*) FROM crawldb") or --shell')
    place, _settings = crawl_dir_argument(crawl_dir)
    with user_errors():
        views = open_crawl_views(place)
    with views:
        for skipped in views.skipped:
            typer.echo(f"warning: left out {skipped}", err=True)
        if shell:
            raise typer.Exit(run_shell(views, fmt, max_width))
        import duckdb

        try:
            count = execute(views.con, query or "", fmt, sys.stdout, max_width)
            sys.stdout.flush()
        except duckdb.Error as exc:
            fail(first_line(exc), EXIT_USAGE)
        except BrokenPipeError:  # the reader (head, less) has seen enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise typer.Exit(EXIT_OK) from None
    raise typer.Exit(EXIT_NOTHING if count == 0 else EXIT_OK)
