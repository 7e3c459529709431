"""The output of a parser for one document (:class:`ParseResult`), shared by the parse and index extension points.

Its own module so that :mod:`.api` (parsers, HTML parse filters, signatures) and :mod:`.api_index`
(indexing filters) both use it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gossamer.core import ParseData, ParseText


@dataclass
class ParseResult:
    """Output of a parser for one document.

    ``meta_elements``: the attributes of the page's ``<meta>`` elements in document order, when
    the HTML parser read them (``None`` otherwise).  Never stored; HtmlParseFilters that read
    ``<meta>`` tags use it instead of walking the whole DOM again (a CSS query costs ~0.1 ms
    on a documentation page) and query the tree when it is ``None``.
    """

    data: ParseData
    text: ParseText
    meta_elements: list[dict[str, str | None]] | None = field(default=None, compare=False, repr=False)
