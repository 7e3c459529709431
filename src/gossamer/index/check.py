"""The document the index job would build for one freshly parsed page (what ``indexchecker`` prints).

:func:`check_document` hands the page to :meth:`DocumentBuilder.document
<gossamer.index.documents.DocumentBuilder.document>`, the very code the index job runs per
URL: robots ``noindex``, indexing filters in order, the static rank (``index.static.rank``:
the scoring filters' ``indexer_score`` by default) and the core fields.  The page is
seen as the index job sees it: its parse data read back (:func:`~.documents.indexed_parse`),
no crawldb row, no inlinks (no linkdb), and the segment name given (none by default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gossamer.core import CrawlDatum, ParseData, ParseText, Settings
from gossamer.index.documents import ADD, DELETE, DocumentBuilder, IndexOptions, indexed_parse
from gossamer.plugins import IndexInput


@dataclass
class DocumentCheck:
    """Outcome of :func:`check_document`: ``document`` when the page would be added.

    ``action`` is ``add``, ``delete`` or ``skip``; ``reason`` the index job's counter for a
    page not added (``skipped_robots_noindex``, ``skipped_by_<Filter>``, ``skipped_error`` …);
    ``messages`` what the URL chain reported.
    """

    url: str
    action: str
    document: dict[str, Any] | None
    reason: str = ""
    messages: list[str] = field(default_factory=list)


def check_document(settings: Settings, url: str, fetch: CrawlDatum, data: ParseData, text: ParseText,
                   segment: str = "", report: Callable[[str], None] | None = None) -> DocumentCheck:
    """The index job's decision and document for a page fetched (``fetch``) and parsed (``data``, ``text``).

    The parse must have succeeded (the index job skips other pages before the filters
    run).  A filter raising ValueError gives action ``skip`` with reason ``skipped_error``
    and the message in :attr:`DocumentCheck.messages`.
    """
    messages: list[str] = []
    builder = DocumentBuilder(settings, IndexOptions())
    parse = indexed_parse(data.title, data.content_metadata, data.parse_metadata, text.text)
    page = IndexInput(url, None, fetch, parse, [], segment)
    try:
        new_url, action, doc, reason = builder.document(page, report or messages.append)
    except ValueError as exc:
        return DocumentCheck(url, "skip", None, "skipped_error", [str(exc)])
    name = "add" if action == ADD else "delete" if action == DELETE else "skip"
    return DocumentCheck(new_url, name, doc, reason, messages)
