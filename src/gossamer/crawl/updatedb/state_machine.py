"""The per-URL merge of updatedb (Nutch's CrawlDbReducer and CrawlDbFilter purge rules), as pure functions.

:func:`update_url` takes what updatedb knows about one URL — the crawldb record
(``old``), this round's fetch results, the ``linked`` datums of pages pointing to
it, the parse signature and parse metadata — and returns the new crawldb record
or ``None`` when the URL must not be written.  It follows reference §5 state by
state; docs/updatedb.md has the table.  :func:`reduce_values` does the grouping
Nutch's reducer does when the datums of a URL arrive mixed, and :func:`keep_old`
is the mapper's purge rule.

Nothing here reads files or the clock: the schedule, scoring chain, settings and
"now" come in an :class:`UpdateContext`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gossamer.core import (
    META_GENERATE_TIME,
    STATE_MODIFIED,
    STATE_NOTMODIFIED,
    STATE_UNKNOWN,
    STATUS_DB_MAX,
    STATUS_FETCH_MAX,
    CrawlDatum,
    CrawlStatus,
    Settings,
)
from gossamer.plugins import FetchSchedule, ScoringFilter

LOG = logging.getLogger(__name__)

_SUCCESS_LIKE = {
    CrawlStatus.FETCH_SUCCESS: CrawlStatus.DB_FETCHED,
    CrawlStatus.FETCH_REDIR_TEMP: CrawlStatus.DB_REDIR_TEMP,
    CrawlStatus.FETCH_REDIR_PERM: CrawlStatus.DB_REDIR_PERM,
    CrawlStatus.FETCH_NOTMODIFIED: CrawlStatus.DB_NOTMODIFIED,
}
"""Fetch statuses that (re)schedule the page, with the db status they lead to unless unchanged."""
_LINKED, _SIGNATURE, _PARSE_META, _PARSE_FAILED = (
    int(s) for s in (CrawlStatus.LINKED, CrawlStatus.SIGNATURE, CrawlStatus.PARSE_META, CrawlStatus.PARSE_FAILED))


@dataclass(frozen=True)
class UpdateSettings:
    """The settings updatedb's merge and purge rules read (Nutch names in :meth:`from_settings`)."""

    additions_allowed: bool = True
    retry_max: int = 3
    max_interval: int = 7_776_000
    max_inlinks: int = 10_000
    purge_404: bool = False
    purge_orphans: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> UpdateSettings:
        """Read the settings from Gossamer/Nutch properties.

        Properties: ``db.update.additions.allowed``, ``db.fetch.retry.max``, ``db.fetch.interval.max``,
        ``db.update.max.inlinks``, ``db.update.purge.404`` and ``db.update.purge.orphans``.
        """
        return cls(
            additions_allowed=settings.get_bool("db.update.additions.allowed"),
            retry_max=settings.get_int("db.fetch.retry.max"),
            max_interval=settings.get_int("db.fetch.interval.max"),
            max_inlinks=settings.get_int("db.update.max.inlinks"),
            purge_404=settings.get_bool("db.update.purge.404"),
            purge_orphans=settings.get_bool("db.update.purge.orphans"),
        )


@dataclass
class UpdateContext:
    """Everything :func:`update_url` needs besides the URL's own data.

    ``schedule`` is the configured FetchSchedule, ``scoring`` the ScoringFilter
    chain in order, ``now`` the job's time (epoch ms) used to schedule new URLs.
    """

    schedule: FetchSchedule
    scoring: Sequence[ScoringFilter]
    now: int
    settings: UpdateSettings


def keep_old(datum: CrawlDatum, settings: UpdateSettings | Settings) -> bool:
    """CrawlDbFilter's purge rule: whether a crawldb record goes on into the merge.

    False for db_gone with ``db.update.purge.404`` and for db_orphan with
    ``db.update.purge.orphans``; True otherwise.
    """
    if isinstance(settings, Settings):
        settings = UpdateSettings.from_settings(settings)
    if settings.purge_404 and datum.status == CrawlStatus.DB_GONE:
        return False
    return not (settings.purge_orphans and datum.status == CrawlStatus.DB_ORPHAN)


copy_datum = CrawlDatum.copy
"""``d.copy()`` (metadata dict copied too), built positionally: several times cheaper than ``replace``."""


def latest(datums: Iterable[CrawlDatum]) -> CrawlDatum | None:
    """The datum with the greatest fetch time (the first of equals), or ``None`` for none."""
    best: CrawlDatum | None = None
    for datum in datums:
        if best is None or best.fetch_time < datum.fetch_time:
            best = datum
    return best


def best_inlinks(linked: Iterable[CrawlDatum], limit: int) -> list[CrawlDatum]:
    """The ``limit`` highest-scoring inlinks, best first (stable among equal scores)."""
    ordered = list(linked)
    if len(ordered) > 1:
        ordered.sort(key=_minus_score)
    return ordered[: max(limit, 0)]


def _minus_score(d: CrawlDatum) -> float:
    return -d.score


def signatures_differ(a: bytes, b: bytes) -> bool:
    """Nutch's SignatureComparator: signatures are equal only when byte-for-byte identical."""
    return a != b


def update_url(
    url: str, old: CrawlDatum | None, fetches: Sequence[CrawlDatum], linked: Sequence[CrawlDatum],
    signature: bytes | None, parse_meta: dict[str, str] | None, ctx: UpdateContext,
) -> CrawlDatum | None:
    """Merge one URL's data into its new crawldb record (Nutch's CrawlDbReducer.reduce).

    ``fetches`` are datums with a fetch status (incl. parse_failed); the latest by
    fetch time is used.  ``linked`` are ``linked`` datums (scores carried by
    inlinks).  Returns ``None`` when nothing is written: a new URL while additions
    are not allowed, or no old record and nothing but a signature.  When only
    ``old`` exists, ``old`` itself is returned after the orphaned-score hook.
    The inputs are never modified otherwise.  Raises :class:`ValueError` for a
    fetch datum with a status Nutch does not know.
    """
    settings = ctx.settings
    inlinks = best_inlinks(linked, settings.max_inlinks)
    if old is None and not settings.additions_allowed:
        return None
    fetch = fetches[0] if len(fetches) == 1 else latest(fetches)
    if fetch is None and inlinks:
        fetch = inlinks[0]
    if fetch is None:
        if old is None:
            LOG.warning("%s: nothing but a signature (%r), dropped", url, signature)
            return None
        for scorer in ctx.scoring:
            scorer.orphaned_score(url, old)
        return old
    if signature is None:
        signature = fetch.signature
    prev_modified = old.modified_time if old is not None else 0
    prev_fetch = old.fetch_time if old is not None else 0

    status = fetch.status
    if status == _LINKED and old is not None:
        result = copy_datum(old)  # only inlinks: the old record, rescored below
    else:
        result = copy_datum(fetch)
        if old is not None:
            if old.metadata:
                result.metadata = {**old.metadata, **fetch.metadata}
            if old.modified_time > 0 and fetch.modified_time == 0:
                result.modified_time = old.modified_time
    if status == _LINKED:
        if old is None:
            _new_from_links(url, result, ctx)
    elif status in _SUCCESS_LIKE:
        _fetched(url, old, fetch, result, signature, parse_meta, prev_fetch, prev_modified, ctx)
    elif status == CrawlStatus.FETCH_RETRY:
        if old is not None:
            result.signature = old.signature
        ctx.schedule.set_page_retry_schedule(url, result, prev_fetch, prev_modified, fetch.fetch_time)
        if result.retries < settings.retry_max:
            result.status = CrawlStatus.DB_UNFETCHED
        else:
            result.status = CrawlStatus.DB_GONE
            ctx.schedule.set_page_gone_schedule(url, result, prev_fetch, prev_modified, fetch.fetch_time)
    elif status in (CrawlStatus.FETCH_GONE, CrawlStatus.PARSE_FAILED):
        if old is not None:
            result.signature = old.signature
        result.status = CrawlStatus.DB_GONE if status == CrawlStatus.FETCH_GONE else CrawlStatus.DB_PARSE_FAILED
        ctx.schedule.set_page_gone_schedule(url, result, prev_fetch, prev_modified, fetch.fetch_time)
    else:
        raise ValueError(f"{url}: unknown fetch status {status}")

    for scorer in ctx.scoring:
        try:
            scorer.update_db_score(url, old, result, inlinks)
        except Exception as exc:  # a scoring plugin must not stop updatedb (as in Nutch)
            LOG.warning("%s: could not update score: %s", url, exc)
    result.metadata.pop(META_GENERATE_TIME, None)
    return result


def _new_from_links(url: str, result: CrawlDatum, ctx: UpdateContext) -> None:
    """Only inlinks and no old record: ``result`` (a copy of the best inlink) becomes db_unfetched, scheduled now."""
    ctx.schedule.initialize_schedule(url, result, ctx.now)
    result.status = CrawlStatus.DB_UNFETCHED
    for scorer in ctx.scoring:
        try:
            scorer.initial_score(url, result)
        except Exception as exc:  # Nutch falls back to score 0
            LOG.warning("%s: could not set initial score, using 0: %s", url, exc)
            result.score = 0.0


def _fetched(
    url: str, old: CrawlDatum | None, fetch: CrawlDatum, result: CrawlDatum, signature: bytes | None,
    parse_meta: dict[str, str] | None, prev_fetch: int, prev_modified: int, ctx: UpdateContext,
) -> None:
    """Success, redirect or not-modified: detect change, reschedule, set status and signature."""
    if fetch.status == CrawlStatus.FETCH_NOTMODIFIED:
        state = STATE_NOTMODIFIED
    elif (fetch.status == CrawlStatus.FETCH_SUCCESS and old is not None
          and old.signature is not None and signature is not None):
        # Only plain successes are compared by signature; redirects never are (NUTCH-1422).
        state = STATE_MODIFIED if signatures_differ(old.signature, signature) else STATE_NOTMODIFIED
    else:
        state = STATE_UNKNOWN
    ctx.schedule.set_fetch_schedule(
        url, result, prev_fetch, prev_modified, fetch.fetch_time, fetch.modified_time, state)
    if state == STATE_NOTMODIFIED:
        result.status = CrawlStatus.DB_NOTMODIFIED
        result.modified_time = prev_modified  # NUTCH-1341
        if old is not None:
            result.signature = old.signature
    else:
        result.status = _SUCCESS_LIKE[fetch.status]
        result.signature = signature
    if parse_meta:
        result.metadata.update(parse_meta)  # NUTCH-1656
    if ctx.settings.max_interval < result.fetch_interval:
        ctx.schedule.force_refetch(url, result, False)


@dataclass
class GroupedValues:
    """One URL's datums sorted out the way Nutch's reducer does (see :func:`reduce_values`)."""

    old: CrawlDatum | None
    fetches: list[CrawlDatum]
    linked: list[CrawlDatum]
    signature: bytes | None
    parse_meta: dict[str, str] | None


def group_values(values: Iterable[CrawlDatum]) -> GroupedValues:
    """Sort one URL's mixed datums as Nutch's reducer does.

    db statuses → old (latest fetch time), fetch statuses → fetches, ``linked`` →
    inlinks, ``signature`` → signature (last wins), ``parse_metadata`` → its
    metadata (last wins); other statuses are logged and ignored.
    """
    return GroupedValues(*_grouped(values))


def _grouped(values: Iterable[CrawlDatum]) -> tuple[CrawlDatum | None, list[CrawlDatum], list[CrawlDatum],
                                                     bytes | None, dict[str, str] | None]:
    """:func:`group_values` as a tuple (no object to build: this runs once per URL of every update)."""
    olds: list[CrawlDatum] = []
    fetches: list[CrawlDatum] = []
    linked: list[CrawlDatum] = []
    signature: bytes | None = None
    parse_meta: dict[str, str] | None = None
    for datum in values:
        status = datum.status
        if status <= STATUS_DB_MAX:  # has_db_status and has_fetch_status, inlined
            olds.append(datum)
        elif status <= STATUS_FETCH_MAX or status == _PARSE_FAILED:
            fetches.append(datum)
        elif status == _LINKED:
            linked.append(datum)
        elif status == _SIGNATURE:
            signature = datum.signature
        elif status == _PARSE_META:
            parse_meta = datum.metadata
        else:
            LOG.warning("ignoring datum with unexpected status %s", status)
    return (olds[0] if len(olds) == 1 else latest(olds)), fetches, linked, signature, parse_meta


def reduce_values(url: str, values: Iterable[CrawlDatum], ctx: UpdateContext) -> CrawlDatum | None:
    """:func:`update_url` over a URL's datums in any mix (crawldb, crawl_fetch, crawl_parse)."""
    return update_url(url, *_grouped(values), ctx)
