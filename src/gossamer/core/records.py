"""Records that flow between crawl jobs besides :class:`~gossamer.core.datum.CrawlDatum`.

They mirror Nutch's Writables (reference §6.3, §10.1) as plain dataclasses; the
store layer maps each to a Parquet schema (or to WARC for :class:`Content`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import TypeVar, overload

_T = TypeVar("_T")


class ProtocolStatusCode(IntEnum):
    """Nutch's ProtocolStatus codes (``protocol/ProtocolStatus.java``)."""

    SUCCESS = 1
    FAILED = 2
    PROTO_NOT_FOUND = 10
    GONE = 11
    MOVED = 12
    TEMP_MOVED = 13
    NOTFOUND = 14
    RETRY = 15
    EXCEPTION = 16
    ACCESS_DENIED = 17
    ROBOTS_DENIED = 18
    REDIR_EXCEEDED = 19
    NOTFETCHING = 20
    NOTMODIFIED = 21
    WOULDBLOCK = 22
    BLOCKED = 23


@dataclass(slots=True)
class ProtocolStatus:
    """Outcome of one protocol request: a code, arguments (e.g. the redirect target) and a time."""

    code: ProtocolStatusCode
    args: tuple[str, ...] = ()
    last_modified: int = 0

    def to_text(self) -> str:
        """Compact text form stored in the ``_pst_`` metadata key, e.g. ``moved(12), lastModified=0: u``."""
        prefix = _STATUS_TEXT.get(self.code)
        if prefix is None:
            prefix = f"{self.code.name.lower()}({int(self.code)}), lastModified="
        text = f"{prefix}{self.last_modified}"
        return text + (": " + ", ".join(self.args) if self.args else "")


_STATUS_TEXT: dict[ProtocolStatusCode, str] = {
    code: f"{code.name.lower()}({int(code)}), lastModified=" for code in ProtocolStatusCode}
"""The start of :meth:`ProtocolStatus.to_text` per code (made once: ``Enum.name`` is a property lookup)."""


@dataclass(frozen=True, slots=True)
class Outlink:
    """A link found on a page: absolute target URL, anchor text and optional metadata."""

    to_url: str
    anchor: str = ""
    metadata: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Inlink:
    """A link pointing at a page, as the linkdb keeps it: source URL and anchor text."""

    from_url: str
    anchor: str = ""


class ColumnSequence(Sequence[_T]):
    """A read-only sequence whose items are built from columns: equal to any sequence (not a string) of equal items."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence) and not isinstance(other, str):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class InlinkList(ColumnSequence[Inlink]):
    """A page's inlinks held as two parallel lists (source URLs, anchor texts), read as ``Sequence[Inlink]``.

    Built from columns without an :class:`Inlink` object per link; :attr:`anchors` and
    :attr:`from_urls` give readers that need only one of them the plain strings.  The two
    lists must have the same length; neither holds ``None``.
    """

    __slots__ = ("anchors", "from_urls")

    def __init__(self, from_urls: list[str], anchors: list[str]) -> None:
        if len(from_urls) != len(anchors):
            raise ValueError(f"{len(from_urls)} source URLs for {len(anchors)} anchors")
        self.from_urls = from_urls
        self.anchors = anchors

    @overload
    def __getitem__(self, index: int) -> Inlink: ...

    @overload
    def __getitem__(self, index: slice) -> InlinkList: ...

    def __getitem__(self, index: int | slice) -> Inlink | InlinkList:
        if isinstance(index, slice):
            return InlinkList(self.from_urls[index], self.anchors[index])
        return Inlink(self.from_urls[index], self.anchors[index])

    def __iter__(self) -> Iterator[Inlink]:
        return map(Inlink, self.from_urls, self.anchors)

    def __len__(self) -> int:
        return len(self.from_urls)


@dataclass(slots=True)
class Content:
    """Raw fetched content of one URL (Nutch's Content).

    ``base_url`` is the URL the content was finally read from (after redirects);
    ``headers`` are the response headers in arrival order; ``metadata`` holds
    crawl-side facts (segment name, fetch status, score …).
    """

    url: str
    base_url: str
    content: bytes
    content_type: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)
    metadata: dict[str, str] = field(default_factory=dict)


class ParseStatusCode(IntEnum):
    """Major parse status codes (Nutch's ParseStatus)."""

    NOTPARSED = 0
    SUCCESS = 1
    FAILED = 2


@dataclass(slots=True)
class ParseData:
    """What parsing learned about a page besides its text (Nutch's ParseData).

    ``outlinks``: a list of :class:`Outlink`, or the same as columns
    (:class:`~gossamer.core.link_columns.OutlinkList`, what the HTML parser and the outlink
    filter hand on); read it as a sequence.
    """

    status: ParseStatusCode
    title: str = ""
    outlinks: Sequence[Outlink] = field(default_factory=list)
    content_metadata: dict[str, str] = field(default_factory=dict)
    parse_metadata: dict[str, str] = field(default_factory=dict)
    status_message: str = ""


@dataclass(frozen=True, slots=True)
class ParseText:
    """The visible text of a parsed page."""

    text: str
