"""``gossamer webdb``: build a crawl's WebDB and read it (stats, a page, pages by MD5, links)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from gossamer.cli.common import EXIT_NOTHING, JSON_HELP, fail, print_json, settings_for, user_errors

if TYPE_CHECKING:
    from gossamer.webdb import Link, Page

ACTIONS = ("build", "stats", "page", "pages", "links", "links-from")
_NEEDS_ARGUMENT = {"page": "URL", "pages": "MD5", "links": "URL", "links-from": "MD5"}


def _md5(text: str) -> bytes:
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = b""
    if len(value) != 16:
        fail(f"{text!r} is no MD5: give 32 hexadecimal digits")
    return value


def _page_line(page: Page) -> str:
    return (f"{page.url}\tmd5={page.md5.hex()}\tfetch_time={page.fetch_time}\tretries={page.retries}"
            f"\tinterval={page.interval}\tscore={page.score:g}\tnext_score={page.next_score:g}")


def _link_line(link: Link) -> str:
    return f"{link.from_md5.hex()}\t{link.to_url}\t{link.anchor}"


def webdb_command(
    action: Annotated[str, typer.Argument(help="build | stats | page URL | pages MD5 | links URL | links-from MD5")],
    argument: Annotated[str | None, typer.Argument(help="the URL or MD5 (hex) the action reads",
                                                   show_default=False)] = None,
    crawl_dir: Annotated[Path, typer.Option("-d", "--dir", help="crawl directory (its WebDB is <dir>/webdb)")]
    = Path("crawl"),
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Build or read the crawl's WebDB: pages by URL and by content (MD5), links from content to URLs.

    build fills <dir>/webdb from the crawldb (pages) and the segments' parse_data (outlinks, from
    the parsed content's MD5); the others read it: stats (pages, links), page URL, pages MD5
    (every page with that content), links URL (links pointing to it), links-from MD5 (links that
    content holds).  Pages print as tab-separated fields, links as "from_md5 to_url anchor".

    Examples:

      gossamer webdb -d crawl build

      gossamer webdb -d crawl links http://example.com/
    """
    from gossamer.webdb import WebDB, build_webdb

    if action not in ACTIONS:
        fail(f"unknown action {action!r}: one of {', '.join(ACTIONS)}")
    if action in _NEEDS_ARGUMENT and argument is None:
        fail(f"webdb {action} needs a {_NEEDS_ARGUMENT[action]}")
    settings = settings_for(crawl_dir)
    if action == "build":
        with user_errors():
            report = build_webdb(crawl_dir, settings)
        if as_json:
            print_json(report)
        else:
            typer.echo(f"WebDB {crawl_dir / 'webdb'}: {report.pages} pages, {report.links} links "
                       f"(read {report.crawldb_pages} crawldb entries, {report.outlinks} outlinks "
                       f"in {report.segments} segments; {report.counters.get('links_refused', 0)} links refused)")
        return
    if not (crawl_dir / "webdb").is_dir():
        fail(f"{crawl_dir / 'webdb'} does not exist: run gossamer webdb -d {crawl_dir} build")
    with user_errors(), WebDB.open(crawl_dir / "webdb", settings).reader() as reader:
        if action == "stats":
            counts = {"pages": reader.num_pages(), "links": reader.num_links()}
            if as_json:
                import json

                typer.echo(json.dumps(counts))
            else:
                typer.echo(f"pages\t{counts['pages']}\nlinks\t{counts['links']}")
            return
        assert argument is not None
        lines: list[str]
        if action == "page":
            page = reader.get_page(argument)
            lines = [_page_line(page)] if page is not None else []
        elif action == "pages":
            lines = [_page_line(p) for p in reader.get_pages(_md5(argument))]
        elif action == "links":
            lines = [_link_line(link) for link in reader.get_links(argument)]
        else:
            lines = [_link_line(link) for link in reader.get_links(_md5(argument))]
    for line in lines:
        typer.echo(line)
    if not lines:
        raise typer.Exit(EXIT_NOTHING)
