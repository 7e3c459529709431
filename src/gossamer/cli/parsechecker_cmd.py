"""``gossamer parsechecker URL``: fetch and parse one URL as a crawl would, and show the parse (Nutch's ParserChecker).

The fetch and the parse are the crawl's own (:mod:`gossamer.crawl.pagecheck`): the
Protocol plugins by scheme, the parser chosen by content type, the HtmlParseFilters,
the scoring filters and the signature.  Output and exit codes: :mod:`gossamer.cli.page_check`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gossamer.cli.page_check import (
    CheckRobots,
    DumpText,
    FollowRedirects,
    ForceAs,
    JsonOut,
    Normalize,
    UrlArg,
    echo_json,
    echo_lines,
    excerpt,
    fetch_failure,
    fetch_json,
    fetch_lines,
    finish,
    metadata_lines,
    run_check,
)

if TYPE_CHECKING:
    from gossamer.crawl.parse import ParsedPage


def parse_json(page: ParsedPage | None, dump_text: bool) -> dict[str, Any] | None:
    """The parse part of a checker's JSON object (``None`` when the page was not parsed)."""
    if page is None:
        return None
    data, text = page.parse_data, page.parse_text.text
    signature = next((datum.signature.hex() for _, datum in page.crawl_parse if datum.signature), "")
    return {"status": page.outcome, "message": data.status_message, "signature": signature,
            "title": data.title, "text": excerpt(text, dump_text), "text_length": len(text),
            "outlinks": [{"url": link.to_url, "anchor": link.anchor} for link in data.outlinks],
            "parse_metadata": data.parse_metadata, "content_metadata": data.content_metadata,
            "redirect": page.redirect}


def parse_lines(parsed: dict[str, Any], dump_text: bool) -> list[str]:
    """The parse part of the text report, from :func:`parse_json`'s object."""
    status = parsed["status"] + (f" ({parsed['message']})" if parsed["message"] else "")
    lines = [f"signature: {parsed['signature'] or '(none)'}", f"parse status: {status}",
             f"title: {parsed['title']}"]
    if parsed["redirect"]:
        lines.append(f"meta refresh: {parsed['redirect']}")
    lines.append(f"outlinks: {len(parsed['outlinks'])}")
    lines += [f"  {link['url']}\t{link['anchor']}" for link in parsed["outlinks"]]
    lines += metadata_lines("parse metadata", parsed["parse_metadata"])
    lines += metadata_lines("content metadata", parsed["content_metadata"])
    shown = "all" if dump_text or len(parsed["text"]) >= parsed["text_length"] else "an excerpt; -dumpText for all"
    lines += [f"text: {parsed['text_length']} characters ({shown})", parsed["text"]]
    return lines


def parsechecker_command(
    url: UrlArg,
    dump_text: DumpText = False,
    json_out: JsonOut = False,
    normalize: Normalize = False,
    follow_redirects: FollowRedirects = False,
    check_robots: CheckRobots = False,
    force_as: ForceAs = "",
) -> None:
    """Fetch one URL, parse it as a crawl would and print what the parse found.

    Prints the fetch status, the content type (declared and effective), the signature,
    the parse status, title, outlinks (URL and anchor), parse and content metadata, and
    a text excerpt (-dumpText: all of it).  robots.txt is not consulted unless
    -checkRobotsTxt; redirects are not followed unless -followRedirects.  Exit codes:
    0 parsed, 1 fetched but not parsed, 2 usage error, 3 fetch failed.

    Examples:

      gossamer parsechecker https://example.com/ -D http.agent.name=mybot

      gossamer parsechecker https://example.com/a.pdf -dumpText --json -D http.agent.name=mybot
    """
    check, _ = run_check(url, normalize, follow_redirects, check_robots, force_as)
    failure = fetch_failure(check, follow_redirects)
    parsed = parse_json(check.page, dump_text)
    if json_out:
        echo_json({**fetch_json(check), "parse": parsed})
    else:
        echo_lines(fetch_lines(check) + ([] if parsed is None else parse_lines(parsed, dump_text)))
    page = check.page
    finish(failure, None if page is None or page.outcome == "success" else f"not parsed: {page.failed or page.skipped}")
