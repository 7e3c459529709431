"""``gossamer robotschecker``: check URLs against a robots.txt file or URL, for pipes.

Output (stdout), one line per input URL, then the file-wide facts::

    allowed<TAB>url
    denied<TAB>url<TAB>reason
    error<TAB>line<TAB>not a URL or path
    Crawl-delay: 5 (or: Crawl-delay: none)
    Sitemap: https://example.com/sitemap.xml

Where the rules came from (HTTP status, group, agents) goes to stderr, so pipes
see only the verdicts.  Blank lines and ``#`` comments in the URL list are skipped.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from gossamer.cli.common import err_console, fail, settings_for, user_errors


def _url_lines(urls_file: Path) -> Iterator[str]:
    if str(urls_file) == "-":
        for line in sys.stdin:
            yield line.strip()
        return
    with open(urls_file, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            yield line.strip()


def robotschecker_command(
    robots: Annotated[str, typer.Argument(help="robots.txt file, or an http(s) URL of a robots.txt")],
    urls_file: Annotated[Path, typer.Argument(help="file of URLs (one per line), or - for standard input")],
    agents: Annotated[str | None, typer.Argument(
        help="agent names, comma separated (default: http.agent.name, then http.robots.agents)")] = None,
) -> None:
    """Check URLs against robots.txt: prints allowed/denied per URL, then Crawl-delay and Sitemaps.

    The agent names select the robots.txt groups as Nutch does (lower-cased product
    tokens; without any, only the '*' group applies). A URL argument is fetched with
    the crawler's settings: http.timeout, http.robots.redirect.max,
    http.robots.403.allow, http.robots.503.defer.visits, http.content.limit.

    Examples:

      gossamer robotschecker robots.txt urls.txt mybot

      cut -f1 links.tsv | gossamer robotschecker https://example.com/robots.txt - -D http.agent.name=mybot
    """
    from dataclasses import replace

    from gossamer.crawl.robots import RobotsPolicy, fetch_robots_txt, parse_robots

    settings = settings_for(Path.cwd())
    with user_errors():
        policy = RobotsPolicy.from_settings(settings)
    if agents is not None:
        names = [a.strip().lower() for a in agents.split(",")]
        policy = replace(policy, agents=[n for n in dict.fromkeys(names) if n and n != "*"])
    if str(urls_file) != "-" and not urls_file.is_file():
        fail(f"URL file not found: {urls_file}")
    if robots.startswith(("http://", "https://")):
        rules = asyncio.run(fetch_robots_txt(robots, policy, settings=settings))  # through the Protocol plugins
    else:
        path = Path(robots)
        if not path.is_file():
            fail(f"robots.txt file not found: {robots}")
        with user_errors():
            content = path.read_bytes()
        rules = parse_robots(content, path.resolve().as_uri(), policy.agents, "text/plain", policy.max_bytes,
                             status=None)
    agents_text = ",".join(policy.agents) or "(none: only the * group applies)"
    hops = "".join(f"\n  redirected to {hop}" for hop in rules.redirects)
    err_console.print(f"robots.txt: {rules.source}{hops}\n  agents: {agents_text}\n  {rules.note}",
                      markup=False, highlight=False, soft_wrap=True)
    out = sys.stdout
    interactive = str(urls_file) == "-" and sys.stdin.isatty()
    for line in _url_lines(urls_file):
        if not line or line.startswith("#"):
            continue
        if "://" not in line and not line.startswith("/"):
            out.write(f"error\t{line}\tnot a URL or path\n")
        else:
            decision = rules.check(line)
            out.write(f"allowed\t{line}\n" if decision.allowed else f"denied\t{line}\t{decision.reason}\n")
        if interactive:
            out.flush()
    delay = "none" if rules.crawl_delay is None else f"{rules.crawl_delay:g}"
    out.write(f"Crawl-delay: {delay}\n")
    for sitemap in rules.sitemaps:
        out.write(f"Sitemap: {sitemap}\n")
    out.flush()
