"""``gossamer indexchecker URL``: the document the index job would build for one URL (Nutch's IndexingFiltersChecker).

Fetch and parse as ``parsechecker`` does (:mod:`gossamer.cli.page_check`), then the
index job's own per-page step (:func:`gossamer.index.check_document`): robots
``noindex``, the indexing filters in order, the static rank and the core fields.
Printed field by field as ``name :<TAB>value`` (one line per value of a list), values
cut at 100 characters unless -dumpText, as Nutch prints them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gossamer.cli.page_check import (
    CheckRobots,
    DumpText,
    FollowRedirects,
    JsonOut,
    Normalize,
    UrlArg,
    echo_json,
    echo_lines,
    fetch_failure,
    fetch_json,
    fetch_lines,
    finish,
    run_check,
    value_text,
)

if TYPE_CHECKING:
    from gossamer.index import DocumentCheck

FIELD_CHARS = 100
"""Characters of a field value shown without -dumpText (Nutch's IndexingFiltersChecker)."""


def field_lines(document: dict[str, Any], dump_text: bool) -> list[str]:
    """``name :<TAB>value`` per value, in the document's order."""
    lines: list[str] = []
    for name, value in document.items():
        for item in value if isinstance(value, list | tuple) else [value]:
            text = value_text(item)
            if not dump_text and len(text) > FIELD_CHARS:
                text = text[:FIELD_CHARS]
            lines.append(f"{name} :\t{text}")
    return lines


def index_json(result: DocumentCheck | None, reason: str) -> dict[str, Any]:
    """The index part of the JSON object."""
    if result is None:
        return {"action": "skip", "reason": reason, "messages": [], "url": None, "document": None}
    return {"action": result.action, "reason": result.reason, "messages": result.messages, "url": result.url,
            "document": result.document}


def indexchecker_command(
    url: UrlArg,
    dump_text: DumpText = False,
    json_out: JsonOut = False,
    normalize: Normalize = False,
    follow_redirects: FollowRedirects = False,
    check_robots: CheckRobots = False,
) -> None:
    """Fetch and parse one URL, then print the document the indexing filters would build, field by field.

    The same plugin chains as a crawl: protocol, parser, parse filters, scoring, then
    the indexing filters and the static rank (index.static.rank) of the index job.  The
    page is indexed as the index job sees it with no crawldb and no linkdb (no inlinks,
    no segment).  Exit codes: 0 the document would be added, 1 it would not (not parsed,
    robots noindex, skipped by a filter), 2 usage error, 3 fetch failed.

    Examples:

      gossamer indexchecker https://example.com/ -D http.agent.name=mybot

      gossamer indexchecker https://example.com/ --json -D plugin.excludes=index-anchor -D http.agent.name=mybot
    """
    from gossamer.index import check_document

    check, settings = run_check(url, normalize, follow_redirects, check_robots)
    failure = fetch_failure(check, follow_redirects)
    page, last = check.page, check.last
    result: DocumentCheck | None = None
    reason = "not fetched" if failure else ""
    if page is not None and last is not None:
        if page.outcome == "success":
            result = check_document(settings, last.url, last.datum, page.parse_data, page.parse_text)
        else:
            reason = f"not parsed: {page.failed or page.skipped}"
    parse = None if page is None else {"status": page.outcome, "message": page.parse_data.status_message}
    if json_out:
        echo_json({**fetch_json(check), "parse": parse, "index": index_json(result, reason)})
    else:
        lines = fetch_lines(check)
        if parse is not None:
            lines.append(f"parse status: {parse['status']}" + (f" ({parse['message']})" if parse["message"] else ""))
        if result is not None:
            lines.append(f"index action: {result.action}" + (f" ({result.reason})" if result.reason else ""))
            lines += [f"  {message}" for message in result.messages]
            lines += field_lines(result.document or {}, dump_text)
        echo_lines(lines)
    added = result is not None and result.action == "add"
    finish(failure, None if added else f"not indexed: {reason or (result.reason if result else '')}")
