"""``clean-tmp``: remove what killed jobs left in a crawl directory, never what a live job uses.

What killed jobs leave, and how each is known to be dead:

* ``crawldb/`` and ``linkdb/``: unfinished versions (``tmp-*``) and a missing ``current``
  (restored from ``old``): :func:`~gossamer.store.recover` under the table's lock.
* ``segments/.tmp-<name>``: a generate that died before its rename; generate holds the
  crawldb's lock for its whole run, so these go while this sweep holds that lock.
* ``segments/<name>/.fetch-staging``, ``.parse-staging``, and content or parse tables
  without ``crawl_fetch`` (a fetch whose install was cut short): under the segment's lock,
  which every fetch and parse holds.  The checkpointed pages of a killed fetch (its
  journals and their WARC files, :mod:`gossamer.crawl.fetch.resume`) are kept and listed:
  the next fetch of that segment resumes with them; the rest of its staging goes.
* the local engine's spill directories beside a table (``tmp-spill-*``) go with the table's
  other ``tmp-*`` leftovers.

A lock held by a live process means a job is working there: that place is skipped and
reported as busy.  Every job also cleans up its own place when it starts (recover,
prepare_fetch, the parse staging), so the sweep matters for places no job touches again.
Only local crawl directories have segment leftovers of this kind; on another filesystem
the tables are recovered and segments are left to their next fetch.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field

from gossamer.core import Report, Settings
from gossamer.crawl.fetch import FETCH_STAGING, fetch_leftovers, recover_journals
from gossamer.crawl.parse import PARSE_STAGING
from gossamer.engine import table_lock
from gossamer.store import CrawlLayout, LockedError, Place, TableLock, recover

SEGMENT_PREFIX = ".tmp-"


@dataclass
class SweepReport(Report):
    """What the sweep removed and which places it left alone because a live job holds them."""

    removed: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


def _try_lock(place: Place, settings: Settings, report: SweepReport) -> TableLock | None:
    lock = table_lock(place, settings.with_values([("store.lock.wait.seconds", 0)], "clean-tmp"))
    try:
        lock.acquire()
    except LockedError as exc:
        report.busy.append(str(exc).split(": another job", 1)[0])  # "<place> is locked by pid …"
        return None
    return lock


def sweep(crawl_dir: Place, settings: Settings) -> SweepReport:
    """Sweep ``crawl_dir`` (see the module docstring)."""
    layout = CrawlLayout(crawl_dir)
    report = SweepReport()
    for table in (layout.crawldb, layout.linkdb):
        if not table.exists():
            continue
        lock = _try_lock(table, settings, report)
        if lock is None:
            continue
        try:
            report.removed.extend(f"{table.display()}: {action}" for action in recover(table))
            if table == layout.crawldb:
                _sweep_generate_leftovers(layout.segments, report)
        finally:
            lock.release()
    if layout.segments.is_local and layout.segments.exists():
        for segment in sorted(p for p in layout.segments.iterdir() if p.is_dir() and p.name.isdigit()):
            _sweep_segment(segment, settings, report)
    return report


def _sweep_generate_leftovers(segments: Place, report: SweepReport) -> None:
    """``.tmp-*`` segments: only a generate of this crawldb writes them, and none runs (we hold its lock)."""
    if not (segments.is_local and segments.exists()):
        return
    for leftover in sorted(segments.iterdir()):
        if leftover.name.startswith(SEGMENT_PREFIX) and leftover.is_dir():
            shutil.rmtree(leftover, ignore_errors=True)
            report.removed.append(f"{leftover}: unfinished segment of a generate that did not finish")


def _sweep_segment(segment: Place, settings: Settings, report: SweepReport) -> None:
    names = [n for n in (FETCH_STAGING, PARSE_STAGING) if (segment / n).exists()]
    if not names and not fetch_leftovers(segment):
        return
    lock = _try_lock(segment, settings, report)
    if lock is None:
        return
    try:
        if FETCH_STAGING in names and not fetch_leftovers(segment):
            kept = recover_journals(segment / FETCH_STAGING, None)  # prunes all but the checkpointed work
            if kept.journals:
                names.remove(FETCH_STAGING)
                report.kept.append(f"{segment}/{FETCH_STAGING}: {kept.fetched:,} page(s) of an interrupted fetch "
                                   "(the next fetch of the segment resumes with them)")
        for name in (*names, *fetch_leftovers(segment)):
            shutil.rmtree(segment / name, ignore_errors=True)
            report.removed.append(f"{segment}/{name}: left by a fetch or parse that did not finish")
    finally:
        lock.release()
