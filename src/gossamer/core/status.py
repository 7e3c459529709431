"""CrawlDatum status codes: Nutch's byte values and names, unchanged.

Names are the ones ``readdb`` prints (``db_unfetched``, ``fetch_success`` …).
``db_*`` codes are states of a URL in the crawldb, ``fetch_*`` codes results of one
fetch, and the remaining ones are records produced by parsing (``linked``
outlinks, ``signature``, ``parse_metadata``) or by injection.
"""

from __future__ import annotations

from enum import IntEnum


class CrawlStatus(IntEnum):
    """Every Nutch CrawlDatum status (reference §4)."""

    DB_UNFETCHED = 0x01
    DB_FETCHED = 0x02
    DB_GONE = 0x03
    DB_REDIR_TEMP = 0x04
    DB_REDIR_PERM = 0x05
    DB_NOTMODIFIED = 0x06
    DB_DUPLICATE = 0x07
    DB_ORPHAN = 0x08
    DB_PARSE_FAILED = 0x09
    FETCH_SUCCESS = 0x21
    FETCH_RETRY = 0x22
    FETCH_REDIR_TEMP = 0x23
    FETCH_REDIR_PERM = 0x24
    FETCH_GONE = 0x25
    FETCH_NOTMODIFIED = 0x26
    SIGNATURE = 0x41
    INJECTED = 0x42
    LINKED = 0x43
    PARSE_META = 0x44
    PARSE_FAILED = 0x45

    @property
    def status_name(self) -> str:
        """The name Nutch prints, e.g. ``db_unfetched`` (``parse_metadata`` for PARSE_META)."""
        return status_name(int(self))


STATUS_DB_MAX = 0x1F
"""Upper end of the db_* range."""
STATUS_FETCH_MAX = 0x3F
"""Upper end of the fetch_* range."""

_NAMES: dict[int, str] = {s.value: s.name.lower() for s in CrawlStatus}
_NAMES[CrawlStatus.PARSE_META] = "parse_metadata"
_BY_NAME: dict[str, int] = {name: code for code, name in _NAMES.items()}

OLD_STATUS_MAP: dict[int, CrawlStatus] = {
    0: CrawlStatus.SIGNATURE,
    1: CrawlStatus.DB_UNFETCHED,
    2: CrawlStatus.DB_FETCHED,
    3: CrawlStatus.DB_GONE,
    4: CrawlStatus.LINKED,
    5: CrawlStatus.FETCH_SUCCESS,
    6: CrawlStatus.FETCH_RETRY,
    7: CrawlStatus.FETCH_GONE,
}
"""Status codes of CrawlDatum versions before 5, mapped to current codes on read."""


def status_name(code: int) -> str:
    """Nutch's name for a status byte; ``"unknown"`` for a byte that is no status."""
    return _NAMES.get(code, "unknown")


def status_by_name(name: str) -> int:
    """Status byte for a name (case-insensitive, as Nutch); -1 when the name is unknown."""
    return _BY_NAME.get(name.strip().lower(), -1)


def all_status_names() -> list[str]:
    """Every status name, in code order."""
    return [_NAMES[code] for code in sorted(_NAMES)]


def has_db_status(code: int) -> bool:
    """True for crawldb states (``db_*``): codes up to 0x1f."""
    return code <= STATUS_DB_MAX


def has_fetch_status(code: int) -> bool:
    """True for fetch results: 0x1f < code <= 0x3f, and ``parse_failed`` (as in Nutch)."""
    return STATUS_DB_MAX < code <= STATUS_FETCH_MAX or code == CrawlStatus.PARSE_FAILED


STATE_UNKNOWN, STATE_MODIFIED, STATE_NOTMODIFIED = 0, 1, 2
"""What a fetch learned about a page's content, as Nutch's FetchSchedule names it:
unknown, changed since the last fetch, or unchanged (the schedules and updatedb use these)."""
