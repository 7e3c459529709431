"""Before and after the fetch loops: is the segment fetchable, where shares write, how the result is installed.

Local segment: shares write under ``<segment>/.fetch-staging/``; :func:`install_fetch`
describes the tables and renames them into the segment (content, the parse tables,
crawl_fetch last).  Segment on another filesystem (see
:mod:`gossamer.store.segment_files`): leftovers of an earlier run that never committed
are deleted first (:func:`prepare_fetch`); shares upload their files in place;
:func:`install_fetch` deletes files no share reported, describes the parse tables, and
commits by writing ``crawl_fetch/_table.json`` then ``crawl_fetch/_SUCCESS`` — the
same order as the local renames.  Either way ``crawl_fetch`` is the commit point: a
crash leaves the segment unfetched (content or parse tables without it are leftovers,
removed by the next run's :func:`prepare_fetch`; updatedb refuses such a segment), and
the next run resumes from the shares' checkpoints (local segments) or starts over.

:func:`recent_requests` reads when the previous round fetched each host, from the
segments beside this one (local or remote alike).
"""

from __future__ import annotations

import logging
import os
import shutil
import time
from collections.abc import Collection

import pyarrow as pa
import pyarrow.compute as pc

from gossamer.core import Settings
from gossamer.crawl.fetch.resume import JOURNALS, Recovered, recover_journals
from gossamer.crawl.fetch.segment_sink import CONTENT, CRAWL_FETCH
from gossamer.store import (
    DESCRIPTION_FILE,
    Place,
    TableDescription,
    TableError,
    TableVersion,
    as_place,
    children,
    clear_tables,
    finish_version,
    modified_time,
    sweep_unreported,
    table_present,
)

LOG = logging.getLogger(__name__)
STAGING = ".fetch-staging"


def _parse_tables() -> tuple[str, ...]:
    from gossamer.crawl.parse import TABLES

    return TABLES


def check_fetchable(segment: Place) -> None:
    """Raise ValueError / TableError unless ``segment`` has a fetch list and no committed fetch (crawl_fetch)."""
    segment = as_place(segment)
    if not table_present(segment / "crawl_generate"):
        raise TableError(f"{segment}: not a segment (no crawl_generate)")
    TableVersion(segment / "crawl_generate").close()
    if table_present(segment / CRAWL_FETCH):  # the commit point, on every filesystem
        raise ValueError(f"{segment} is already fetched ({CRAWL_FETCH} exists): generate a new segment")


def fetch_leftovers(segment: Place) -> list[str]:
    """Tables of a local segment that an interrupted fetch install left: present without crawl_fetch."""
    segment = as_place(segment)
    if (segment / CRAWL_FETCH).exists():
        return []
    return [name for name in (CONTENT, *_parse_tables()) if (segment / name).exists()]


def prepare_fetch(segment: Place, settings: Settings, parse: bool) -> Recovered:
    """Clear what a crashed run left, keeping its checkpointed pages; what was kept.

    Called under the segment's lock, after :func:`check_fetchable`: ``crawl_fetch`` is not
    there, so content and parse tables present are leftovers of an interrupted install.
    Locally, content an interrupted install had already moved goes back into the staging
    directory, and :func:`~gossamer.crawl.fetch.resume.recover_journals` keeps the
    checkpointed work (unless ``fetcher.checkpoint.seconds`` is 0: then, and on other
    filesystems, the fetch starts over).
    """
    segment = as_place(segment)
    recovered = Recovered()
    if segment.is_local:
        staging = segment / STAGING
        resume = settings.get_float("fetcher.checkpoint.seconds") > 0 and (staging / JOURNALS).is_dir()
        if not resume:
            shutil.rmtree(staging, ignore_errors=True)
        elif (segment / CONTENT).is_dir() and not (staging / CONTENT).exists():
            os.rename(segment / CONTENT, staging / CONTENT)  # the install had moved it: still this fetch's
        removed = fetch_leftovers(segment)
        for name in removed:
            shutil.rmtree(segment / name)
        staging.mkdir(exist_ok=True)
        if resume:
            recovered = recover_journals(staging, parse)
    else:
        removed = clear_tables(segment, (CONTENT, *_parse_tables(), CRAWL_FETCH))
    if removed:
        LOG.warning("%s: deleted %s left by a fetch that did not finish", segment.display(), ", ".join(removed))
    if recovered.fetched:
        LOG.warning("%s: resuming an interrupted fetch: %d page(s) already fetched are kept",
                    segment.display(), recovered.fetched)
    return recovered


def install_fetch(segment: Place, processes: int, parse: bool, rows: int, files: Collection[str]) -> None:
    """Make the fetch visible (see the module docstring); ``files`` are those the shares uploaded."""
    segment = as_place(segment)
    description = TableDescription(kind=CRAWL_FETCH, parts=processes, partitioner="fetch-share", rows=rows,
                                   job="fetch", created=int(time.time() * 1000))
    if segment.is_local:
        staging = segment / STAGING
        if (staging / CONTENT).is_dir():
            os.rename(staging / CONTENT, segment / CONTENT)
        if parse:
            from gossamer.crawl.parse import finish_parse_tables

            finish_parse_tables(staging, segment, processes, job="fetch")
        finish_version(staging / CRAWL_FETCH, description)
        os.rename(staging / CRAWL_FETCH, segment / CRAWL_FETCH)
        shutil.rmtree(staging, ignore_errors=True)
        return
    tables = (CONTENT, *(_parse_tables() if parse else ()), CRAWL_FETCH)
    stale = sweep_unreported(segment, tables, files)
    if stale:
        LOG.warning("%s: deleted %d file(s) no successful fetch task reported", segment.display(), len(stale))
    if parse:
        from gossamer.crawl.parse import complete_parse_tables

        complete_parse_tables(segment, processes, partitioner="fetch-share", job="fetch")
    finish_version(segment / CRAWL_FETCH, description)  # its _SUCCESS is the commit


def recent_requests(segment: Place, settings: Settings) -> dict[str, float]:
    """Hosts that the latest other fetched segment beside ``segment`` requested less than a delay ago.

    Returns one URL per such host → the epoch seconds its last response ended (the
    fetch time crawl_fetch records).  Consecutive rounds of a crawl are separate
    fetch jobs; without this, a host fetched at the end of one round would get the
    first request of the next (its robots.txt) too early.  Segments on another
    filesystem are compared by the time the store gives their ``crawl_fetch/_table.json``.
    """
    delay = settings.get_float("fetcher.server.min.delay" if settings.get_int("fetcher.threads.per.queue") > 1
                               else "fetcher.server.delay")
    if delay <= 0:
        return {}
    horizon = time.time() - delay
    horizon_ms = int(horizon * 1000)
    latest: tuple[float, Place] | None = None
    for other in children(segment.parent):
        if other == segment or not other.name.isdigit():
            continue
        installed = modified_time(other / CRAWL_FETCH / DESCRIPTION_FILE)  # written when crawl_fetch is installed
        if installed is not None and installed >= horizon and (latest is None or installed > latest[0]):
            latest = (installed, other)
    if latest is None:
        return {}
    ends: dict[str, tuple[int, str]] = {}
    try:
        with TableVersion(latest[1] / CRAWL_FETCH) as version:
            for index in range(version.parts):
                for batch in version.iter_part(index, 65536, columns=["url", "host", "status", "fetch_time"]):
                    times = batch.column("fetch_time").cast(pa.timestamp("ms", tz="UTC")).cast(pa.int64())
                    keep = pc.and_(pc.greater_equal(times, horizon_ms), pc.less(batch.column("status"), 64))
                    chosen = batch.filter(keep)
                    for url, host, ended in zip(chosen.column("url").to_pylist(), chosen.column("host").to_pylist(),
                                                times.filter(keep).to_pylist(), strict=True):
                        if ended > ends.get(host, (0, ""))[0]:
                            ends[host] = (ended, url)
    except (TableError, OSError, pa.ArrowException) as exc:  # unreadable: fetch as if no round came before
        LOG.warning("%s: cannot read the previous round's fetch times (%s); hosts start without waiting",
                    latest[1], exc)
        return {}
    return {url: ended / 1000 for ended, url in ends.values()}
