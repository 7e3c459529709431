"""What ``parsechecker`` and ``indexchecker`` share: their options, the fetch + parse, the fetch report.

Exit codes of both checkers: 0 the page was fetched and parsed (indexchecker: and would
be added to the index), 1 it was fetched but not parsed (indexchecker: or would not be
added), 2 usage or settings error, 3 the fetch did not succeed (HTTP error, robots.txt
denial with ``-checkRobotsTxt``, a redirect not followed, a network error).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gossamer.cli.common import EXIT_FAILED, EXIT_NOTHING, err_console, settings_for, user_errors

if TYPE_CHECKING:
    from gossamer.core import Settings
    from gossamer.crawl.pagecheck import PageCheck

EXIT_FETCH_FAILED = EXIT_FAILED
EXIT_NOT_PARSED = EXIT_NOTHING

UrlArg = Annotated[str, typer.Argument(help="the URL to fetch")]
DumpText = Annotated[bool, typer.Option("-dumpText", "--dump-text", help="print all of the text, not an excerpt")]
JsonOut = Annotated[bool, typer.Option("--json", "-json", help="print one JSON object instead of text")]
Normalize = Annotated[bool, typer.Option("-normalize", "--normalize",
                                         help="normalize the URL (and redirect targets) first")]
FollowRedirects = Annotated[bool, typer.Option(
    "-followRedirects", "--follow-redirects",
    help="follow redirects (up to http.redirect.max hops, 3 when it is 0)")]
CheckRobots = Annotated[bool, typer.Option(
    "-checkRobotsTxt", "--check-robots-txt", help="fail when robots.txt disallows the URL (default: not checked)")]
ForceAs = Annotated[str, typer.Option("-forceAs", "--force-as", metavar="MIME",
                                      help="parse as this content type, whatever the server says")]

EXCERPT_CHARS = 500
"""Characters of text shown without -dumpText."""


def run_check(url: str, normalize: bool, follow_redirects: bool, check_robots: bool,
              force_as: str = "") -> tuple[PageCheck, Settings]:
    """Fetch and parse ``url`` with the settings of the current directory and ``-D``; exits 2 on bad input."""
    from gossamer.crawl.pagecheck import CheckOptions, check_page

    settings = settings_for(Path.cwd())
    options = CheckOptions(check_robots, follow_redirects, normalize, force_as.strip())
    with user_errors():
        return check_page(url, settings, options), settings


def _http_code(metadata: dict[str, str]) -> int | None:
    from gossamer.core import META_PROTOCOL_CODE

    code = metadata.get(META_PROTOCOL_CODE, "")
    return int(code) if code.isdigit() else None


def fetch_json(check: PageCheck) -> dict[str, Any]:
    """The fetch part of a checker's JSON object: every hop, the final status, the drop reason."""
    from gossamer.core import META_PROTOCOL_STATUS

    hops = [{"url": hop.url, "status": hop.datum.status_name,
             "protocol_status": hop.datum.metadata.get(META_PROTOCOL_STATUS, ""),
             "http_code": _http_code(hop.datum.metadata),
             "linked": [target for target, _ in hop.linked]} for hop in check.hops]
    last = hops[-1] if hops else {}
    return {"url": check.url, "status": last.get("status", "dropped"),
            "protocol_status": last.get("protocol_status", ""), "http_code": last.get("http_code"),
            "final_url": last.get("url", check.url), "hops": hops, "dropped": check.dropped,
            "content_type": {"declared": check.declared_type, "effective": check.effective_type}}


def fetch_lines(check: PageCheck) -> list[str]:
    """The fetch part of a checker's text report."""
    fetch = fetch_json(check)
    lines = [f"fetching: {check.url}"]
    hops = fetch["hops"]
    for hop, target in zip(hops, hops[1:], strict=False):
        lines.append(f"redirect: {hop['url']} -> {target['url']} ({hop['status']}, HTTP {hop['http_code']})")
    if not check.hops:
        return [*lines, f"fetch status: not fetched ({check.dropped or 'no result'})"]
    code = fetch["http_code"]
    http = "" if code is None else f"; HTTP {code}"
    lines.append(f"fetch status: {fetch['status']} ({fetch['protocol_status']}{http})")
    if fetch["final_url"] != check.url:
        lines.append(f"fetched url: {fetch['final_url']}")
    if check.declared_type or check.effective_type:
        effective = f", {check.effective_type} (effective)" if check.page is not None else ""
        lines.append(f"content type: {check.declared_type or '(none)'} (declared){effective}")
    return lines


def fetch_failure(check: PageCheck, follow_redirects: bool) -> str | None:
    """Why the fetch did not succeed (one line, with a hint), or ``None`` when it did."""
    if check.fetched:
        return None
    if not check.hops:
        return f"{check.url} was not fetched: {check.dropped or 'no result'}"
    fetch = fetch_json(check)
    message = f"fetch failed: {fetch['status']} ({fetch['protocol_status']})"
    if fetch["status"].startswith("fetch_redir"):
        message += ("; more redirects than http.redirect.max allows" if follow_redirects
                    else "; use -followRedirects to follow the redirect")
    elif "robots_denied" in fetch["protocol_status"]:
        message += "; robots.txt disallows it (-checkRobotsTxt)"
    return message


def metadata_lines(title: str, metadata: dict[str, str]) -> list[str]:
    """``title:`` then ``  key = value`` per entry, sorted by key."""
    return [f"{title}:", *(f"  {key} = {value}" for key, value in sorted(metadata.items()))]


def excerpt(text: str, dump_text: bool) -> str:
    """All of ``text`` with ``dump_text``, else its first :data:`EXCERPT_CHARS` characters."""
    return text if dump_text or len(text) <= EXCERPT_CHARS else text[:EXCERPT_CHARS] + "…"


def json_default(value: object) -> object:
    """JSON for values json cannot write itself: datetimes as ISO 8601, the rest as text."""
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def value_text(value: object) -> str:
    """A field or metadata value as one line of text: strings and numbers as they are, the rest as JSON."""
    if isinstance(value, str | int | float):
        return str(value)
    text = json.dumps(value, ensure_ascii=False, default=json_default)
    return text[1:-1] if text.startswith('"') else text


def echo_json(data: dict[str, Any]) -> None:
    """One indented JSON object on stdout."""
    typer.echo(json.dumps(data, indent=1, ensure_ascii=False, default=json_default))


def echo_lines(lines: list[str]) -> None:
    """The report lines on stdout."""
    typer.echo("\n".join(lines))


def finish(fetch_failed: str | None, not_done: str | None) -> None:
    """End a checker: exit 3 with ``error: fetch_failed``, exit 1 with ``error: not_done``, else return (0)."""
    for message, code in ((fetch_failed, EXIT_FETCH_FAILED), (not_done, EXIT_NOT_PARSED)):
        if message:
            err_console.print(f"[bold red]error:[/] {message}", markup=True, highlight=False, soft_wrap=True)
            raise typer.Exit(code)
