"""``gossamer sitemap``."""

from __future__ import annotations

from typing import Annotated

import typer

from gossamer.cli.common import (
    EXIT_NOTHING,
    JSON_HELP,
    crawl_dir_argument,
    err_console,
    fail,
    job_progress,
    place_argument,
    print_errors,
    print_json,
    table_argument,
    user_errors,
)


def sitemap_command(
    crawldb: Annotated[str | None, typer.Argument(help="crawldb directory or URI (or give the crawl with -d)")] = None,
    crawl_dir: Annotated[str | None, typer.Option("-d", "--dir", help="crawl directory (its crawldb is used)")] = None,
    sitemap_urls: Annotated[str | None, typer.Option(
        "-sitemapUrls", "--sitemap-urls", help="file or directory of sitemap URLs (or host names), one a line")] = None,
    hostdb: Annotated[str | None, typer.Option("-hostdb", "--hostdb",
                                               help="a table with a host column: read each host's robots.txt")] = None,
    from_crawldb: Annotated[bool, typer.Option(
        "-fromCrawlDb", "--from-crawldb",
        help="also read the robots.txt of every host in the crawldb (the default without -sitemapUrls/-hostdb)")
    ] = False,
    threads: Annotated[int | None, typer.Option("-threads", "--threads", help="parallel requests")] = None,
    no_strict: Annotated[bool, typer.Option("-noStrict", "--no-strict",
                                            help="accept URLs outside the sitemap's directory (same host)")] = False,
    no_filter: Annotated[bool, typer.Option("-noFilter", "--no-filter", help="skip URL filters")] = False,
    no_normalize: Annotated[bool, typer.Option("-noNormalize", "--no-normalize",
                                               help="skip URL normalizers")] = False,
    as_json: Annotated[bool, typer.Option("--json", help=JSON_HELP)] = False,
) -> None:
    """Fetch sitemaps and merge the URLs they list into the crawldb (Nutch's SitemapProcessor).

    Sitemaps come from -sitemapUrls lines (a sitemap URL, or a host name whose
    robots.txt is read), from the robots.txt Sitemap: lines of each -hostdb host, or,
    when neither is given, of each host in the crawldb (/sitemap.xml when robots.txt
    names none).  XML sitemaps and indexes, RSS/Atom feeds and text sitemaps, gzipped
    or not.  New URLs become db_unfetched with score = priority, interval from
    changefreq, modified time = lastmod.  Exit 1 when the sitemaps listed no URL.

    Examples:
      gossamer sitemap -d crawl

      gossamer sitemap crawl/crawldb -sitemapUrls sitemaps/ -noStrict -threads 20
    """
    from gossamer.crawl.sitemap import SitemapOptions, sitemap

    if (crawldb is None) == (crawl_dir is None):
        fail("give the crawldb, or the crawl directory with -d (one of them)")
    if crawldb is not None:
        place, settings = table_argument(crawldb, "crawldb")
    else:
        root, settings = crawl_dir_argument(crawl_dir or "")
        place = root / "crawldb"
    if threads is not None and threads < 1:
        fail("-threads must be at least 1")
    options = SitemapOptions(
        strict=settings.get_bool("sitemap.strict.parsing") and not no_strict,
        filter=settings.get_bool("sitemap.url.filter") and not no_filter,
        normalize=settings.get_bool("sitemap.url.normalize") and not no_normalize,
        threads=threads,
        sitemap_urls=place_argument(sitemap_urls, settings) if sitemap_urls else None,
        hostdb=place_argument(hostdb, settings) if hostdb else None,
        from_crawldb=True if from_crawldb else None,
    )
    with user_errors(), job_progress("sitemap") as progress:
        report = sitemap(place, settings, options, progress)
    if as_json:
        print_json(report)
    else:
        print_errors(report.errors, len(report.errors))
        for line in report.summary_lines():
            typer.echo(line)
        typer.echo(f"SitemapProcessor: finished in {report.seconds:.2f} s")
    if not report.counters.get("urls_found"):
        err_console.print("SitemapProcessor: the sitemaps listed no URL: crawldb unchanged", highlight=False,
                          markup=False)
        raise typer.Exit(EXIT_NOTHING)
